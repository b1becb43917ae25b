import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

extension RegistrarTests {
    /// Tests that watch the process-wide record pool: serialized among themselves. Other tests of the
    /// process may still hold a few records meanwhile, hence the spare records and slack noted below.
    /// (The multi-threaded stress is `AdversarialStressTests`.)
    @Suite(.serialized) struct PoolTests {
        /// Leaves at least `count` free records in the pool, so that other tests running meanwhile
        /// take records from the free list rather than growing the pool.
        static func reserveSpareRecords(_ count: Int) {
            let model = Counters()
            let tokens = (0..<count).map { _ in withCancellableTracking({ _ = model.count }, onChange: {}).token }
            for token in tokens { token.cancel() }
        }

        @Test func steadyStateTrackFireCycleReusesRecords() {
            let model = Counters()
            let observer = CountingObserver()
            func cycle() -> TrackingToken {
                let (_, token) = withTracking(
                    {
                        _ = model.count
                        _ = model.name
                    }, notifying: observer)
                model.count += 1
                return token
            }
            for _ in 0..<100 { _ = cycle() }
            Self.reserveSpareRecords(1024)
            let before = poolSize
            let firedBefore = observer.count
            var records = Set<UInt32>()
            var notReturned = 0
            for _ in 0..<10_000 {
                let token = cycle()
                records.insert(token.record)
                if !isReturned(token) { notReturned += 1 }
            }
            #expect(observer.count - firedBefore == 10_000)
            // Every record went back to the pool, and the pool did not grow with the cycles (other
            // targets' tests running meanwhile may take records; a leak would take 10_000).
            #expect(notReturned == 0)
            #expect(poolSize - before < leakThreshold)
            // Alone, the cycle uses one record over and over (a LIFO free list); other tests taking
            // records meanwhile make it more. A leak would make it 10_000.
            #expect(records.count <= 512)
            // The closure form too.
            let closureBefore = poolSize
            let fired = Counter()
            var closureNotReturned = 0
            for _ in 0..<10_000 {
                let token = withCancellableTracking({ _ = model.count }, onChange: { fired.bump() }).token
                model.count += 1
                if !isReturned(token) { closureNotReturned += 1 }
            }
            #expect(fired.value == 10_000)
            #expect(closureNotReturned == 0)
            #expect(poolSize - closureBefore < leakThreshold)
        }

        @Test func cancelledScopesReturnTheirRecords() {
            let model = Counters()
            for _ in 0..<100 { withCancellableTracking({ _ = model.count }, onChange: {}).token.cancel() }
            Self.reserveSpareRecords(1024)
            let before = poolSize
            var notReturned = 0
            for _ in 0..<10_000 {
                let token = withCancellableTracking(
                    {
                        _ = model.count
                        _ = model.other
                    }, onChange: {}
                ).token
                #expect(token.cancel())
                if !isReturned(token) { notReturned += 1 }
            }
            // Continuous scopes, each with a few callbacks.
            for _ in 0..<1_000 {
                let token = observeChanges({ _ = model.count }, onChange: {})
                model.count += 1
                model.count += 1
                #expect(token.cancel())
                if !isReturned(token) { notReturned += 1 }
            }
            #expect(notReturned == 0)
            #expect(poolSize - before < leakThreshold)
        }
    }
}
