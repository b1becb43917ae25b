import Contenders
import LockFreeObservation

/// A view: identity, the objects it holds, and a body that reads models and returns its output.
/// Every body runs in its own tracking scope (never nested in a parent's), as SwiftUI evaluates them.
final class ViewNode<C: Contender>: ScheduledView {
    let name: String
    let holding: Holdings
    let body: () -> Int
    /// A derived node publishes its output here, written only when it changed.
    let published: C.Cell?

    var output = 0
    var subscription: C.Subscription?
    var hasRendered = false

    init(
        _ name: String, depth: Int, holding: Holdings, publishing published: C.Cell? = nil,
        graph: ViewGraph<C>, body: @escaping () -> Int
    ) {
        self.name = name
        self.holding = holding
        self.published = published
        self.body = body
        super.init(depth: depth, schedule: graph.schedule)
    }
}
