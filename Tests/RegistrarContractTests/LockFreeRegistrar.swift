import CTrackingSupport
import RegistrarTestSupport
import Synchronization

@testable import LockFreeObservation

// MARK: - The lock-free registrar

extension Row: ModelUnderTest {
    var stored: Int { value.load(ordering: .relaxed) }
    func store(_ value: Int) { self.value.store(value, ordering: .relaxed) }
}

extension ReusableScope: ScopeUnderTest {}

enum LockFree: RegistrarUnderTest {
    static func scope(notifying observer: some ChangeObserver) -> ReusableScope { ReusableScope(notifying: observer) }
    static func scope(onChange: @escaping @Sendable () -> Void) -> ReusableScope { ReusableScope(onChange: onChange) }
    static var holdsItsCursor: Bool { ReusableScope.holdsItsCursor }
    static var holeMoveLimit: Int { DependencyHoles.moveLimit }
    static var holeRunLimit: Int { DependencyHoles.runLimit }

    static func slots(of model: Row, heldBy scope: ReusableScope) -> Int {
        var count = 0
        model._forEachSlotBlock { block in
            for i in 0..<block.capacity {
                let content = SlotContent(raw: block.slot(i).pointee.load(ordering: .acquiring))
                if content.raw != 0 && content.record == scope.record && content.generation == scope.generation {
                    count += 1
                }
            }
        }
        return count
    }

    static func withTracking(_ apply: () -> Void, onChange: @escaping @Sendable () -> Void) {
        LockFreeObservation.withTracking(apply, onChange: onChange)
    }
    static var aScopeRunsOnThisThread: Bool { tracking_thread_state()!.pointee.depth != 0 }

    static var noRunOnThisThread: Bool {
        let thread = tracking_thread_state()!.pointee
        return thread.depth == 0 && thread.count == 0 && thread.releasedCount == 0 && thread.run.dependencyCount == 0
    }

    /// A slot word stays until a writer or an install reclaims it: the live ones are those whose
    /// scope is still in the incarnation they were written for, armed, idle or reading.
    static func observerCount(of model: Row) -> Int {
        var count = 0
        model._forEachSlotBlock { block in
            for i in 0..<block.capacity {
                let content = SlotContent(raw: block.slot(i).pointee.load(ordering: .acquiring))
                guard content.raw != 0 else { continue }
                let state = ScopeState(raw: ScopeTable.record(content.record).pointee.state.load(ordering: .acquiring))
                if state.generation == content.generation && (state.isArmed || state.isIdle || state.isReading) {
                    count += 1
                }
            }
        }
        return count
    }

    static func lead(of scope: ReusableScope) -> UInt {
        ScopeTable.store(scope.record).pointee.dependencies.base[0].key & DependencyHead.leadBits
    }

    static func dependency(_ scope: ReusableScope, _ index: Int) -> (object: UnsafeMutableRawPointer?, mask: UInt64) {
        let head = ScopeTable.store(scope.record).pointee.dependencies.base[index]
        return (head.object, head.mask)
    }

    static func displacing(_ scope: ReusableScope) -> Bool {
        tracking_thread_state()!.pointee.run.bitsRead >= RunReads.displacement
    }

    static func straddlingSlots(_ scope: ReusableScope, of object: Row) -> Int {
        Int(ScopeTable.store(scope.record).pointee.straddling)
    }
}
