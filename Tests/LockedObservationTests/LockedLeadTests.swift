import Dispatch
import Foundation
import Synchronization
import LockFreeObservation
import Testing

@testable import LockedObservation

/// The `locked` ablation's dependency leads, as the lock-free registrar's (`DependencyLeadTests`):
/// the key's lead is the lowest watched property below 15, settled at each install and mask
/// change, so that a getter keeping a read on it with no mask test keeps only reads its slot
/// covers. A stale lead would keep a read with no version loaded, and the re-check would report
/// a write made before that read (an unnecessary notification); a shared lead 15 kept without the
/// mask test would do the same for a property from 15 up.
@Suite struct LockedLeadTests {
    /// An object whose properties share one atomic value.
    final class Row: LockedObject, @unchecked Sendable {
        let value = Atomic<Int>(0)
        func read(_ property: Int) -> Int {
            trackAccess(property)
            return value.load(ordering: .acquiring)
        }
        func write(_ property: Int, _ newValue: Int) {
            withMutation(property) { value.store(newValue, ordering: .releasing) }
        }
    }

    static func lead(of scope: LockedScope) -> UInt {
        scope.handle.core.deps.heads[0].key & DependencyHead.leadBits
    }

    /// A write by another thread, joined before the body goes on.
    static func writeElsewhere(_ row: Row, _ property: Int, _ value: Int) {
        let done = DispatchSemaphore(value: 0)
        let shared = UncheckedRow(row)
        Thread { shared.row.write(property, value); done.signal() }.start()
        done.wait()
    }

    struct UncheckedRow: @unchecked Sendable {
        let row: Row
        init(_ row: Row) { self.row = row }
    }

    /// Writes `property` where nobody watches it, then runs `scope` reading `property` and then
    /// `other`, with a write of `property` by another thread between the two reads when
    /// `writeAfterTheRead`: only the later write is told.
    static func expectOnlyAWriteAfterTheReadIsTold(
        _ row: Row, _ scope: LockedScope, _ probe: Probe, reading property: Int, then other: Int,
        writeAfterTheRead: Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        row.write(property, 5)
        #expect(probe.count == 0, sourceLocation: sourceLocation)
        _ = scope.run {
            let value = row.read(property)
            if writeAfterTheRead { writeElsewhere(row, property, value + 1) }
            return value + row.read(other)
        }
        #expect(probe.count == (writeAfterTheRead ? 1 : 0), sourceLocation: sourceLocation)
        if !writeAfterTheRead {
            row.write(property, 6)
            #expect(probe.count == 1, sourceLocation: sourceLocation)
        }
    }

    @Test func theLeadIsTheLowestWatchedPropertyBelowFifteen() {
        let row = Row()
        let scope = LockedScope(Probe())
        _ = scope.run { row.read(0) + row.read(1) }
        #expect(Self.lead(of: scope) == 0)
        _ = scope.run { row.read(1) }
        #expect(Self.lead(of: scope) == 1)
        _ = scope.run { row.read(20) + row.read(14) }
        #expect(Self.lead(of: scope) == 14)
        _ = scope.run { row.read(20) + row.read(30) }
        #expect(Self.lead(of: scope) == 15)
        _ = scope.run { row.read(0) + row.read(20) }
        #expect(Self.lead(of: scope) == 0)
        #expect(scope.dependencyCount == 1)
        scope.cancel()
    }

    /// Properties 0 and 1 watched, then only 1 (lead 1); property 0 read again goes to the slow
    /// path and loads its version: a write of 0 before the read is not reported, one after is.
    @Test(arguments: [false, true])
    func aPropertyNoLongerWatchedIsReadWithItsVersion(writeAfterTheRead: Bool) {
        let row = Row()
        let probe = Probe()
        let scope = LockedScope(probe)
        _ = scope.run { row.read(0) + row.read(1) }
        _ = scope.run { row.read(1) }
        #expect(Self.lead(of: scope) == 1)
        Self.expectOnlyAWriteAfterTheReadIsTold(row, scope, probe, reading: 0, then: 1, writeAfterTheRead: writeAfterTheRead)
        scope.cancel()
    }

    /// Only property 20 watched (lead 15): a read of 30 is tested against the mask, goes to the
    /// slow path and loads its version: a write of 30 before the read is not reported, one after is.
    @Test(arguments: [false, true])
    func aHighPropertyOutsideTheSlotIsReadWithItsVersion(writeAfterTheRead: Bool) {
        let row = Row()
        let probe = Probe()
        let scope = LockedScope(probe)
        _ = scope.run { row.read(20) }
        #expect(Self.lead(of: scope) == 15)
        Self.expectOnlyAWriteAfterTheReadIsTold(row, scope, probe, reading: 30, then: 20, writeAfterTheRead: writeAfterTheRead)
        scope.cancel()
    }
}
