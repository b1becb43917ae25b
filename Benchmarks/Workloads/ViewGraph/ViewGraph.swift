import Harness

/// A small SwiftUI-like renderer generic over the contender: notifications mark views dirty, a
/// frame evaluates dirty views in dependency-depth order, each at most once, and an oracle compares
/// the incremental outputs with a full re-render.
final class ViewGraph<C: Contender> {
    /// Notifications and invalidations come from the schedule; evaluations, unnecessary and missed
    /// ones from the frames.
    var counts: InvalidationCounts {
        var all = frameCounts
        all.notifications = schedule.notifications
        all.invalidations = schedule.invalidations
        return all
    }
    private var frameCounts = InvalidationCounts()
    let schedule = FrameSchedule()
    /// Evaluations of derived nodes (those that publish an output cell).
    private(set) var derivedEvaluations = 0
    /// The first missed update the oracle found: the view's name and its two outputs.
    private(set) var firstMiss: String?
    /// Run the oracle after every frame (on in the counting pass and in tests).
    var verifies = false

    /// Mounted views in no particular order; each knows its index (`mountIndex`), so unmounting is
    /// a swap with the last, with no hashing.
    private var mounted: [ViewNode<C>] = []

    var mountedCount: Int { mounted.count }

    /// Whether a view was invalidated since the last frame.
    var hasDirtyViews: Bool { schedule.hasDirtyViews }

    /// Tearing the graph down ends every subscription, as unmounting does: a fine-grained
    /// contender's scope holds its view (the observer) until it fires or is cancelled.
    deinit {
        for node in mounted { C.unsubscribe(&node.subscription) }
    }

    /// Mounts and renders a view.
    func mount(_ node: ViewNode<C>) {
        if !node.isMounted {
            node.isMounted = true
            node.mountIndex = mounted.count
            mounted.append(node)
        }
        evaluate(node)
    }

    /// Unmounts a view: its subscription ends; a pending invalidation is dropped.
    func unmount(_ node: ViewNode<C>) {
        if node.isMounted {
            node.isMounted = false
            let last = mounted.removeLast()
            if last !== node {
                mounted[node.mountIndex] = last
                last.mountIndex = node.mountIndex
            }
        }
        C.unsubscribe(&node.subscription)
    }

    /// Serialises notifications that arrive from several mutating threads at once.
    var concurrentNotifications: NotificationLock? {
        get { schedule.concurrentNotifications }
        set { schedule.concurrentNotifications = newValue }
    }

    /// A frame: evaluates dirty views, shallowest first, each at most once. A derived view's new
    /// output may dirty deeper views, which this frame evaluates too.
    func flush() throws {
        while let view = schedule.next() {
            guard view.isMounted else { continue }
            // Every view the schedule holds is one of this graph's nodes.
            evaluate(unsafeDowncast(view, to: ViewNode<C>.self))
        }
        if verifies { try verify() }
    }

    /// Charged after each evaluation (`--param render`); none by default.
    var renderCost = RenderCost.none
    /// What the render cost computed, kept so that it is not optimised away.
    private(set) var renderChecksum = 0

    private func evaluate(_ node: ViewNode<C>) {
        let previous = node.output
        let wasRendered = node.hasRendered
        node.hasRendered = true
        node.output = C.evaluate(node.body, holding: node.holding, observer: node, subscription: &node.subscription)
        if renderCost.iterations > 0 { renderChecksum &+= renderCost.spend(node.output) }
        frameCounts.evaluations += 1
        if node.published != nil { derivedEvaluations += 1 }
        if wasRendered && node.output == previous { frameCounts.unnecessary += 1 }
        // Publishing happens outside the body's scope, so a view never depends on its own output.
        if let cell = node.published {
            let value = node.carriesDouble ? ViewOutput.decode(node.output) : Double(node.output)
            if cell.value != value { cell.value = value }
        }
    }

    /// The oracle: every mounted view rendered from scratch must equal its incremental output.
    func verify() throws {
        for node in mounted where node.body() != node.output {
            frameCounts.missed += 1
            if firstMiss == nil {
                firstMiss =
                    "missed update in view \(node.name): incremental output \(node.output), full re-render \(node.body())"
            }
        }
        if let firstMiss { throw BenchmarkFailure(firstMiss) }
    }
}
