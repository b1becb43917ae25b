import Harness
import LockFreeObservation
import LockedObservation
import Observation
import Synchronization

/// A contender's observation as an `AsyncSequence` of one cell's value, the way its users write
/// it: `TrackedValues` (`lockfree`), `LockedValues` (`locked`), `Observations` (`apple`), an
/// `AsyncStream` fed by the model's publisher (`naive`, as `$value.values` on a `@Published`
/// property), and a bare `AsyncStream` with no observation at all (`floor`, the hand-off itself).
///
/// A writer thread (`latency`, `fan-out`) writes the way each contender's contract allows:
/// `lockfree`, `locked`, `naive` and `floor` store from the thread, and their streams run on no
/// actor. `Observations` is transactional only for writes made on the isolation its closure runs
/// on: a write from another thread that races its evaluation can be lost for good (it evaluates
/// after the first willSet, possibly before the store, and its next tracking misses that write;
/// `StreamSemanticsTests.afterAContendedWriterStopsTheLastValueIsTheCurrentOne`; in `fan-out`,
/// with the store made after 100 willSet callbacks, nearly every consumer lost it). So `apple`
/// does what its users do: the model belongs to an actor (`StreamActor`, the main actor of an
/// app), its consumers and its stream's closure run there, and a writer thread hops to it for
/// each write.
///
/// The suite's models keep plain storage: the store and the consumer's read on another thread
/// are a race on a word (every contender but `apple`, alike), as in the suite's other threaded
/// workloads.
public protocol StreamContender: SendableMetatype {
    static var name: String { get }
    associatedtype Model: AnyObject
    associatedtype Values: AsyncSequence<Double, Never>, Sendable
    static func makeModel() -> Model
    /// A write on `StreamActor` (the `burst`'s job), or from a thread for a contender that allows it.
    static func write(_ value: Double, to model: Model)
    /// Whether a writer thread hops to the consumer's actor for each write (`apple`, above); the
    /// others store from the thread, and their consumers fed by a writer thread run on no actor.
    static var writesOnTheConsumersActor: Bool { get }
    /// The stream of `model`'s value; its closure (where there is one) runs on `isolation`.
    static func values(of model: Model, isolation: isolated (any Actor)?) -> Values
}

extension StreamContender {
    public static var writesOnTheConsumersActor: Bool { false }

    /// Where a consumer fed by a writer thread runs and makes its stream: no actor, or
    /// `StreamActor` for a contender whose writes are made there.
    static var consumerIsolation: (any Actor)? { writesOnTheConsumersActor ? StreamActor.shared : nil }

    /// A write from a thread of its own, to a model whose consumers run on `consumerIsolation`:
    /// a store, or a hop to `StreamActor`.
    static func writeFromThread(_ value: Double, to model: Model) {
        guard writesOnTheConsumersActor else { return write(value, to: model) }
        let model = UncheckedSendable(model)
        Task { @StreamActor in write(value, to: model.value) }
    }

    /// A write from a thread of its own, to a model whose consumers run on the main actor
    /// (`stream/main-actor`): a store, or a hop to the main actor.
    static func writeFromThreadForTheMainActor(_ value: Double, to model: Model) {
        guard writesOnTheConsumersActor else { return write(value, to: model) }
        let model = UncheckedSendable(model)
        Task { @MainActor in write(value, to: model.value) }
    }

    /// Iterates `model`'s stream on `isolation`, calling `body` with each value, until cancelled.
    static func consume(_ model: Model, isolation: isolated (any Actor)?, _ body: (Double) -> Void) async {
        for await value in values(of: model, isolation: isolation) { body(value) }
    }
}

/// The actor a stream's model and closure belong to when its contender needs one (`apple`), and
/// the `burst` workload's consumer: the main actor of an app, serviced by the cooperative pool.
@globalActor public actor StreamActor {
    public static let shared = StreamActor()
}

public enum LockFreeStream: StreamContender {
    public static let name = LockFree.name
    public static func makeModel() -> LockFree.Cell { LockFree.Cell(0) }
    public static func write(_ value: Double, to model: LockFree.Cell) { model.value = value }
    public static func values(of model: LockFree.Cell, isolation: isolated (any Actor)?) -> TrackedValues<Double, Never>
    {
        let model = UncheckedSendable(model)
        return TrackedValues {
            _ = isolation  // captured: the closure is isolated to it
            return model.value.value
        }
    }
}

public enum LockedStream: StreamContender {
    public static let name = Locked.name
    public static func makeModel() -> Locked.Cell { Locked.Cell(0) }
    public static func write(_ value: Double, to model: Locked.Cell) { model.value = value }
    public static func values(of model: Locked.Cell, isolation: isolated (any Actor)?) -> LockedValues<Double, Never> {
        let model = UncheckedSendable(model)
        return LockedValues {
            _ = isolation
            return model.value.value
        }
    }
}

public enum AppleStream: StreamContender {
    public static let name = Apple.name
    public static func makeModel() -> Apple.Cell { Apple.Cell(0) }
    public static func write(_ value: Double, to model: Apple.Cell) { model.value = value }
    public static let writesOnTheConsumersActor = true
    public static func values(of model: Apple.Cell, isolation: isolated (any Actor)?) -> Observations<Double, Never> {
        let model = UncheckedSendable(model)
        return Observations {
            _ = isolation
            return model.value.value
        }
    }
}

/// `Observations` over `bridged`'s cell: what a SwiftUI app's stream of a bridged model pays.
public enum BridgedStream: StreamContender {
    public static let name = Bridged.name
    public static func makeModel() -> Bridged.Cell { Bridged.Cell(0) }
    public static func write(_ value: Double, to model: Bridged.Cell) { model.value = value }
    public static let writesOnTheConsumersActor = true
    public static func values(of model: Bridged.Cell, isolation: isolated (any Actor)?) -> Observations<Double, Never> {
        let model = UncheckedSendable(model)
        return Observations {
            _ = isolation
            return model.value.value
        }
    }
}

/// `TrackedValues` over `bridged`'s cell: a bridged model's stream of this registrar.
public enum BridgedScopesStream: StreamContender {
    public static let name = BridgedScopes.name
    public static func makeModel() -> Bridged.Cell { Bridged.Cell(0) }
    public static func write(_ value: Double, to model: Bridged.Cell) { model.value = value }
    public static func values(of model: Bridged.Cell, isolation: isolated (any Actor)?) -> TrackedValues<Double, Never>
    {
        let model = UncheckedSendable(model)
        return TrackedValues {
            _ = isolation  // captured: the closure is isolated to it
            return model.value.value
        }
    }
}

public enum NaiveStream: StreamContender {
    public static let name = Naive.name
    public static func makeModel() -> Naive.PublishedCell { Naive.PublishedCell(0) }
    public static func write(_ value: Double, to model: Naive.PublishedCell) { model.value = value }
    public static func values(of model: Naive.PublishedCell, isolation: isolated (any Actor)?) -> AsyncStream<Double> {
        model.values.subscribe()
    }
}

/// The floor: the same stream shape with no model and no observation, a value yielded straight
/// into each consumer's `AsyncStream`. Its latency is the hand-off's and the clock's own.
public enum FloorStream: StreamContender {
    public static let name = Benchmark.floorContender
    public static func makeModel() -> ValueBroadcast { ValueBroadcast(0) }
    public static func write(_ value: Double, to model: ValueBroadcast) { model.send(value) }
    public static func values(of model: ValueBroadcast, isolation: isolated (any Actor)?) -> AsyncStream<Double> {
        model.subscribe()
    }
}

extension Naive {
    /// A cell with a `@Published`-style value publisher beside the object's: a write publishes
    /// objectWillChange to the object's subscribers, then sends the new value to every value
    /// subscriber (willSet, as `@Published` does), then stores it.
    public final class PublishedCell: Publisher {
        private var _value: Double
        let values: ValueBroadcast

        init(_ value: Double) {
            _value = value
            values = ValueBroadcast(value)
            super.init()
        }

        public var value: Double {
            get { _value }
            set {
                publish()
                values.send(newValue)
                _value = newValue
            }
        }
    }
}

/// Sends values to any number of `AsyncStream`s, each keeping only the newest value it has not
/// taken yet (`$value.values` coalesces the same way for a consumer slower than its writer).
/// A new subscriber receives the current value first.
public final class ValueBroadcast: Sendable {
    private struct State {
        var current: Double
        var next = 0
        var subscribers: [Int: AsyncStream<Double>.Continuation] = [:]
    }
    private let state: Mutex<State>

    init(_ value: Double) { state = Mutex(State(current: value)) }

    func send(_ value: Double) {
        state.withLock { state in
            state.current = value
            for continuation in state.subscribers.values { continuation.yield(value) }
        }
    }

    func subscribe() -> AsyncStream<Double> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.next += 1
            state.subscribers[state.next] = continuation
            continuation.yield(state.current)
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}

/// Every stream contender, floor first.
public enum StreamContenders {
    @inlinable
    public static func visitAll<V: StreamContenderVisitor>(_ visitor: V) -> [V.Result] {
        [
            visitor.visit(FloorStream.self),
            visitor.visit(LockFreeStream.self),
            visitor.visit(LockedStream.self),
            visitor.visit(AppleStream.self),
            visitor.visit(NaiveStream.self),
            visitor.visit(BridgedStream.self),
            visitor.visit(BridgedScopesStream.self),
        ]
    }
}

public protocol StreamContenderVisitor {
    associatedtype Result
    func visit<C: StreamContender>(_: C.Type) -> Result
}
