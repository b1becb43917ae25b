import CTrackingSupport
import Foundation
import Observation
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

// A bridged model observed by both systems at once (Guarantees, "Observed by Observation too").

@TrackedModel final class BridgedPair: TrackedObject, TrackedObservable {
    var a = 0
    var b = 0
    var label = ""
}

@TrackedModel final class UnbridgedPair: TrackedObject {
    var a = 0
}

/// A bridged model written by hand, over atomic storage, so that a test may read it on one thread
/// while another writes it (plain storage would be a data race of the test's own): the accessors
/// `@TrackedModel` generates, with the value in an `Atomic`.
final class BridgedAtomicCell: TrackedObject, TrackedObservable, @unchecked Sendable {
    // `@unchecked Sendable`: the value is atomic; the registrars' state is their own.
    let _observationBridge = ObservationBridgeStorage()
    private let storage = Atomic<Int>(0)

    var value: Int {
        get {
            trackAccess(0)
            _observationAccess(self, \BridgedAtomicCell.value)
            return storage.load(ordering: .acquiring)
        }
        set {
            guard storage.load(ordering: .relaxed) != newValue else { return }
            let mutation = willMutate(0)
            _observationWillSet(self, \BridgedAtomicCell.value)
            storage.store(newValue, ordering: .releasing)
            _observationDidSet(self, \BridgedAtomicCell.value)
            didMutate(mutation)
        }
    }
}

/// What generic code constrained as `@Bindable` and `@Environment(Model.self)` are takes.
func identify<Model: Observable & AnyObject>(_ model: Model) -> ObjectIdentifier { ObjectIdentifier(model) }

/// `@Environment(Model.self)`'s lookup: by type, among objects of any type.
func find<Model: Observable & AnyObject>(_: Model.Type, in environment: [AnyObject]) -> Model? {
    environment.lazy.compactMap { $0 as? Model }.first
}

extension RegistrarTests {
    @Suite struct ObservationBridgeTests {
        /// The direct read of Observation's thread-local works on this toolchain (or is turned off
        /// on purpose, as `scripts/test.sh` runs these tests a second time).
        @Test func observationsTrackingIsReadDirectlyUnlessTurnedOff() {
            let off = ProcessInfo.processInfo.environment["LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL"] != nil
            #expect(ObservationBridge.readsTrackingDirectly == !off)
            var inside = false
            withObservationTracking({ inside = ObservationBridge.isTracking }, onChange: {})
            #expect(inside)
            #expect(ObservationBridge.isTracking == off)
        }

        /// Where every read is forwarded, a thread reads a global that C hands out: its value is its
        /// own address, for the life of the process (not a copy of it on some stack). Where the
        /// direct read is trusted, the thread reads Observation's own block.
        @Test func theWordEachThreadReadsIsAGlobalOrObservationsOwn() {
            let always = tracking_observation_always_address()!
            #expect(UnsafeRawPointer(always.pointee) == UnsafeRawPointer(always))
            // On a thread of its own, so that its first bridged read resolves it now.
            final class Seen: @unchecked Sendable {
                // `@unchecked Sendable`: written by the thread before `done` is signalled.
                var word: UnsafeRawPointer?
                var block: UnsafeRawPointer?
                var trackingOutside = false
                let done = DispatchSemaphore(value: 0)
            }
            let seen = Seen()
            let thread = Thread {
                withObservationTracking({ _ = BridgedPair().a }, onChange: {})
                // Stack churn between the resolution and the reads that follow it.
                var churn = [Int](repeating: 7, count: 64)
                churn.withUnsafeMutableBufferPointer { buffer in for i in buffer.indices { buffer[i] &+= i } }
                seen.word = ObservationBridge.resolvedWord.map(UnsafeRawPointer.init)
                seen.block = tracking_observation_block().map(UnsafeRawPointer.init)
                seen.trackingOutside = ObservationBridge.isTracking
                seen.done.signal()
            }
            thread.start()
            seen.done.wait()
            let (word, block, trackingOutside) = (seen.word, seen.block, seen.trackingOutside)
            if ObservationBridge.readsTrackingDirectly {
                #expect(word == block)
                #expect(!trackingOutside)
            } else {
                #expect(word == UnsafeRawPointer(always))
                #expect(trackingOutside)
            }
        }

        /// The once-per-process check trusts a word only if a tracking recorded through that word
        /// alone is told of a write: a word that is never set fails it, one always set fails it,
        /// and one that changes in the first tracking but not in the second (a per-thread value of
        /// a future runtime that is not the tracking's) fails it too.
        @Test func theCheckTrustsOnlyAWordThatATrackingIsToldThrough() {
            let off = ProcessInfo.processInfo.environment["LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL"] != nil
            #expect(
                ObservationBridge.observationTrackingIsReadable(through: tracking_observation_block)
                    == (tracking_observation_block_is_supported() && !off))
            let never = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
            defer { never.deallocate() }
            never.pointee = nil
            #expect(!ObservationBridge.observationTrackingIsReadable(through: { UnsafePointer(never) }))
            #expect(
                !ObservationBridge.observationTrackingIsReadable(through: { tracking_observation_always_address() }))
            // Set while the first tracking runs (its second look), clear at every other look.
            let scripted = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
            defer { scripted.deallocate() }
            scripted.pointee = nil
            var looks = 0
            #expect(
                !ObservationBridge.observationTrackingIsReadable(through: {
                    looks += 1
                    scripted.pointee = looks == 2 ? UnsafeMutableRawPointer(scripted) : nil
                    return UnsafePointer(scripted)
                }))
            #expect(looks == 4)
        }

        /// Until Observation tracks a read of it, a bridged model has no registrar of Observation's
        /// (no allocation), and its writes find none.
        @Test func aModelObservationNeverTrackedHasNoRegistrar() {
            let model = BridgedPair()
            _ = model.a
            model.a = 1
            withTracking({ _ = model.a }, onChange: {})
            model.a = 2
            let off = !ObservationBridge.readsTrackingDirectly
            #expect((model._observationBridge.existing() != nil) == off)
            withObservationTracking({ _ = model.b }, onChange: {})
            #expect(model._observationBridge.existing() != nil)
        }

        @Test func aWriteTellsEachSystemOnce() {
            let model = BridgedPair()
            let ours = Counter()
            let continuous = Counter()
            let observation = Counter()
            withTracking({ _ = model.a }, onChange: { ours.bump() })
            let token = observeChanges({ _ = model.a }, onChange: { continuous.bump() })
            defer { token.cancel() }
            withObservationTracking({ _ = model.a }, onChange: { observation.bump() })
            model.a = 1
            #expect([ours.value, continuous.value, observation.value] as [Int] == [1, 1, 1])
            model.a = 1
            #expect([ours.value, continuous.value, observation.value] as [Int] == [1, 1, 1])
            model.a = 2
            #expect([ours.value, continuous.value, observation.value] as [Int] == [1, 2, 1])
            model.b = 1
            #expect([ours.value, continuous.value, observation.value] as [Int] == [1, 2, 1])
        }

        /// This registrar's scopes are told before Observation's `onChange`, both before the store.
        @Test func bothSystemsAreToldBeforeTheStoreOursFirst() {
            let model = BridgedPair()
            let log = Unchecked(EventLog())
            let shared = Unchecked(model)
            withObservationTracking(
                { _ = model.a }, onChange: { log.value.events.append("observation \(shared.value.a)") })
            withTracking({ _ = model.a }, onChange: { log.value.events.append("ours \(shared.value.a)") })
            model.a = 5
            #expect(log.value.events == ["ours 0", "observation 0"])
        }

        @Test func aModelThatIsNotBridgedIsNotSeenByObservation() {
            let model = UnbridgedPair()
            let observation = Counter()
            withObservationTracking({ _ = model.a }, onChange: { observation.bump() })
            model.a = 1
            #expect(observation.value == 0)
        }

        /// A SwiftUI body calling code that uses this registrar: Observation's tracking sees every
        /// read of a bridged model made while its apply runs, in this registrar's scopes too; the
        /// scope sees its own reads as always.
        @Test func aReusableScopeRunInsideObservationTracking() {
            let model = BridgedPair()
            let ours = Counter()
            let observation = Counter()
            let scope = ReusableScope(onChange: { ours.bump() })
            defer { _ = scope.cancel() }
            withObservationTracking(
                {
                    _ = model.b
                    scope.run { _ = model.a }
                }, onChange: { observation.bump() })
            model.a = 1
            #expect(ours.value == 1 && observation.value == 1)
            model.b = 1
            #expect(ours.value == 1 && observation.value == 1)
        }

        /// Observation's tracking inside a run: the run sees the reads of the nested tracking's
        /// apply too, as it sees a nested scope's; the tracking sees only its own apply's.
        @Test func observationTrackingInsideARun() {
            let model = BridgedPair()
            let ours = Counter()
            let observation = Counter()
            let scope = ReusableScope(onChange: { ours.bump() })
            defer { _ = scope.cancel() }
            scope.run {
                _ = model.b
                withObservationTracking({ _ = model.a }, onChange: { observation.bump() })
            }
            model.b = 1
            #expect(ours.value == 1 && observation.value == 0)
            scope.run {
                withObservationTracking({ _ = model.a }, onChange: { observation.bump() })
            }
            // Both trackings of `a` were armed (the first run's, not told by `b`, and this one's).
            model.a = 1
            #expect(ours.value == 2 && observation.value == 2)
        }

        /// Observation's `onChange` may write the model and track it again, as the continuous
        /// pattern does; each re-armed tracking is told of the next change once.
        @Test func observationsOnChangeMayWriteAndTrackAgain() {
            let model = BridgedPair()
            let told = Counter()
            let shared = Unchecked(model)
            @Sendable func arm() {
                withObservationTracking({ _ = shared.value.a }) {
                    told.bump()
                    shared.value.b += 1
                    arm()
                }
            }
            arm()
            for i in 1...5 { model.a = i }
            #expect(told.value == 5)
            #expect(model.b == 5)
        }

        /// A bridged model whose last reference goes while Observation still watches it: its
        /// registrar goes with it, and a later tracking of another object is unaffected.
        @Test func aWatchedModelMayGoAway() {
            let observation = Counter()
            var model: BridgedPair? = BridgedPair()
            withObservationTracking({ _ = model!.a }, onChange: { observation.bump() })
            model = nil
            let other = BridgedPair()
            withObservationTracking({ _ = other.a }, onChange: { observation.bump() })
            other.a = 1
            #expect(observation.value == 1)
        }

        @Test func genericCodeConstrainedToObservableTakesABridgedModel() {
            let model = BridgedPair()
            #expect(identify(model) == ObjectIdentifier(model))
            let environment: [AnyObject] = [UnbridgedPair(), model]
            #expect(find(BridgedPair.self, in: environment) === model)
            #expect(find(BridgedHumanWithMiddleName.self, in: environment) == nil)
        }

        /// `TrackedValues` and `Observations` over the same model: each gets the written value.
        @Test func bothStreamsOverOneModel() async {
            let model = BridgedPair()
            let shared = Unchecked(model)
            let ours = TrackedValues { shared.value.a }
            let theirs = Observations { shared.value.a }
            var oursIterator = ours.makeAsyncIterator()
            var theirsIterator = theirs.makeAsyncIterator()
            #expect(await oursIterator.next() == 0)
            #expect(await theirsIterator.next() == 0)
            model.a = 7
            #expect(await oursIterator.next() == 7)
            #expect(await theirsIterator.next() == 7)
        }

        /// Writers on another thread, observers of both systems re-arming on this one, checked by
        /// value once the writer stops. This registrar's: every scope that read a value other than
        /// the last was told (promise 2: a write between the read and the end of `withTracking`
        /// included). Observation's: every tracking followed by writes after it was installed was
        /// told; a write between the read and the end of the apply is Observation's own window,
        /// lost with `@Observable` too, so the oracle is the value read just after the tracking
        /// returned, with two writes of margin (a write whose `willSet` came before the install
        /// may store after that read).
        @Test func writersOnAnotherThreadLoseNoChangeForEitherSystem() {
            let cell = BridgedAtomicCell()
            let writes = 20_000
            let finished = Atomic<Bool>(false)
            let writer = Unchecked(cell)
            let thread = Thread {
                for i in 1...writes { writer.value.value = i }
                finished.store(true, ordering: .releasing)
            }
            thread.start()
            var missedOurs = 0
            var missedObservation = 0
            var rounds = 0
            while true {
                let done = finished.load(ordering: .acquiring)
                let ours = Counter()
                let observation = Counter()
                var seenOurs = 0
                var seenObservation = 0
                withTracking({ seenOurs = cell.value }, onChange: { ours.bump() })
                withObservationTracking({ seenObservation = cell.value }, onChange: { observation.bump() })
                let installed = cell.value
                rounds += 1
                if done {
                    // No write after this: a stale read must have been told already.
                    if seenOurs != writes && ours.value == 0 { missedOurs += 1 }
                    #expect(seenObservation == writes)
                    break
                }
                // Wait for the next write to tell both, or for the writer to end.
                let deadline = Date().addingTimeInterval(10)
                while (ours.value == 0 || observation.value == 0) && !finished.load(ordering: .acquiring)
                    && Date() < deadline
                {
                    sched_yield()
                }
                if finished.load(ordering: .acquiring) {
                    if seenOurs != writes && ours.value == 0 { missedOurs += 1 }
                    if writes - installed >= 2 && observation.value == 0 { missedObservation += 1 }
                }
            }
            #expect(missedOurs == 0)
            #expect(missedObservation == 0)
            #expect(rounds > 1)
            #expect(cell.value == writes)
        }
    }
}
