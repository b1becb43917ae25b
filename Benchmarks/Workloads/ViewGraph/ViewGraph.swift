import Contenders
import Harness
import Synchronization

/// A small SwiftUI-like renderer generic over the contender: notifications mark views dirty, a
/// frame evaluates dirty views in dependency-depth order, each at most once, and an oracle compares
/// the incremental outputs with a full re-render.
final class ViewGraph<C: Contender> {
    private(set) var counts = InvalidationCounts()
    /// Evaluations of derived nodes (those that publish an output cell).
    private(set) var derivedEvaluations = 0
    /// The first missed update the oracle found: the view's name and its two outputs.
    private(set) var firstMiss: String?
    /// Run the oracle after every frame (on in the counting pass and in tests).
    var verifies = false

    private var dirty = DirtyQueue<C>()
    private var mounted: [ObjectIdentifier: ViewNode<C>] = [:]

    var mountedCount: Int { mounted.count }

    /// Tearing the graph down ends every subscription, as unmounting does: a fine-grained
    /// contender's scope holds its view (the observer) until it fires or is cancelled.
    deinit {
        for node in mounted.values { C.unsubscribe(&node.subscription) }
    }

    /// Mounts and renders a view.
    func mount(_ node: ViewNode<C>) {
        node.isMounted = true
        mounted[ObjectIdentifier(node)] = node
        evaluate(node)
    }

    /// Unmounts a view: its subscription ends; a pending invalidation is dropped.
    func unmount(_ node: ViewNode<C>) {
        node.isMounted = false
        mounted[ObjectIdentifier(node)] = nil
        C.unsubscribe(&node.subscription)
    }

    /// Serialises notifications that arrive from several mutating threads at once.
    var concurrentNotifications: NotificationLock?

    /// A notification for `node`: one notification, and one invalidation per view per frame.
    func invalidate(_ node: ViewNode<C>) {
        if let lock = concurrentNotifications {
            lock.mutex.withLock { _ in record(node) }
        } else {
            record(node)
        }
    }

    private func record(_ node: ViewNode<C>) {
        counts.notifications += 1
        guard node.isMounted, !node.isDirty else { return }
        node.isDirty = true
        counts.invalidations += 1
        dirty.push(node)
    }

    /// A frame: evaluates dirty views, shallowest first, each at most once. A derived view's new
    /// output may dirty deeper views, which this frame evaluates too.
    func flush() throws {
        while let node = dirty.pop() {
            node.isDirty = false
            guard node.isMounted else { continue }
            evaluate(node)
        }
        if verifies { try verify() }
    }

    private func evaluate(_ node: ViewNode<C>) {
        let previous = node.output
        let wasRendered = node.hasRendered
        node.hasRendered = true
        node.output = C.evaluate(node.body, holding: node.holding, observer: node, subscription: &node.subscription)
        counts.evaluations += 1
        if node.published != nil { derivedEvaluations += 1 }
        if wasRendered && node.output == previous { counts.unnecessary += 1 }
        // Publishing happens outside the body's scope, so a view never depends on its own output.
        if let cell = node.published, cell.value != Double(node.output) { cell.value = Double(node.output) }
    }

    /// The oracle: every mounted view rendered from scratch must equal its incremental output.
    func verify() throws {
        for node in mounted.values where node.body() != node.output {
            counts.missed += 1
            if firstMiss == nil {
                firstMiss = "missed update in view \(node.name): incremental output \(node.output), full re-render \(node.body())"
            }
        }
        if let firstMiss { throw BenchmarkFailure(firstMiss) }
    }
}

/// Dirty views ordered by depth (a binary min-heap), ties in invalidation order.
struct DirtyQueue<C: Contender> {
    private var heap: [(depth: Int, order: Int, node: ViewNode<C>)] = []
    private var order = 0

    mutating func push(_ node: ViewNode<C>) {
        order += 1
        heap.append((node.depth, order, node))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(i, parent) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> ViewNode<C>? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast().node
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && less(l, m) { m = l }
            if r < heap.count && less(r, m) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return top
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        (heap[a].depth, heap[a].order) < (heap[b].depth, heap[b].order)
    }
}

/// The lock of a graph whose models are mutated from several threads.
final class NotificationLock: Sendable {
    let mutex = Mutex(())
}
