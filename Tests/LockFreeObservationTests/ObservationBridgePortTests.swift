import Foundation
@_spi(SwiftUI) import Observation
import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

// The cases of Swift's own Observation tests (`test/stdlib/Observation/Observable.swift` and
// `ObservableDidSetWillSet.swift`), a second time: models that list `Observable` (bridged), observed
// through Observation's own `withObservationTracking`, each case run against the bridged models
// and against `@Observable` twins, which must agree. `ObservationPortTests` runs them through this
// registrar's scopes.

// MARK: Bridged models

@TrackedModel final class BridgedHoldsNothing: TrackedObject, TrackedObservable {}

@TrackedModel final class BridgedHoldsWeak: TrackedObject, TrackedObservable {
    weak var object: AnyObject? = nil
}

@TrackedModel public final class BridgedPublicHoldsWeak: TrackedObject, TrackedObservable {
    public weak var object: AnyObject? = nil
}

@TrackedModel final class BridgedHoldsUnowned: TrackedObject, TrackedObservable {
    unowned var object: AnyObject? = nil
}

@TrackedModel final class BridgedHoldsImplicitlyUnwrapped: TrackedObject, TrackedObservable {
    var number: Int! = nil
}

struct BridgedContainer {
    @TrackedModel final class Contents: TrackedObject, TrackedObservable {
        var field = 3
    }
}

/// A bridged model's `Codable` names its keys: the synthesised conformance would encode every
/// stored property, the bridge's storage too, which is no value.
@TrackedModel final class BridgedCodable: TrackedObject, TrackedObservable, Codable {
    var field = 3
    enum CodingKeys: String, CodingKey { case _field = "field" }
}

@TrackedModel class BridgedBeing: TrackedObject, TrackedObservable {
    var age = 0
}

@TrackedModel class BridgedHuman: BridgedBeing {
    var firstName = ""
    var lastName = ""
    var friends: [BridgedHuman] = []
    var fullName: String { firstName + " " + lastName }
}

@TrackedModel final class BridgedHumanWithMiddleName: BridgedHuman {
    var middleName = ""
    @Untracked var nickname = ""
    override var fullName: String { firstName + " " + middleName + " " + lastName }
}

@TrackedModel final class BridgedIsolatedProperty: TrackedObject, TrackedObservable {
    @MainActor var text = "hello"
}

@MainActor @TrackedModel final class BridgedIsolatedModel: TrackedObject, TrackedObservable {
    var text = "hello"
}

@TrackedModel final class BridgedMachine: TrackedObject, TrackedObservable {
    let log: EventLog
    var state = 0 {
        willSet { log.events.append("new \(newValue)") }
        didSet {
            guard oldValue != state else { return }
            log.events.append("old \(oldValue)")
        }
    }
    init(log: EventLog) { self.log = log }
}

@TrackedModel final class BridgedGeneric<Item>: TrackedObject, TrackedObservable {
    var item: Item
    init(_ item: Item) { self.item = item }
}

// MARK: Their @Observable twins

@Observable class ObservableBeing {
    var age = 0
}

@Observable class ObservableHuman: ObservableBeing {
    var firstName = ""
    var lastName = ""
    var friends: [ObservableHuman] = []
    var fullName: String { firstName + " " + lastName }
}

@Observable final class ObservableHumanWithMiddleName: ObservableHuman {
    var middleName = ""
    @ObservationIgnored var nickname = ""
    override var fullName: String { firstName + " " + middleName + " " + lastName }
}

@Observable final class ObservableMachine {
    @ObservationIgnored let log: EventLog
    var state = 0 {
        willSet { log.events.append("new \(newValue)") }
        didSet {
            guard oldValue != state else { return }
            log.events.append("old \(oldValue)")
        }
    }
    init(log: EventLog) { self.log = log }
}

/// What a case needs of a person, met alike by the bridged and the `@Observable` one.
protocol PortPerson: Observable, AnyObject {
    init()
    var firstName: String { get set }
    var lastName: String { get set }
    var middleName: String { get set }
    var nickname: String { get set }
    var age: Int { get set }
    var fullName: String { get }
    func befriend(_ other: Self)
    var firstFriendsFullName: String? { get }
}

extension BridgedHumanWithMiddleName: PortPerson {
    func befriend(_ other: BridgedHumanWithMiddleName) { friends.append(other) }
    var firstFriendsFullName: String? { friends.first?.fullName }
}

extension ObservableHumanWithMiddleName: PortPerson {
    func befriend(_ other: ObservableHumanWithMiddleName) { friends.append(other) }
    var firstFriendsFullName: String? { friends.first?.fullName }
}

protocol PortMachine: Observable, AnyObject {
    init(log: EventLog)
    var state: Int { get set }
}
extension BridgedMachine: PortMachine {}
extension ObservableMachine: PortMachine {}

/// How many times Observation's `onChange` ran for one `withObservationTracking` of `read`.
func observationTold(_ read: () -> Void) -> Counter {
    let changed = Counter()
    withObservationTracking({ read() }, onChange: { changed.bump() })
    return changed
}

extension RegistrarTests {
    /// Swift's Observation tests through Observation's functions, for bridged models and
    /// `@Observable` ones alike.
    @Suite struct ObservationBridgePortTests {
        /// A person: bridged, or its `@Observable` twin.
        static func person(bridged: Bool) -> any PortPerson {
            bridged ? BridgedHumanWithMiddleName() : ObservableHumanWithMiddleName()
        }

        @Test(arguments: [true, false]) func unobservedChanges(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            for i in 0..<100 { person.firstName = "\(i)" }
            #expect(person.firstName == "99")
        }

        @Test(arguments: [true, false]) func trackingChanges(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            let changed = observationTold { _ = person.firstName }
            person.firstName = "c"
            #expect(changed.value == 1)
            person.firstName = "d"
            #expect(changed.value == 1)
        }

        @Test(arguments: [true, false]) func anEqualValueTellsNoOne(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            person.firstName = "c"
            let changed = observationTold { _ = person.firstName }
            person.firstName = "c"
            #expect(changed.value == 0)
            person.firstName = "d"
            #expect(changed.value == 1)
        }

        @Test(arguments: [true, false]) func trackingWhatDidNotChange(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            let changed = observationTold { _ = person.lastName }
            person.firstName = "c"
            person.age = 3
            #expect(changed.value == 0)
        }

        @Test(arguments: [true, false]) func aSuperclassPropertyIsObserved(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            let changed = observationTold { _ = person.age }
            person.age = 3
            #expect(changed.value == 1)
        }

        @Test(arguments: [true, false]) func trackingAComputedProperty(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            let changed = observationTold { _ = person.fullName }
            person.middleName = "c"
            #expect(changed.value == 1)
            person.middleName = "d"
            #expect(changed.value == 1)
        }

        @Test(arguments: [true, false]) func trackingAGraph(_ bridged: Bool) {
            func check<P: PortPerson>(_ person: P) {
                let friend = P()
                person.befriend(friend)
                let changed = observationTold { _ = person.firstFriendsFullName }
                person.middleName = "c"
                #expect(changed.value == 0)
                friend.middleName = "c"
                #expect(changed.value == 1)
            }
            check(Self.person(bridged: bridged))
        }

        @Test(arguments: [true, false]) func nestedTrackingsBothTold(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            let inner = Counter()
            let outer = Counter()
            withObservationTracking(
                {
                    withObservationTracking({ _ = person.firstName }, onChange: { inner.bump() })
                }, onChange: { outer.bump() })
            person.firstName = "c"
            #expect(inner.value == 1 && outer.value == 1)
            person.firstName = "d"
            #expect(outer.value == 1)
        }

        @Test(arguments: [true, false]) func anIgnoredPropertyTellsNothing(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            let changed = observationTold { _ = person.nickname }
            person.nickname = "c"
            person.lastName = "d"
            #expect(changed.value == 0)
        }

        /// `onChange` runs at willSet: the value it reads is the old one.
        @Test(arguments: [true, false]) func onChangeRunsBeforeTheStore(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            person.firstName = "old"
            let seen = Unchecked(EventLog())
            let target = Unchecked(person)
            withObservationTracking(
                { _ = person.firstName }, onChange: { seen.value.events.append(target.value.firstName) })
            person.firstName = "new"
            #expect(seen.value.events == ["old"])
        }

        /// SwiftUI's own tracking (Observation's `willSet:`/`didSet:` SPI): the willSet handler
        /// sees the old value, the didSet handler the new one, and each names the property changed.
        @Test(arguments: [true, false]) func willSetAndDidSetTrackingAsSwiftUIUsesIt(_ bridged: Bool) {
            let person = Self.person(bridged: bridged)
            person.firstName = "old"
            let log = Unchecked(EventLog())
            let target = Unchecked(person)
            let changed = Unchecked(Changed())
            withObservationTracking(
                { _ = person.firstName },
                willSet: { tracking in
                    log.value.events.append("willSet \(target.value.firstName)")
                    changed.value.willSet = tracking.changed
                },
                didSet: { tracking in
                    log.value.events.append("didSet \(target.value.firstName)")
                    changed.value.didSet = tracking.changed
                })
            person.firstName = "new"
            #expect(log.value.events == ["willSet old", "didSet new"])
            let firstName: AnyKeyPath =
                bridged ? \BridgedHuman.firstName : \ObservableHuman.firstName
            #expect(changed.value.willSet == firstName && changed.value.didSet == firstName)
        }

        final class Changed {
            var willSet: AnyKeyPath?
            var didSet: AnyKeyPath?
        }

        /// `ObservableDidSetWillSet.swift`: the property's observers run around each store, after
        /// Observation's `onChange`.
        @Test(arguments: [true, false]) func willSetAndDidSetAroundEachStore(_ bridged: Bool) {
            let log = EventLog()
            let machine: any PortMachine = bridged ? BridgedMachine(log: log) : ObservableMachine(log: log)
            withObservationTracking({ _ = machine.state }, onChange: { log.events.append("told") })
            machine.state = 1
            machine.state = 2
            #expect(log.events == ["told", "new 1", "old 0", "new 2", "old 1"])
        }

        @MainActor @Test func isolatedPropertiesAndModels() {
            let property = BridgedIsolatedProperty()
            let changed = observationTold { _ = property.text }
            property.text = "c"
            property.text = "c"
            #expect(changed.value == 1)
            let model = BridgedIsolatedModel()
            let changedModel = observationTold { _ = model.text }
            model.text = "c"
            #expect(changedModel.value == 1)
        }

        @Test func weakUnownedImplicitlyUnwrappedGenericAndNestedModels() {
            let object = NSObject()
            let weak = BridgedHoldsWeak()
            let publicWeak = BridgedPublicHoldsWeak()
            let unowned = BridgedHoldsUnowned()
            let changes = [
                observationTold { _ = weak.object }, observationTold { _ = publicWeak.object },
                observationTold { _ = unowned.object },
            ]
            weak.object = object
            publicWeak.object = object
            unowned.object = object
            #expect(changes.map(\.value) == [1, 1, 1])
            let number = BridgedHoldsImplicitlyUnwrapped()
            let changedNumber = observationTold { _ = number.number }
            number.number = 1
            #expect(changedNumber.value == 1 && number.number == 1)
            let contents = BridgedContainer.Contents()
            let changedContents = observationTold { _ = contents.field }
            contents.field = 4
            #expect(changedContents.value == 1)
            let generic = BridgedGeneric([1, 2])
            let changedGeneric = observationTold { _ = generic.item.count }
            generic.item.append(3)
            #expect(changedGeneric.value == 1)
            _ = BridgedHoldsNothing()
        }

        @Test func aCodableModelRoundTripsAndIsObserved() throws {
            let model = BridgedCodable()
            model.field = 7
            let decoded = try JSONDecoder().decode(BridgedCodable.self, from: try JSONEncoder().encode(model))
            #expect(decoded.field == 7)
            let changed = observationTold { _ = decoded.field }
            decoded.field = 8
            #expect(changed.value == 1)
        }

        /// `Observations`, Observation's stream, over a bridged model: one value per transaction.
        @Test func observationsStreamsABridgedModel() async {
            let person = BridgedHumanWithMiddleName()
            let shared = Unchecked(person)
            let values = Observations { shared.value.firstName }
            var iterator = values.makeAsyncIterator()
            #expect(await iterator.next() == "")
            person.firstName = "a"
            person.firstName = "b"
            #expect(await iterator.next() == "b")
        }
    }
}
