import Foundation
import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

// The cases of Swift's own Observation tests (`test/stdlib/Observation/Observable.swift` and
// `ObservableDidSetWillSet.swift` in the Swift repository), written again for `@TrackedModel`.
// Apple's `@Observable` needs no base class; a `@TrackedModel` class inherits from `TrackedObject`
// (where the registrar keeps its per-object state), so the cases of a model inheriting from a
// class that is not observable, and of Apple's `access`/`withMutation` customisation points, have
// no counterpart here.

@TrackedModel final class HoldsNothing: TrackedObject {}

@TrackedModel final class HoldsWeak: TrackedObject {
    weak var object: AnyObject? = nil
}

@TrackedModel public final class PublicHoldsWeak: TrackedObject {
    public weak var object: AnyObject? = nil
}

@TrackedModel final class HoldsUnowned: TrackedObject {
    unowned var object: AnyObject? = nil
}

@TrackedModel final class HoldsImplicitlyUnwrapped: TrackedObject {
    var number: Int! = nil
}

protocol Unobservable {}

@TrackedModel final class AdoptsAProtocol: TrackedObject, Unobservable {}

struct PlainContainer {
    @TrackedModel final class Contents: TrackedObject {
        var field = 3
    }
}

@TrackedModel final class SendableModel: TrackedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the base class is not `Sendable`; this test model is not shared.
    var field = 3
}

@TrackedModel final class CodableModel: TrackedObject, Codable {
    var field = 3
}

@TrackedModel final class HashableModel: TrackedObject {
    var field = 3
}

extension HashableModel: Hashable {
    static func == (lhs: HashableModel, rhs: HashableModel) -> Bool { lhs.field == rhs.field }
    func hash(into hasher: inout Hasher) { hasher.combine(field) }
}

@TrackedModel final class WithIgnored: TrackedObject {
    var field = 3
    @Untracked var ignored = 4
}

@TrackedModel class Being: TrackedObject {
    var age = 0
}

@TrackedModel class Human: Being {
    var firstName = ""
    var lastName = ""
    var friends: [Human] = []
    var fullName: String { firstName + " " + lastName }
}

@TrackedModel final class HumanWithMiddleName: Human {
    var middleName = ""
    override var fullName: String { firstName + " " + middleName + " " + lastName }
}

@TrackedModel final class IsolatedProperty: TrackedObject {
    @MainActor var text = "hello"
}

@MainActor @TrackedModel final class IsolatedModel: TrackedObject {
    var text = "hello"
}

@TrackedModel public final class Machine: TrackedObject {
    public enum State { case initializing, running, complete }

    let log: EventLog
    public var state: State = .initializing {
        willSet { log.events.append("new \(newValue)") }
        didSet {
            guard oldValue != state else { return }
            log.events.append("old \(oldValue)")
        }
    }
    init(log: EventLog) { self.log = log }
}

extension RegistrarTests {
    /// Swift's Observation tests, for `@TrackedModel` models.
    @Suite struct ObservationPortTests {
        func tracks(_ read: () -> Void) -> Counter {
            let changed = Counter()
            withTracking({ read() }, onChange: { changed.bump() })
            return changed
        }

        @Test func unobservedChanges() {
            let person = HumanWithMiddleName()
            for i in 0..<100 { person.firstName = "\(i)" }
            #expect(person.firstName == "99")
        }

        @Test func trackingChanges() {
            let person = HumanWithMiddleName()
            let changed = tracks { _ = person.firstName }
            person.firstName = "c"
            #expect(changed.value == 1)
            person.firstName = "c"
            #expect(changed.value == 1)
        }

        @Test func trackingWhatDidNotChange() {
            let person = HumanWithMiddleName()
            let changed = tracks { _ = person.lastName }
            person.firstName = "c"
            #expect(changed.value == 0)
        }

        @Test func trackingAComputedProperty() {
            let person = HumanWithMiddleName()
            let changed = tracks { _ = person.fullName }
            person.middleName = "c"
            #expect(changed.value == 1)
            person.middleName = "c"
            #expect(changed.value == 1)
        }

        @Test func trackingAGraph() {
            let person = HumanWithMiddleName()
            let friend = HumanWithMiddleName()
            person.friends.append(friend)
            let changed = tracks { _ = person.friends.first?.fullName }
            person.middleName = "c"
            #expect(changed.value == 0)
            friend.middleName = "c"
            #expect(changed.value == 1)
        }

        @Test func nestedScopesBothTold() {
            let person = HumanWithMiddleName()
            let inner = Counter()
            let outer = Counter()
            withTracking(
                {
                    withTracking({ _ = person.firstName }, onChange: { inner.bump() })
                }, onChange: { outer.bump() })
            person.firstName = "c"
            #expect(inner.value == 1 && outer.value == 1)
            person.firstName = "d"
            #expect(outer.value == 1)
        }

        @Test func anIgnoredPropertyTellsNothing() {
            let model = WithIgnored()
            let changed = tracks { _ = model.ignored }
            model.ignored = 122_112
            model.field = 3429
            #expect(changed.value == 0)
            let both = tracks {
                _ = model.ignored
                _ = model.field
            }
            model.ignored = 1
            #expect(both.value == 0)
            model.field = 2
            #expect(both.value == 1)
        }

        @MainActor @Test func isolatedPropertiesAndModels() {
            let property = IsolatedProperty()
            let changed = tracks { _ = property.text }
            property.text = "c"
            property.text = "c"
            #expect(changed.value == 1)
            let model = IsolatedModel()
            let changedModel = tracks { _ = model.text }
            model.text = "c"
            #expect(changedModel.value == 1)
        }

        @Test func weakUnownedImplicitlyUnwrappedAndNestedModels() {
            let object = NSObject()
            let weak = HoldsWeak()
            let publicWeak = PublicHoldsWeak()
            let unowned = HoldsUnowned()
            let changes = [tracks { _ = weak.object }, tracks { _ = publicWeak.object }, tracks { _ = unowned.object }]
            weak.object = object
            publicWeak.object = object
            unowned.object = object
            #expect(changes.map(\.value) == [1, 1, 1])
            let number = HoldsImplicitlyUnwrapped()
            let changedNumber = tracks { _ = number.number }
            number.number = 1
            #expect(changedNumber.value == 1 && number.number == 1)
            let contents = PlainContainer.Contents()
            let changedContents = tracks { _ = contents.field }
            contents.field = 4
            #expect(changedContents.value == 1)
            _ = (HoldsNothing(), AdoptsAProtocol(), SendableModel())
        }

        /// A model's own conformances are its own: `Hashable` decides equality in a set, and
        /// `Codable` round-trips (its synthesised keys name the storage).
        @Test func aModelsOwnHashableAndCodableConformances() throws {
            let a = HashableModel()
            let b = HashableModel()
            #expect(a == b)
            #expect(Set([a, b]).count == 1)
            b.field = 4
            #expect(Set([a, b]).count == 2)
            let model = CodableModel()
            model.field = 7
            let decoded = try JSONDecoder().decode(CodableModel.self, from: try JSONEncoder().encode(model))
            #expect(decoded.field == 7)
            let changed = tracks { _ = decoded.field }
            decoded.field = 8
            #expect(changed.value == 1)
        }

        /// `ObservableDidSetWillSet.swift`: the property's observers run, in order, around each
        /// store, after the scopes are told.
        @Test func willSetAndDidSetAroundEachStore() {
            let log = EventLog()
            let machine = Machine(log: log)
            withTracking({ _ = machine.state }, onChange: { log.events.append("told") })
            machine.state = .running
            machine.state = .complete
            #expect(log.events == ["told", "new running", "old initializing", "new complete", "old running"])
        }
    }
}
