import Foundation
import LockFreeObservation

/// What the frame scheduler knows of a view: its depth and its dirty and mounted flags. It is not
/// generic over the contender, so a notification, which arrives through the `ChangeObserver`
/// witness where nothing is specialised, runs no generic code (no runtime metadata lookups): the
/// renderer's own cost stays out of the observation cost a step measures.
class ScheduledView: ChangeObserver {
    /// Dependency depth: a frame evaluates shallower views first.
    final let depth: Int
    final var isDirty = false
    final var isMounted = false
    final unowned let schedule: FrameSchedule

    init(depth: Int, schedule: FrameSchedule) {
        self.depth = depth
        self.schedule = schedule
    }

    final func observedValueWillChange() { schedule.invalidate(self) }
}

/// The views invalidated since the last frame, and the notification counts.
final class FrameSchedule {
    private(set) var notifications = 0
    private(set) var invalidations = 0
    /// Serialises notifications that arrive from several mutating threads at once.
    var concurrentNotifications: NotificationLock?
    private var dirty = DirtyQueue()

    /// A notification for `view`: one notification, and one invalidation per view per frame.
    func invalidate(_ view: ScheduledView) {
        if let lock = concurrentNotifications {
            lock.withLock { record(view) }
        } else {
            record(view)
        }
    }

    private func record(_ view: ScheduledView) {
        notifications += 1
        guard view.isMounted, !view.isDirty else { return }
        view.isDirty = true
        invalidations += 1
        dirty.push(view)
    }

    var hasDirtyViews: Bool { !dirty.isEmpty }

    /// The next dirty view, shallowest first; its dirty flag is cleared. A frame with nothing
    /// dirty costs one check.
    @inline(__always)
    func next() -> ScheduledView? {
        guard !dirty.isEmpty, let view = dirty.pop() else { return nil }
        view.isDirty = false
        return view
    }
}

/// Dirty views ordered by depth (a binary min-heap), ties in invalidation order.
struct DirtyQueue {
    private var heap: [(depth: Int, order: Int, view: ScheduledView)] = []
    private var order = 0

    var isEmpty: Bool { heap.isEmpty }

    mutating func push(_ view: ScheduledView) {
        order += 1
        heap.append((view.depth, order, view))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(i, parent) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> ScheduledView? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast().view
        var i = 0
        while true {
            let l = 2 * i + 1
            let r = l + 1
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

/// The lock of a graph whose models are mutated from several threads. An `NSLock` (a pthread
/// mutex), not `Synchronization.Mutex`: on Linux a contended `Mutex` waits in the kernel
/// (`FUTEX_LOCK_PI`), where ThreadSanitizer cannot see the hand-over, and it reported the data
/// the lock protects as racing.
final class NotificationLock: Sendable {
    private let lock = NSLock()

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
