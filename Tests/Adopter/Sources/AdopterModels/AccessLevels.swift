import LockFreeObservation
import Synchronization

/// Every access level Swift allows on a stored property of an `open` class, read and written from
/// another module (`AdopterTests`) where the level lets it.
@TrackedModel open class Account: TrackedObject {
    open var name = ""
    open internal(set) var owner = ""
    public var balance = 0
    public private(set) var visits = 0
    public fileprivate(set) var lastVisitor = ""
    public internal(set) var flags = 0
    public package(set) var plan = "free"
    package var region = "eu"
    package private(set) var shard = 0
    var notes = ""
    internal var tier = 1
    fileprivate var audit = 0
    private var secret = 0
    private(set) var limit = 100

    public override init() { super.init() }

    /// Writes the properties only this file may write, as an app's methods do.
    public func visit(by visitor: String) {
        visits += 1
        lastVisitor = visitor
        audit += 1
        secret += 1
        limit -= 1
    }

    /// The properties only this module may read, for its own checks.
    public var privateState: [Int] { [audit, secret, limit, tier] }
}

/// A `public` final class and an internal one, each with `private(set)` properties.
@TrackedModel public final class Profile: TrackedObject {
    public private(set) var followers = 0
    public var bio: String?

    public override init() { super.init() }

    public func follow() { followers += 1 }
}

@TrackedModel final class Session: TrackedObject {
    private(set) var token = ""
    func renew() { token += "x" }
}

/// A private class, used through a public function.
@TrackedModel private final class Draft: TrackedObject {
    var text = ""
    private(set) var edits = 0
    func edit(_ newText: String) {
        text = newText
        edits += 1
    }
}

/// How many times a scope that read a draft's `text` and an internal session's `token` is told
/// when each is written: 2 (classes this module keeps to itself work as public ones do).
public func internalModelsTell() -> Int {
    let draft = Draft()
    let session = Session()
    let told = Atomic(0)
    withTracking {
        _ = draft.text
    } onChange: {
        told.add(1, ordering: .relaxed)
    }
    draft.edit("hello")
    withTracking {
        _ = session.token
    } onChange: {
        told.add(1, ordering: .relaxed)
    }
    session.renew()
    return told.load(ordering: .relaxed) + (draft.edits == 1 && session.token == "x" ? 0 : 100)
}
