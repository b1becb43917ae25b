import Testing

@testable import LockedObservation

/// The `locked` ablation's displacement, as the lock-free registrar's (`DependencyDisplacementTests`):
/// a new read at the run's last dependency takes its place (`_ScopeCore.displaceLast`), installed
/// when the run ends with the version its first read loaded (`settleDisplacement`), the displaced
/// one dropped then.
@Suite struct LockedDisplacementTests {
    typealias Row = LockedLeadTests.Row

    /// Whether `scope`'s running run has put a new dependency in its last one's place.
    static func displacing(_ scope: LockedScope) -> Bool { scope.handle.core.displacing }

    /// Runs `scope` reading `source` then `old`, then again reading `source` then `new`, which
    /// takes `old`'s place, and then `rest(new)` in the same body. Returns `new`.
    static func displacingRun(_ scope: LockedScope, then rest: (_ new: Row) -> Int) -> Row {
        let (source, old, new) = (Row(), Row(), Row())
        _ = scope.run { source.read(0) + old.read(0) }
        _ = scope.run { source.read(0) + new.read(0) + rest(new) }
        return new
    }

    /// The body reads `source`, then one of two objects by turns: two dependencies after each run,
    /// the second what it read, and only a write of that tells the scope.
    @Test func aChangingLastDependencyTakesItsPlace() {
        let (source, double, inverse) = (Row(), Row(), Row())
        let probe = Probe()
        let scope = LockedScope(probe)
        var told = 0
        for round in 0..<6 {
            let (now, other) = round % 2 == 0 ? (double, inverse) : (inverse, double)
            var displaced = false
            _ = scope.run {
                let sum = (0..<20).reduce(source.read(0)) { sum, _ in sum + source.read(0) + now.read(0) }
                displaced = Self.displacing(scope)
                return sum
            }
            #expect(displaced == (round > 0))
            #expect(scope.dependencyCount == 2)
            #expect(scope.handle.core.deps[1].object == Unmanaged.passUnretained(now).toOpaque())
            other.write(0, round)
            #expect(probe.count == told)
            now.write(0, round)
            told += 1
            #expect(probe.count == told)
        }
        scope.cancel()
    }

    /// A write of the new dependency by another thread after its first read, while the body still
    /// runs: only the install's re-check at the run's end can tell the scope (once).
    @Test(arguments: [false, true])
    func aWriteAfterTheNewReadIsToldWhenTheRunEnds(writeDuringTheRun: Bool) {
        let probe = Probe()
        let scope = LockedScope(probe)
        let new = Self.displacingRun(scope) { new in
            if writeDuringTheRun { LockedLeadTests.writeElsewhere(new, 0, 7) }
            return new.read(0)
        }
        #expect(probe.count == (writeDuringTheRun ? 1 : 0))
        if !writeDuringTheRun {
            new.write(0, 8)
            #expect(probe.count == 1)
        }
        scope.cancel()
    }

    /// The new dependency's further property, read after another thread wrote the first: the run
    /// read the first property's old value, so the scope is told; a version loaded again by the
    /// later read would lose the write. With no such write, both properties are watched, a third
    /// is not.
    @Test(arguments: [false, true])
    func aFurtherPropertyOfTheNewDependencyKeepsItsFirstVersion(writeBetweenTheReads: Bool) {
        let probe = Probe()
        let scope = LockedScope(probe)
        let new = Self.displacingRun(scope) { new in
            if writeBetweenTheReads { LockedLeadTests.writeElsewhere(new, 0, 7) }
            return new.read(1)
        }
        #expect(probe.count == (writeBetweenTheReads ? 1 : 0))
        if !writeBetweenTheReads {
            #expect(scope.handle.core.deps[1].mask == 0b11)
            new.write(2, 1)
            #expect(probe.count == 0)
            new.write(1, 1)
            #expect(probe.count == 1)
        }
        scope.cancel()
    }

    /// The body's own write of the new dependency is not a change the run missed: the scope is told
    /// only of a later write.
    @Test func theBodysOwnWriteOfTheNewDependencyIsNotTold() {
        let probe = Probe()
        let scope = LockedScope(probe)
        let new = Self.displacingRun(scope) { new in
            new.write(0, 1)
            return 0
        }
        #expect(probe.count == 0)
        new.write(0, 9)
        #expect(probe.count == 1)
        scope.cancel()
    }
}
