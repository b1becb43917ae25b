import Testing

@testable import Harness

final class NoOp: BenchmarkInstance {
    func run(operations: Int) throws -> Int { operations }
}

func family(
    _ name: String, _ contender: String, sets: [[(String, String)]] = [[]], large: [[(String, String)]] = [],
    kinds: [String: ParameterKind] = [:]
) -> Benchmark {
    Benchmark(
        family: name, contender: contender, parameterSets: sets.map { Parameters($0) },
        largeParameterSets: large.map { Parameters($0) }, parameterKinds: kinds
    ) { _ in NoOp() }
}

@Suite struct SelectionTests {
    let suite = ["lockfree", "apple"].flatMap { c in
        [
            family("primitives/read", c),
            family(
                "books/toggle", c, sets: [[("n", "10"), ("visible", "5")], [("n", "1000"), ("visible", "5")]],
                large: [[("n", "100000"), ("visible", "5")]],
                kinds: ["n": .integer(1...1_000_000), "visible": .integer(1...1000)]),
            family(
                "trees/grid", c, sets: [[("width", "3"), ("static", "0.5")]],
                kinds: ["width": .integer(1...1000), "static": .number(0...1)]),
        ]
    }

    func names(_ s: Selection) throws -> [String] { try s.plan(suite).map { "\($0.name)@\($0.contender)" } }

    @Test func groupsContendersByName() throws {
        #expect(
            try names(Selection(filter: "books")) == [
                "books/toggle/n=10/visible=5@lockfree", "books/toggle/n=10/visible=5@apple",
                "books/toggle/n=1000/visible=5@lockfree", "books/toggle/n=1000/visible=5@apple",
            ])
    }

    @Test func fullAddsLargeSets() throws {
        #expect(
            try names(Selection(filter: "n=100000", contenders: ["apple"], full: true)) == [
                "books/toggle/n=100000/visible=5@apple"
            ])
        #expect(try names(Selection(filter: "n=100000")) == [])
    }

    @Test func overrideReplacesKeyInEverySetAndDeduplicates() throws {
        let s = Selection(contenders: ["lockfree"], overrides: Parameters([("n", "7")]))
        #expect(
            try names(s) == [
                "primitives/read@lockfree", "books/toggle/n=7/visible=5@lockfree",
                "trees/grid/width=3/static=0.5@lockfree",
            ])
    }

    @Test func quickLeavesOutWhatIsNotInTheQuickSuiteUnlessFiltered() throws {
        let suite = [
            Benchmark(family: "books/toggle", contender: "lockfree") { _ in Toggler() },
            Benchmark(family: "render/books-toggle", contender: "lockfree") { _ in Toggler() }.notInQuickSuite(),
        ]
        #expect(try Selection().plan(suite).map(\.name) == ["books/toggle", "render/books-toggle"])
        var quick = Selection()
        quick.quick = true
        #expect(try quick.plan(suite).map(\.name) == ["books/toggle"])
        quick.filter = "render/"
        #expect(try quick.plan(suite).map(\.name) == ["render/books-toggle"])
    }

    @Test func usageErrors() {
        #expect(throws: UsageError("unknown contender 'nosuch' (known: apple, lockfree)")) {
            try Selection(contenders: ["nosuch"]).plan(suite)
        }
        #expect(throws: UsageError("no selected benchmark has a parameter 'size'")) {
            try Selection(overrides: Parameters([("size", "1")])).plan(suite)
        }
        #expect(throws: UsageError("no selected benchmark has a parameter 'n'")) {
            try Selection(filter: "primitives", overrides: Parameters([("n", "5")])).plan(suite)
        }
        #expect(throws: UsageError("bad value 'abc' for parameter 'n' of books/toggle: want an integer in 1...1000000"))
        {
            try Selection(overrides: Parameters([("n", "abc")])).plan(suite)
        }
        #expect(throws: UsageError("bad value 'x' for parameter 'static' of trees/grid: want a number in 0...1")) {
            try Selection(overrides: Parameters([("static", "x")])).plan(suite)
        }
        #expect(throws: UsageError("bad value '1.5' for parameter 'static' of trees/grid: want a number in 0...1")) {
            try Selection(overrides: Parameters([("static", "1.5")])).plan(suite)
        }
        #expect(throws: UsageError("bad value '0' for parameter 'n' of books/toggle: want an integer in 1...1000000")) {
            try Selection(overrides: Parameters([("n", "0")])).plan(suite)
        }
        #expect(throws: UsageError("bad --filter regular expression '(('")) { try Selection(filter: "((").plan(suite) }
    }
}
