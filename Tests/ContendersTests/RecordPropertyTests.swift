import Testing

@testable import Workloads

/// Writes `value` into property `index` (0...7) of `record`.
func setProperty<R: RecordModel>(_ record: R, _ index: Int, _ value: Int) {
    switch index {
    case 0: record.p0 = value
    case 1: record.p1 = value
    case 2: record.p2 = value
    case 3: record.p3 = value
    case 4: record.p4 = value
    case 5: record.p5 = value
    case 6: record.p6 = value
    default: record.p7 = value
    }
}

/// `Record`'s eight hand-written accessors carry their property indices as literals: reading
/// property i is told of a write of property j exactly when i == j (a fine-grained contender), or
/// of every write (publish-everything); the value read is the value written.
@Suite struct RecordPropertyTests {
    @Test(arguments: Contenders.names)
    func eachPropertyIsItsOwn(_ contender: String) throws {
        let type = try #require(Contenders.all.first { $0.name == contender })
        check(type)
    }

    func check<C: Contender>(_: C.Type) {
        for read in 0..<8 {
            for write in 0..<8 {
                let record = C.Record()
                let observer = ViewObserver()
                var subscription: C.Subscription?
                let before = C.evaluate(
                    { record.value(at: read) }, holding: Holdings(record), observer: observer,
                    subscription: &subscription)
                setProperty(record, write, 100 + write)
                let told = observer.count
                #expect(before == 0)
                #expect(record.value(at: write) == 100 + write, "\(C.name): p\(write) stores its own value")
                if C.isFineGrained {
                    #expect(told == (read == write ? 1 : 0), "\(C.name): read p\(read), wrote p\(write)")
                } else {
                    #expect(told == 1, "\(C.name): read p\(read), wrote p\(write)")
                }
                C.unsubscribe(&subscription)
            }
        }
    }
}
