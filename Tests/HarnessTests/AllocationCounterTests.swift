import Testing

@testable import Harness

private final class Node {
    var value = 0
}

@Suite struct AllocationCounterTests {
    #if Jemalloc
        @Test func countsEachClassInstanceOnce() throws {
            let counter = try #require(AllocationCounter(scope: .callingThread))
            var nodes: [Node] = []
            nodes.reserveCapacity(1000)
            let before = counter.read()
            for _ in 0..<1000 { nodes.append(Node()) }
            let after = counter.read()
            blackHole(nodes)
            #expect(after.mallocs - before.mallocs == 1000)
            // A Node is 16 bytes of header and 8 of storage: jemalloc's 32-byte size class.
            #expect(after.bytes - before.bytes == 32_000)
        }

        @Test func countsNothingWhenNothingIsAllocated() throws {
            let counter = try #require(AllocationCounter(scope: .callingThread))
            let before = counter.read()
            var sum = 0
            for i in 0..<1000 { sum &+= i }
            let after = counter.read()
            blackHole(sum)
            #expect(after.mallocs == before.mallocs)
            #expect(after.bytes == before.bytes)
        }

        @Test func selfTestPasses() throws {
            let counted = try AllocationSelfTest.run()
            #expect(counted == 1000)
            #expect(AllocationCounter.allocatorName.hasPrefix("jemalloc 5."))
            #expect(AllocationCounter.unavailableReason == nil)
        }

        @Test func liveBytesSeeRetainedMemory() throws {
            let counter = try #require(AllocationCounter(scope: .callingThread))
            let before = counter.liveBytes()
            let kept = [UInt8](repeating: 1, count: 1 << 20)
            let after = counter.liveBytes()
            blackHole(kept)
            // One large allocation in this thread's own arena: 1 MiB of elements plus the array's header,
            // rounded up to jemalloc's next large size class, 1.25 MiB. Live bytes are arena-wide, so a few
            // small regions moving between caches while other tests run may add or take a little (bench
            // counts retained bytes in a child of its own, with the caches off).
            #expect(after - before >= 1_310_720 - 65_536)
            #expect(after - before < 1_310_720 + 65_536)
        }
    #else
        @Test func unavailableWithoutJemalloc() throws {
            #expect(AllocationCounter() == nil)
            #expect(AllocationCounter.unavailableReason != nil)
            #expect(AllocationCounter.allocatorName == "system malloc")
            #expect(try AllocationSelfTest.run() == nil)
        }
    #endif
}
