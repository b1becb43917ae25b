import Synchronization
import Testing

@testable import Workloads

@Suite struct WorkerTests {
    /// A worker runs each job once, and its thread exits when the worker is released: no thread
    /// keeps spinning in the process after a benchmark.
    @Test(arguments: [true, false])
    func runsJobsThenItsThreadExits(spinning: Bool) async throws {
        let ran = Atomic<Int>(0)
        var worker: Worker? = Worker(spinning: spinning)
        let exited = worker!.exited
        for _ in 0..<3 {
            worker!.start { ran.add(1, ordering: .relaxed) }
            worker!.wait()
        }
        #expect(ran.load(ordering: .relaxed) == 3)
        #expect(!exited.value)
        worker = nil
        var waited = 0
        while !exited.value && waited < 500 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(exited.value, "the worker's thread did not exit")
    }
}
