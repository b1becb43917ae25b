import CLockedTracking
import CTrackingSupport
import RegistrarTestSupport
import Synchronization

@testable import LockedObservation

// MARK: - The locked registrar

extension LockedRow: ModelUnderTest {
    var stored: Int { value.load(ordering: .acquiring) }
    func store(_ value: Int) { self.value.store(value, ordering: .releasing) }
}

extension LockedScope: ScopeUnderTest {}

enum Locked: RegistrarUnderTest {
    static func scope(notifying observer: some ChangeObserver) -> LockedScope { LockedScope(observer) }
    static func scope(onChange: @escaping @Sendable () -> Void) -> LockedScope { LockedScope(onChange: onChange) }
    static var holdsItsCursor: Bool { ReusableScope.holdsItsCursor }
    static var holeMoveLimit: Int { DependencyHoles.moveLimit }
    static var holeRunLimit: Int { DependencyHoles.runLimit }

    static func slots(of model: LockedRow, heldBy scope: LockedScope) -> Int {
        model._slots(heldBy: scope.scope.record, generation: scope.scope.generation)
    }

    static func withTracking(_ apply: () -> Void, onChange: @escaping @Sendable () -> Void) {
        LockedTracking.withTracking(apply, onChange: onChange)
    }
    static var aScopeRunsOnThisThread: Bool { locked_thread_state()!.pointee.depth != 0 }

    static var noRunOnThisThread: Bool {
        let thread = locked_thread_state()!.pointee
        return thread.depth == 0 && thread.count == 0 && thread.releasedCount == 0 && thread.run.dependencyCount == 0
    }

    /// The slots whose scope still holds them (as the lock-free registrar's, a slot stays until a
    /// writer or an install reclaims it).
    static func observerCount(of model: LockedRow) -> Int { model._observerCount }

    static func lead(of scope: LockedScope) -> UInt {
        ScopeTable.store(scope.scope.record).pointee.dependencies.base[0].key & DependencyHead.leadBits
    }

    static func dependency(_ scope: LockedScope, _ index: Int) -> (object: UnsafeMutableRawPointer?, mask: UInt64) {
        let head = ScopeTable.store(scope.scope.record).pointee.dependencies.base[index]
        return (head.object, head.mask)
    }

    static func displacing(_ scope: LockedScope) -> Bool {
        locked_thread_state()!.pointee.run.bitsRead >= RunReads.displacement
    }

    static func straddlingSlots(_ scope: LockedScope, of object: LockedRow) -> Int {
        Int(ScopeTable.store(scope.scope.record).pointee.straddling)
    }
}
