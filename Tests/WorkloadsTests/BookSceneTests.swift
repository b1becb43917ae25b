import Testing

@testable import LockFreeObservation
@testable import Workloads

@Suite struct BookSceneTests {
    /// Steady-state steps reuse the observer slots of fired scopes: after a warm-up, no book's
    /// slot chain grows, however many more operations run.
    @Test(arguments: [
        "toggle-available", "remove-insert", "append-remove", "swap", "select", "scroll", "rename-author",
    ])
    func observerSlotsAreReused(_ step: String) throws {
        let scene = BookScene<LockFree>(n: 200, visible: 50)
        let operation = try Books.operation(step, scene)
        var done = 0
        func run(_ count: Int) throws {
            for _ in 0..<count {
                try operation(done)
                done += 1
            }
        }
        try run(12)
        let warm = scene.library.books.map(\._observerSlotCapacity)
        try run(40)
        let later = scene.library.books.map(\._observerSlotCapacity)
        #expect(later == warm, "\(step): slot chains grew in steady state")
        // A mounted row reads 4 properties and the count view 1: two blocks (4 + 8) at most.
        #expect(later.allSatisfy { $0 <= 12 }, "\(step): \(Set(later))")
    }
}
