// An outside measurement of Apple's registrar: the most direct code possible, nothing of the suite
// (no harness, no contender protocol, no view graph): global `@Observable` objects, a loop, the
// median and best of 21 rounds. `bench` runs it beside the suite's `apple` primitives and reports
// both (Documentation/Methodology.md, "Checked from outside"). Prints one JSON object per line:
//   {"benchmark":"primitives/untracked-read","best":26.9,"p50":27.4,"mallocs":0}
// in nanoseconds (and mallocs) per operation, named as the suite's benchmark it stands beside. Its
// `onChange` closures capture nothing, so a track / fire cycle's mallocs are the registrar's own:
// the report sets them apart from what the suite's `apple` contender allocates per cycle.
import CProcess
import Glibc
import Observation
import Synchronization

// Killed with the `bench` that runs it (Linux's parent-death signal), as the suite's children are.
if let parent = getenv("BENCH_PARENT_PID").flatMap({ Int32(String(cString: $0)) }),
    bench_die_with_parent(parent) == 1
{
    exit(1)
}

@Observable final class Model {
    var value = 0.0
}

@Observable final class Cell {
    var value = 0.0
}

let model = Model()
let cells = (0..<64).map { _ in Cell() }
let fired = Atomic<Int>(0)

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

@inline(never) func keep(_ value: Double) {
    if value == -1 { print("") }
}

/// `probe --smoke` runs each loop a hundredth as long, three rounds: a check that it works, not a
/// measurement.
let smoke = CommandLine.arguments.dropFirst().first == "--smoke"

/// The median and best of `rounds` rounds of `operations` operations, in ns per operation, and the
/// mallocs per operation of one more round (when jemalloc is linked: `MallocCount`).
func measure(_ name: String, operations full: Int, rounds full_rounds: Int = 21, _ body: (Int) -> Double) {
    let operations = smoke ? max(1, full / 100) : full
    let rounds = smoke ? 3 : full_rounds
    keep(body(operations))  // warm-up
    var perOperation: [Double] = []
    for _ in 0..<rounds {
        let start = now()
        keep(body(operations))
        perOperation.append(Double(now() - start) / Double(operations))
    }
    perOperation.sort()
    var line = "{\"benchmark\":\"\(name)\",\"best\":\(perOperation[0]),\"p50\":\(perOperation[rounds / 2])"
    if let before = MallocCount.now() {
        keep(body(operations))
        if let after = MallocCount.now() { line += ",\"mallocs\":\(Double(after - before) / Double(operations))" }
    }
    print(line + "}")
}

startIdleThread()

measure("primitives/untracked-read", operations: 200_000) { n in
    var sum = 0.0
    for _ in 0..<n { sum += model.value }
    return sum
}

measure("primitives/mutation-unobserved/objects=1", operations: 200_000) { n in
    for i in 0..<n { model.value = Double(i) }
    return model.value
}

measure("primitives/track-properties-fire/properties=1", operations: 20_000) { n in
    var sum = 0.0
    for _ in 0..<n {
        sum += withObservationTracking {
            model.value
        } onChange: {
            fired.add(1, ordering: .relaxed)
        }
        model.value += 1
    }
    return sum
}

measure("primitives/track-objects-fire/objects=64", operations: 2_000) { n in
    var sum = 0.0
    for _ in 0..<n {
        sum += withObservationTracking {
            var s = 0.0
            for cell in cells { s += cell.value }
            return s
        } onChange: {
            fired.add(1, ordering: .relaxed)
        }
        cells[0].value += 1
    }
    return sum
}
