import Contenders
import LockFreeObservation

/// A view: identity, the objects it holds, and a body that reads models and returns its output.
/// Every body runs in its own tracking scope (never nested in a parent's), as SwiftUI evaluates them.
final class ViewNode<C: Contender>: ChangeObserver {
    let name: String
    /// Dependency depth: a frame evaluates shallower nodes first.
    let depth: Int
    let holding: Holdings
    let body: () -> Int
    /// A derived node publishes its output here, written only when it changed.
    let published: C.Cell?
    unowned let graph: ViewGraph<C>

    var output = 0
    var subscription: C.Subscription?
    var isDirty = false
    var isMounted = false
    var hasRendered = false

    init(
        _ name: String, depth: Int, holding: Holdings, publishing published: C.Cell? = nil,
        graph: ViewGraph<C>, body: @escaping () -> Int
    ) {
        self.name = name
        self.depth = depth
        self.holding = holding
        self.published = published
        self.graph = graph
        self.body = body
    }

    func observedValueWillChange() { graph.invalidate(self) }
}
