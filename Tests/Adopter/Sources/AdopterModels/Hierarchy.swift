import LockFreeObservation

/// A hierarchy three deep, each level with tracked properties of its own, `weak` and `unowned`
/// references, observers, and `required` and `convenience` initialisers.
@TrackedModel open class Entity: TrackedObject {
    public var id: Int

    public required init(id: Int) {
        self.id = id
        super.init()
    }
}

@TrackedModel open class Person: Entity {
    public var name = ""
    public weak var manager: Person?

    public required init(id: Int) { super.init(id: id) }

    public convenience init(name: String) {
        self.init(id: 0)
        self.name = name
    }
}

public final class Company: Sendable {
    public let name: String
    public init(name: String) { self.name = name }
}

/// Records the order of willSet, didSet and the scopes told.
public final class EventLog: @unchecked Sendable {
    // `@unchecked Sendable`: written by one thread at a time in the checks.
    public var events: [String] = []
    public init() {}
}

@TrackedModel public final class Employee: Person {
    public unowned var company: Company
    @Untracked public var log = EventLog()
    public var salary = 0 {
        willSet { log.events.append("willSet \(newValue)") }
        didSet { log.events.append("didSet \(oldValue)") }
    }

    public init(id: Int, company: Company) {
        self.company = company
        super.init(id: id)
    }

    public required init(id: Int) { fatalError("an employee needs a company") }
}
