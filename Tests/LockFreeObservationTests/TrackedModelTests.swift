import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

// Models declared with `@TrackedModel`, as adopters declare them.

@TrackedModel final class Writer: TrackedObject {
    var name: String
    init(name: String) { self.name = name }
}

@TrackedModel final class Novel: TrackedObject {
    var title: String
    var author: Writer
    var rating: Double = 0
    var tags: [String] = []
    let isbn: String
    @Untracked var cache = 0
    lazy var slug: String = title.lowercased()
    nonisolated(unsafe) static var created = 0
    var shout: String { title.uppercased() }

    init(title: String, author: Writer, isbn: String = "0") {
        self.title = title
        self.author = author
        self.isbn = isbn
    }
}

/// Records the order of a property's observers and the scopes it tells.
final class EventLog: @unchecked Sendable {
    // `@unchecked Sendable`: the tests that use it are single-threaded.
    var events: [String] = []
}

@TrackedModel final class Observed: TrackedObject {
    let log: EventLog
    var value: Int = 0 {
        willSet { log.events.append("willSet \(newValue)") }
        didSet { log.events.append("didSet \(oldValue)") }
    }
    init(log: EventLog) { self.log = log }
}

final class Plain: @unchecked Sendable {}

@TrackedModel final class References: TrackedObject {
    weak var weakPlain: Plain?
    unowned var owner: Plain
    var unwrapped: String!
    var plain: Plain
    var any: Any = 0
    init(owner: Plain) {
        self.owner = owner
        self.plain = owner
    }
}

@TrackedModel final class Box<Value: Equatable>: TrackedObject {
    var value: Value
    init(_ value: Value) { self.value = value }

    @TrackedModel final class Inner: TrackedObject {
        var count = 0
    }
}

// Apple's hierarchy from its Observation tests: three levels, an overridden computed property.
@TrackedModel class Entity: TrackedObject {
    var age: Int = 0
    var nameDescription: String { "entity" }
}

@TrackedModel class Person: Entity {
    var firstName = ""
    var lastName = ""
    override var nameDescription: String { "\(firstName) \(lastName)" }
}

@TrackedModel final class MiddleNamePerson: Person {
    var middleName = ""
    override var nameDescription: String { "\(firstName) \(middleName) \(lastName)" }
}

extension RegistrarTests {
    /// What `@TrackedModel` generates behaves as Observation's `@Observable` does.
    @Suite struct TrackedModelTests {
        /// How many times `onChange` runs for a write after tracking `read`.
        func told(reading read: () -> Void, writing write: () -> Void) -> Int {
            let counter = Counter()
            withTracking({ read() }, onChange: { counter.bump() })
            write()
            return counter.value
        }

        @Test func storedVarsAreTrackedAndTheRestLeftAlone() {
            let novel = Novel(title: "Emma", author: Writer(name: "Austen"))
            #expect(told(reading: { _ = novel.title }, writing: { novel.title = "Persuasion" }) == 1)
            #expect(told(reading: { _ = novel.rating }, writing: { novel.rating += 1 }) == 1)
            #expect(told(reading: { _ = novel.tags }, writing: { novel.tags.append("classic") }) == 1)
            #expect(told(reading: { _ = novel.author.name }, writing: { novel.author.name = "J. Austen" }) == 1)
            #expect(told(reading: { _ = novel.author }, writing: { novel.author = Writer(name: "Brontë") }) == 1)
            // A computed property is tracked through what it reads.
            #expect(told(reading: { _ = novel.shout }, writing: { novel.title = "Sense" }) == 1)
            // Untracked, lazy and static: reads record nothing.
            #expect(told(reading: { _ = novel.cache }, writing: { novel.cache += 1 }) == 0)
            #expect(told(reading: { _ = novel.slug }, writing: { novel.slug = "x" }) == 0)
            #expect(told(reading: { _ = Novel.created }, writing: { Novel.created += 1 }) == 0)
            // Another property of the same object tells nothing.
            #expect(told(reading: { _ = novel.title }, writing: { novel.rating = 5 }) == 0)
            #expect(novel.isbn == "0")
        }

        @Test func eachPropertyHasItsOwnIndex() {
            #expect(Novel._trackedPropertyEnd == 4)
            #expect(Entity._trackedPropertyEnd == 1)
            #expect(Person._trackedPropertyEnd == 3)
            #expect(MiddleNamePerson._trackedPropertyEnd == 4)
        }

        /// An equal value is stored and tells no one; an unequal one tells (Observation's setter).
        @Test func anEqualWriteIsStoredWithoutTellingAnyone() {
            let novel = Novel(title: "Emma", author: Writer(name: "Austen"))
            #expect(told(reading: { _ = novel.rating }, writing: { novel.rating = -0.0 }) == 0)
            #expect(novel.rating.sign == .minus, "-0.0 is equal to 0.0, and stored")
            let composed = "caf\u{E9}"
            let decomposed = "cafe\u{301}"
            novel.title = composed
            #expect(told(reading: { _ = novel.title }, writing: { novel.title = decomposed }) == 0)
            #expect(novel.title.unicodeScalars.count == 5, "the decomposed string is stored")
            #expect(told(reading: { _ = novel.title }, writing: { novel.title = "Emma" }) == 1)
        }

        @Test func aClassReferenceTellsUnlessItIsTheSameObject() {
            let first = Plain()
            let second = Plain()
            let model = References(owner: first)
            #expect(told(reading: { _ = model.plain }, writing: { model.plain = first }) == 0)
            #expect(told(reading: { _ = model.plain }, writing: { model.plain = second }) == 1)
            // Neither `Equatable` nor a class: every write tells.
            #expect(told(reading: { _ = model.any }, writing: { model.any = 0 }) == 1)
        }

        @Test func weakUnownedAndImplicitlyUnwrappedPropertiesAreTracked() {
            let owner = Plain()
            let model = References(owner: owner)
            #expect(told(reading: { _ = model.weakPlain }, writing: { model.weakPlain = owner }) == 1)
            #expect(model.weakPlain === owner)
            let newOwner = Plain()
            #expect(told(reading: { _ = model.owner }, writing: { model.owner = newOwner }) == 1)
            #expect(model.owner === newOwner)
            #expect(told(reading: { _ = model.unwrapped }, writing: { model.unwrapped = "x" }) == 1)
            #expect(model.unwrapped == "x")
            var dropped: Plain? = Plain()
            model.weakPlain = dropped
            dropped = nil
            #expect(model.weakPlain == nil, "weak storage")
        }

        /// Observation's order: the scopes are told, then `willSet`, the store, `didSet`.
        @Test func willSetAndDidSetRunAfterTheScopesAreTold() {
            let log = EventLog()
            let model = Observed(log: log)
            withTracking({ _ = model.value }, onChange: { log.events.append("onChange") })
            model.value = 1
            #expect(log.events == ["onChange", "willSet 1", "didSet 0"])
            log.events = []
            model.value = 1
            #expect(log.events == ["willSet 1", "didSet 1"], "an equal value is stored through the observers")
        }

        @Test func genericAndNestedModelsAreTracked() {
            let box = Box("a")
            #expect(told(reading: { _ = box.value }, writing: { box.value = "b" }) == 1)
            let inner = Box<Int>.Inner()
            #expect(told(reading: { _ = inner.count }, writing: { inner.count += 1 }) == 1)
        }

        /// Every property at every level of a three-level hierarchy tells exactly the scopes that
        /// read it.
        @Test func aHierarchyTellsExactlyTheScopesThatReadEachProperty() {
            let person = MiddleNamePerson()
            let properties: [(String, () -> Void, () -> Void)] = [
                ("age", { _ = person.age }, { person.age += 1 }),
                ("firstName", { _ = person.firstName }, { person.firstName += "a" }),
                ("lastName", { _ = person.lastName }, { person.lastName += "b" }),
                ("middleName", { _ = person.middleName }, { person.middleName += "c" }),
            ]
            for (written, _, write) in properties {
                var counters: [String: Counter] = [:]
                for (name, read, _) in properties {
                    let counter = Counter()
                    counters[name] = counter
                    withTracking({ read() }, onChange: { counter.bump() })
                }
                write()
                for (name, counter) in counters {
                    #expect(counter.value == (name == written ? 1 : 0), "\(name) after a write of \(written)")
                }
            }
            // The overridden computed property reads every level's names.
            #expect(told(reading: { _ = person.nameDescription }, writing: { person.middleName = "d" }) == 1)
            #expect(told(reading: { _ = (person as Entity).nameDescription }, writing: { person.firstName = "e" }) == 1)
        }

        @Test func aReusableScopeKeepsAModelsDependencies() {
            let novel = Novel(title: "Emma", author: Writer(name: "Austen"))
            let counter = Counter()
            let scope = ReusableScope { counter.bump() }
            for _ in 0..<3 { scope.run { _ = novel.title + novel.author.name } }
            novel.author.name = "J. Austen"
            #expect(counter.value == 1)
            scope.cancel()
        }
    }
}
