import AdopterModels
import LockFreeObservation
import Observation
import Synchronization
import Testing

/// What `@Bindable` and `@Environment(Model.self)` require of a model: `Observable & AnyObject`.
func bindable<Model: Observable & AnyObject>(_ model: Model) -> Model { model }

/// `.environment(_:)` and `@Environment(Model.self)`: objects stored, found again by type.
struct Environment {
    var objects: [ObjectIdentifier: AnyObject] = [:]
    mutating func insert<Model: Observable & AnyObject>(_ model: Model) {
        objects[ObjectIdentifier(Model.self)] = model
    }
    func callAsFunction<Model: Observable & AnyObject>(_: Model.Type) -> Model? {
        objects[ObjectIdentifier(Model.self)] as? Model
    }
}

/// Bridged models, from another module, observed by Observation's own tracking (what SwiftUI does
/// with a view body) and by this registrar's scopes at once.
@Suite struct BridgeTests {
    @Test func observationSeesEveryShape() {
        let shelf = Shelf(title: "Fiction")
        #expect(observationTold(reading: { _ = shelf.title }, writing: { shelf.title = "Poetry" }) == 1)
        #expect(observationTold(reading: { _ = shelf.visits }, writing: { shelf.visit() }) == 1)
        #expect(observationTold(reading: { _ = shelf.books }, writing: { shelf.books.append("Emma") }) == 1)
        #expect(observationTold(reading: { _ = shelf.cache }, writing: { shelf.cache["a"] = 1 }) == 0)
        let counter = BridgedCounter(0)
        #expect(observationTold(reading: { _ = counter.item }, writing: { counter.increment() }) == 1)
        #expect(counter.changes == 2)
        let featured = FeaturedShelf("Emma")
        #expect(observationTold(reading: { _ = featured.badge }, writing: { featured.badge = "hot" }) == 1)
        #expect(observationTold(reading: { _ = featured.item }, writing: { featured.item = "Persuasion" }) == 1)
    }

    /// Both systems, each told once per change, in this module as in the model's.
    @Test func aWriteTellsBothSystemsOnce() {
        let shelf = Shelf(title: "Fiction")
        let ours = Atomic(0)
        let observation = Atomic(0)
        withTracking({ _ = shelf.title }, onChange: { ours.add(1, ordering: .relaxed) })
        withObservationTracking({ _ = shelf.title }, onChange: { observation.add(1, ordering: .relaxed) })
        shelf.title = "Poetry"
        shelf.title = "Drama"
        #expect(ours.load(ordering: .relaxed) == 1 && observation.load(ordering: .relaxed) == 1)
    }

    @MainActor @Test func aMainActorViewModel() {
        let screen = ScreenModel()
        let observation = Atomic(0)
        withObservationTracking({ _ = screen.isLoading }, onChange: { observation.add(1, ordering: .relaxed) })
        screen.isLoading = true
        #expect(observation.load(ordering: .relaxed) == 1)
    }

    /// `@Bindable var shelf`, `.environment(shelf)` and `@Environment(Shelf.self)` compile against
    /// `Observable & AnyObject`; a bridged model passes them.
    @Test func genericCodeConstrainedAsSwiftUIsTakesABridgedModel() {
        let shelf = Shelf(title: "Fiction")
        #expect(bindable(shelf) === shelf)
        var environment = Environment()
        environment.insert(shelf)
        environment.insert(BridgedCounter(1))
        #expect(environment(Shelf.self) === shelf)
        #expect(environment(BridgedCounter.self)?.item == 1)
        #expect(environment(ScreenModel.self) == nil)
    }

    /// `Observations` over a bridged model of another module.
    @Test func observationsStreamsABridgedModel() async {
        let shelf = Shelf(title: "Fiction")
        let shared = UncheckedShelf(shelf)
        var values = Observations { shared.shelf.title }.makeAsyncIterator()
        #expect(await values.next() == "Fiction")
        shelf.title = "Poetry"
        #expect(await values.next() == "Poetry")
    }
}

struct UncheckedShelf: @unchecked Sendable {
    // `@unchecked Sendable`: the test writes the shelf only between the stream's values.
    let shelf: Shelf
    init(_ shelf: Shelf) { self.shelf = shelf }
}
