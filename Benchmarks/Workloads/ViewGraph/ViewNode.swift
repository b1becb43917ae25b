import LockFreeObservation

/// A view: identity, the objects it holds, and a body that reads models and returns its output.
/// Every body runs in its own tracking scope (never nested in a parent's), as SwiftUI evaluates them.
final class ViewNode<C: Contender>: ScheduledView {
    /// The view's kind, and its number among views of that kind (a book's id), if any: the name
    /// (`BookRow(42)`) is only built for a failure message, not at every mount.
    let label: String
    let number: Int?
    var name: String { number.map { "\(label)(\($0))" } ?? label }
    let holding: Holdings
    /// The output: an integer, or a Double's bit pattern when `carriesDouble` (`ViewOutput`), so
    /// that outputs compare exactly whatever they hold.
    let body: () -> Int
    /// A derived node publishes its output here, written only when it changed.
    let published: C.Cell?
    /// Whether `output` is a Double's bit pattern (the grid's values outgrow `Int`).
    let carriesDouble: Bool

    var output = 0
    var subscription: C.Subscription?
    var hasRendered = false
    /// Where the graph keeps this view while it is mounted.
    var mountIndex = 0

    init(
        _ label: String, number: Int? = nil, depth: Int, holding: Holdings, publishing published: C.Cell? = nil,
        carriesDouble: Bool = false, graph: ViewGraph<C>, body: @escaping () -> Int
    ) {
        self.label = label
        self.number = number
        self.holding = holding
        self.published = published
        self.carriesDouble = carriesDouble
        self.body = body
        super.init(depth: depth, schedule: graph.schedule)
    }
}

/// A view output that is a Double, carried exactly in an `Int` (its bit pattern).
enum ViewOutput {
    static func encode(_ value: Double) -> Int { Int(bitPattern: UInt(value.bitPattern)) }
    static func decode(_ output: Int) -> Double { Double(bitPattern: UInt64(UInt(bitPattern: output))) }
}
