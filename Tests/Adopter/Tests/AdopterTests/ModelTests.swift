import AdopterModels
import LockFreeObservation
import Observation
import Synchronization
import Testing

@Suite struct ModelTests {
    /// Three levels, each with properties of its own: a read of one level's property is told of
    /// its writes only.
    @Test func aHierarchyThreeDeepTracksEachLevel() {
        let company = Company(name: "Acme")
        let employee = Employee(id: 1, company: company)
        #expect(told(reading: { _ = employee.id }, writing: { employee.id = 2 }) == 1)
        #expect(told(reading: { _ = employee.name }, writing: { employee.salary += 1 }) == 0)
        #expect(told(reading: { _ = employee.salary }, writing: { employee.name = "Ada" }) == 0)
        let person = Person(name: "Bob")
        #expect(told(reading: { _ = employee.manager }, writing: { employee.manager = person }) == 1)
        #expect(employee.manager === person)
        #expect(told(reading: { _ = employee.company }, writing: { employee.company = company }) == 0)
        withExtendedLifetime(company) {}
    }

    /// The scope is told first, then `willSet`, the store and `didSet`, as with Observation.
    @Test func observersRunAfterTheScopeIsTold() {
        let employee = Employee(id: 1, company: Company(name: "Acme"))
        withTracking {
            _ = employee.salary
        } onChange: { [log = employee.log] in
            log.events.append("told")
        }
        employee.salary = 5
        #expect(employee.log.events == ["told", "willSet 5", "didSet 0"])
    }

    /// The generic wrapper tells as the same wrapper on Observation does, write for write, through
    /// its `didSet` and its plain subclass.
    @Test func aGenericWrapperTellsAsObservationsDoes() {
        let counter = Counter(0)
        let reference = ObservationState(0)
        #expect(
            told(reading: { _ = counter.item }, writing: { counter.increment() })
                == observationTold(reading: { _ = reference.item }, writing: { reference.item += 1 }))
        #expect(counter.changes == 2 && reference.changes == 2)
        #expect(
            told(reading: { _ = counter.changes }, writing: { counter.item = 9 })
                == observationTold(reading: { _ = reference.changes }, writing: { reference.item = 9 }))
        // An unconstrained `Item` cannot be compared: every write tells, on both.
        let names = ObservableState<String>("a")
        let referenceNames = ObservationState<String>("a")
        #expect(told(reading: { _ = names.item }, writing: { names.item = "a" }) == 1)
        #expect(observationTold(reading: { _ = referenceNames.item }, writing: { referenceNames.item = "a" }) == 1)
        // A constrained one compares.
        let box = Box("a")
        #expect(told(reading: { _ = box.value }, writing: { box.value = "a" }) == 0)
    }

    @MainActor @Test func aMainActorViewModel() async {
        let model = ViewModel()
        let told = Atomic(0)
        withTracking {
            _ = model.isLoading
        } onChange: {
            told.add(1, ordering: .relaxed)
        }
        await model.load()
        #expect(told.load(ordering: .relaxed) == 1)
        #expect(model.title == "Loaded" && !model.isLoading)
    }

    /// A model written from tasks (one at a time), observed by a stream: the last value arrives.
    @Test func aSendableModelWrittenFromTasks() async {
        let counter = SharedCounter()
        let consumer = Task { () -> Int in
            var last = -1
            for await value in TrackedValues({ counter.value }) {
                last = value
                if value == 100 { break }
            }
            return last
        }
        for i in 1...100 { await Task { counter.value = i }.value }
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(10))
            consumer.cancel()
        }
        #expect(await consumer.value == 100)
        watchdog.cancel()
    }

    /// A deinit may read a tracked property, inside a scope or not.
    @Test func aDeinitReadsATrackedProperty() {
        let names = Mutex<[String]>([])
        var closing: Closing? = Closing { name in names.withLock { $0.append(name) } }
        closing?.name = "closed"
        withTracking {
            _ = closing?.name
        } onChange: {
        }
        closing = nil
        #expect(names.withLock { $0 } == ["closed"])
    }
}
