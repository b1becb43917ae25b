import Testing

/// `@TrackedModel`'s expansions, compared with golden sources (`expand`), and its diagnostics.
@Suite struct TrackedModelExpansionTests {
    /// A final internal model: private storage, accessors calling the registrar with indices from
    /// the superclass's end, and the class's own end.
    @Test func aFinalModel() {
        let (source, diagnostics) = expand(
            """
            @TrackedModel final class Author: TrackedObject {
                var name: String
                init(name: String) { self.name = name }
            }
            """)
        #expect(diagnostics.isEmpty)
        #expect(
            source == """
                final class Author: TrackedObject {
                    var name: String {
                        @storageRestrictions(initializes: _name)
                        init(initialValue) {
                            _name = initialValue
                        }
                        get {
                            trackAccess(TrackedObject._trackedPropertyEnd &+ 0)
                            return _name
                        }
                        @inline(__always) set {
                            guard _trackedShouldNotify(_name, newValue) else {
                                _name = newValue
                                return
                            }
                            let mutation = willMutate(TrackedObject._trackedPropertyEnd &+ 0)
                            _name = newValue
                            didMutate(mutation)
                        }
                        _modify {
                            trackAccess(TrackedObject._trackedPropertyEnd &+ 0)
                            let mutation = willMutate(TrackedObject._trackedPropertyEnd &+ 0)
                            defer {
                                didMutate(mutation)
                            }
                            yield &_name
                        }
                    }

                    private var _name: String
                    init(name: String) { self.name = name }

                    /// The properties of this class and its superclasses tracked by `@TrackedModel`: this
                    /// class's take the indices from its superclass's end to this.
                    override class var _trackedPropertyEnd: Int {
                        TrackedObject._trackedPropertyEnd &+ 1
                    }
                }
                """)
    }

    /// A public subclass: `@inlinable` accessors over `@usableFromInline` storage, indices after the
    /// superclass's, `weak` kept on the storage, observers kept on it too; `@Untracked`, `let`,
    /// `static`, `lazy` and computed properties left alone.
    @Test func aPublicSubclassWithEveryKindOfProperty() {
        let (source, diagnostics) = expand(
            """
            @TrackedModel public class Person: Entity {
                public weak var friend: Person?
                @Untracked var cache = 0
                let id = 1
                static var count = 0
                lazy var slug = ""
                var shout: String { "" }
                var rating = 0.0 {
                    didSet { print(oldValue) }
                }
            }
            """)
        #expect(diagnostics.isEmpty)
        #expect(
            source == """
                public class Person: Entity {
                    public weak var friend: Person? {
                        @storageRestrictions(initializes: _friend)
                        init(initialValue) {
                            _friend = initialValue
                        }
                        @inlinable get {
                            trackAccess(Entity._trackedPropertyEnd &+ 0)
                            _observationAccess(self, \\Person.friend)
                            return _friend
                        }
                        @inlinable set {
                            guard _trackedShouldNotify(_friend, newValue) else {
                                _friend = newValue
                                return
                            }
                            let mutation = willMutate(Entity._trackedPropertyEnd &+ 0)
                            _observationMutation(self, \\Person.friend) {
                                _friend = newValue
                            }
                            didMutate(mutation)
                        }
                        @inlinable _modify {
                            trackAccess(Entity._trackedPropertyEnd &+ 0)
                            _observationAccess(self, \\Person.friend)
                            let mutation = willMutate(Entity._trackedPropertyEnd &+ 0)
                            _observationWillSet(self, \\Person.friend)
                            defer {
                                _observationDidSet(self, \\Person.friend)
                                didMutate(mutation)
                            }
                            yield &_friend
                        }
                    }

                    @usableFromInline internal weak var _friend: Person?
                    var cache = 0
                    let id = 1
                    static var count = 0
                    lazy var slug = ""
                    var shout: String { "" }
                    var rating {
                        didSet { print(oldValue) }
                        @storageRestrictions(initializes: _rating)
                        init(initialValue) {
                            _rating = initialValue
                        }

                        get {
                            trackAccess(Entity._trackedPropertyEnd &+ 1)
                            _observationAccess(self, \\Person.rating)
                            return _rating
                        }

                        set {
                            guard _trackedShouldNotify(_rating, newValue) else {
                                _rating = newValue
                                return
                            }
                            let mutation = willMutate(Entity._trackedPropertyEnd &+ 1)
                            _observationMutation(self, \\Person.rating) {
                                _rating = newValue
                            }
                            didMutate(mutation)
                        }

                        _modify {
                            trackAccess(Entity._trackedPropertyEnd &+ 1)
                            _observationAccess(self, \\Person.rating)
                            let mutation = willMutate(Entity._trackedPropertyEnd &+ 1)
                            _observationWillSet(self, \\Person.rating)
                            defer {
                                _observationDidSet(self, \\Person.rating)
                                didMutate(mutation)
                            }
                            yield &_rating
                        }
                    }

                    private var _rating = 0.0 {
                            didSet {
                                print(oldValue)
                            }
                        }

                    /// The properties of this class and its superclasses tracked by `@TrackedModel`: this
                    /// class's take the indices from its superclass's end to this.
                    @inlinable public override class var _trackedPropertyEnd: Int {
                        Entity._trackedPropertyEnd &+ 2
                    }
                }
                """)
    }

    @Test(arguments: [
        ("@TrackedModel struct S { var x = 0 }", "a struct"),
        ("@TrackedModel enum E { case a }", "an enum"),
        ("@TrackedModel actor A { var x = 0 }", "an actor"),
        ("@TrackedModel protocol P { var x: Int { get } }", "a protocol"),
    ])
    func anythingButAClassIsRefused(_ source: String, _ kind: String) {
        let (_, diagnostics) = expand(source)
        #expect(diagnostics == ["@TrackedModel applies to a class (a subclass of TrackedObject), not to \(kind)"])
    }

    @Test func aClassWithNoSuperclassIsRefused() {
        let (_, diagnostics) = expand("@TrackedModel final class C { var x = 0 }")
        #expect(
            diagnostics == ["a @TrackedModel class must inherit from TrackedObject or from another @TrackedModel class"]
        )
    }

    /// Each accessor is `@inlinable` where its own access level lets another module call it, and
    /// not elsewhere: an `@inlinable` private setter does not compile. The storage is
    /// `@usableFromInline` when any accessor is `@inlinable`, and private otherwise.
    @Test(arguments: [
        // (declaration, getter inlinable, setter and _modify inlinable)
        ("public private(set) var visits = 0", true, false),
        ("public fileprivate(set) var visits = 0", true, false),
        ("public internal(set) var visits = 0", true, false),
        ("public package(set) var visits = 0", true, true),
        ("package private(set) var visits = 0", true, false),
        ("package var visits = 0", true, true),
        ("open var visits = 0", true, true),
        ("open internal(set) var visits = 0", true, false),
        ("public var visits = 0", true, true),
        ("internal var visits = 0", false, false),
        ("var visits = 0", false, false),
        ("private(set) var visits = 0", false, false),
        ("fileprivate var visits = 0", false, false),
        ("private var visits = 0", false, false),
    ])
    func eachAccessorIsInlinableWhereItsAccessAllows(_ declaration: String, _ getter: Bool, _ setter: Bool) {
        let (source, diagnostics) = expand("@TrackedModel open class Counter: TrackedObject { \(declaration) }")
        #expect(diagnostics.isEmpty)
        #expect(source.contains("@inlinable get {") == getter)
        #expect(source.contains("@inlinable set {") == setter)
        #expect(source.contains("@inlinable _modify {") == setter)
        #expect(source.contains("@usableFromInline internal var _visits = 0") == (getter || setter))
        #expect(source.contains("private var _visits = 0") == !(getter || setter))
    }

    /// A package class's end is `package`, as the class is: an override may not be less visible.
    @Test func aPackageClassDeclaresItsEndPackage() {
        let (source, _) = expand("@TrackedModel package final class Counter: TrackedObject { package var n = 0 }")
        #expect(source.contains("@inlinable package override class var _trackedPropertyEnd: Int"))
    }

    /// Properties declared together cannot each get accessors: an error, whose fix-it declares
    /// each alone (a binding with neither a type nor a value takes the next one's type, as Swift
    /// reads `var a, b: Int`), with the declaration's attributes and modifiers on each.
    /// (`@Untracked var a = 0, b = 0` compiles, as the adopter package shows; SwiftSyntax's
    /// expander, unlike the compiler, refuses a peer macro there, so it is not among these.)
    @Test func propertiesDeclaredTogetherAreAnErrorWithAFixIt() {
        let source = """
            @TrackedModel final class Frame: TrackedObject {
                var width = 0, height = 0
                public private(set) var x, y: Double
                static var c = 0, d = 0
                let e = 0, f = 0
            }
            """
        let (_, diagnostics) = expand(source)
        #expect(
            diagnostics == [
                "@TrackedModel cannot track properties declared together (width, height): declare each in a 'var' of its own, or mark the declaration @Untracked",
                "@TrackedModel cannot track properties declared together (x, y): declare each in a 'var' of its own, or mark the declaration @Untracked",
            ])
        #expect(
            applyingFixIts(source) == """
                @TrackedModel final class Frame: TrackedObject {
                    var width = 0
                    var height = 0
                    public private(set) var x: Double
                    public private(set) var y: Double
                    static var c = 0, d = 0
                    let e = 0, f = 0
                }
                """)
    }

    /// A model that conforms to `TrackedObservable`: accessors that tell Observation too (each a
    /// no-op where the class is not bridged, chosen by overload), with the key path `\Book.title`
    /// as `@Observable`'s (the `@inlinable` getter of a `private(set)` property, which cannot name
    /// it, through a function of the model's that is not inlined), a setter that makes it once, and
    /// the bridge's storage, as public as the class.
    @Test func aBridgedModel() {
        let (source, diagnostics) = expand(
            """
            @TrackedModel public final class Book: TrackedObject, TrackedObservable {
                public private(set) var title = ""
            }
            """)
        #expect(diagnostics.isEmpty)
        #expect(
            source == #"""
                public final class Book: TrackedObject, TrackedObservable {
                    public private(set) var title {
                        @storageRestrictions(initializes: _title)
                        init(initialValue) {
                            _title = initialValue
                        }
                        @inlinable get {
                            trackAccess(TrackedObject._trackedPropertyEnd &+ 0)
                            _observationAccess(self, recordedBy: {
                                    Book._observationAccess_title($0)
                                })
                            return _title
                        }
                        @inline(__always) set {
                            guard _trackedShouldNotify(_title, newValue) else {
                                _title = newValue
                                return
                            }
                            let mutation = willMutate(TrackedObject._trackedPropertyEnd &+ 0)
                            _observationMutation(self, \Book.title) {
                                _title = newValue
                            }
                            didMutate(mutation)
                        }
                        _modify {
                            trackAccess(TrackedObject._trackedPropertyEnd &+ 0)
                            _observationAccess(self, recordedBy: {
                                    Book._observationAccess_title($0)
                                })
                            let mutation = willMutate(TrackedObject._trackedPropertyEnd &+ 0)
                            _observationWillSet(self, \Book.title)
                            defer {
                                _observationDidSet(self, \Book.title)
                                didMutate(mutation)
                            }
                            yield &_title
                        }
                    }

                    @usableFromInline internal var _title = ""

                    /// Tells Observation of a read of `title` (`\Book.title`), where it tracks.
                    @usableFromInline static func _observationAccess_title(_ subject: Book) {
                        _observationRecordAccess(subject, \Book.title)
                    }

                    /// The properties of this class and its superclasses tracked by `@TrackedModel`: this
                    /// class's take the indices from its superclass's end to this.
                    @inlinable public override class var _trackedPropertyEnd: Int {
                        TrackedObject._trackedPropertyEnd &+ 1
                    }

                    /// Observation's registrar for this object, made at the first read Observation tracks.
                    public nonisolated let _observationBridge = ObservationBridgeStorage()
                }
                """#)
    }

    /// A model that lists `Observable` would be taken by Observation and never tell it of a change:
    /// an error, with a fix-it that lists `TrackedObservable` instead.
    @Test(arguments: ["Observable", "Observation.Observable"]) func plainObservableIsAnErrorWithAFixIt(
        _ conformance: String
    ) {
        let source = """
            @TrackedModel final class Book: TrackedObject, \(conformance), Codable {
                var title = ""
            }
            """
        #expect(
            expand(source).diagnostics == [
                "a @TrackedModel class that Observation may observe conforms to TrackedObservable, which refines Observable: with Observable alone, Observation would never be told of a change"
            ])
        #expect(
            applyingFixIts(source) == """
                @TrackedModel final class Book: TrackedObject, TrackedObservable, Codable {
                    var title = ""
                }
                """)
    }

    /// Only a hierarchy's root model lists `TrackedObservable`: on a subclass of a model that is
    /// not bridged, Observation would never be told of the inherited properties; on a subclass of
    /// a bridged one, it is inherited already. Either way an error, with a fix-it that removes it.
    @Test(arguments: [
        ("PlainBase, TrackedObservable", "PlainBase"),
        ("PlainBase, TrackedObservable, Codable", "PlainBase, Codable"),
        ("BridgedBase, LockFreeObservation.TrackedObservable", "BridgedBase"),
    ])
    func aSubclassListingTrackedObservableIsAnErrorWithAFixIt(_ inheritance: String, _ fixed: String) {
        let source = """
            @TrackedModel final class Sub: \(inheritance) {
                var age = 0
            }
            """
        let (expanded, diagnostics) = expand(source)
        let superclass = inheritance.prefix { $0 != "," }
        #expect(
            diagnostics == [
                "TrackedObservable is listed on the root model of a hierarchy, not on a subclass: a subclass of a bridged model is bridged already, and Observation would never be told of the properties of a model that is not; list TrackedObservable on '\(superclass)' (or the model it subclasses) instead"
            ])
        #expect(!expanded.contains("_observationBridge"))
        #expect(
            applyingFixIts(source) == """
                @TrackedModel final class Sub: \(fixed) {
                    var age = 0
                }
                """)
    }

    /// A model ported from `@Observable` keeps its `@ObservationIgnored`: it means `@Untracked`.
    @Test func observationIgnoredMeansUntracked() {
        let (source, diagnostics) = expand(
            """
            @TrackedModel final class Book: TrackedObject, TrackedObservable {
                @ObservationIgnored var cache = 0
                var title = ""
            }
            """)
        #expect(diagnostics.isEmpty)
        #expect(source.contains("@ObservationIgnored var cache = 0\n"))
        #expect(!source.contains("_cache"))
        #expect(source.contains("TrackedObject._trackedPropertyEnd &+ 1\n"))
        #expect(source.contains("_observationMutation(self, \\Book.title)"))
    }

    @Test func aTuplePatternIsAnError() {
        let (_, diagnostics) = expand(
            """
            @TrackedModel final class Point: TrackedObject {
                var (x, y) = (0, 0)
                let (u, v) = (0, 0)
            }
            """)
        #expect(
            diagnostics == [
                "@TrackedModel cannot track properties declared by a tuple pattern (x, y): declare each in a 'var' of its own, or mark the declaration @Untracked"
            ])
    }
}
