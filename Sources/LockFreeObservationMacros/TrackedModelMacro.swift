import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@TrackedModel`: tracks every stored `var` of a `TrackedObject` subclass.
///
/// - As a member macro, it declares the class's `_trackedPropertyEnd`: its superclass's, plus the
///   properties it tracks. Property indices are assigned from there, so no two properties of a
///   class hierarchy share one.
/// - As a member-attribute macro, it marks each tracked property `@_TrackedProperty(index)`, whose
///   expansion (`TrackedPropertyMacro`) generates the storage and the accessors; with the class
///   (`@_TrackedProperty(index, "Model")`) where Observation may observe it too.
/// - A class that lists `TrackedObservable` gets `_observationBridge` (its Observation registrar,
///   made lazily), the protocol's requirement. One that lists `Observable` is refused, with a
///   fix-it: Observation would take it and never be told of a change. (The conformance is the
///   class's own, not an extension macro's: an extension role on `@TrackedModel` stops the 6.3
///   compiler on a model that subclasses another, and forbids local models.)
///
/// Left alone: `let`, computed, `static`, `class` and `lazy` properties, and those marked
/// `@Untracked`.
public struct TrackedModelMacro: MemberMacro, MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let model = Model(declaration, diagnosingAt: node, in: context) else { return [] }
        let modifiers = model.access.isEmpty ? "" : "@inlinable \(model.access) "
        var members: [DeclSyntax] = [
            """
            /// The properties of this class and its superclasses tracked by `@TrackedModel`: this
            /// class's take the indices from its superclass's end to this.
            \(raw: modifiers)override class var _trackedPropertyEnd: Int {
                \(raw: model.superclass)._trackedPropertyEnd &+ \(raw: model.tracked.count)
            }
            """
        ]
        if model.isBridged {
            let access = model.access == "open" ? "public" : model.access
            members.append(
                """
                /// Observation's registrar for this object, made at the first read Observation tracks.
                \(raw: access.isEmpty ? "" : access + " ")nonisolated let _observationBridge = ObservationBridgeStorage()
                """)
        }
        return members
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let model = Model(declaration, diagnosingAt: nil, in: context),
            let property = member.as(VariableDeclSyntax.self), let name = property.trackedName,
            let index = model.tracked.firstIndex(of: name)
        else { return [] }
        let position = "\(model.superclass)._trackedPropertyEnd &+ \(index)"
        // A model that may be bridged (it lists `Observable`, or a superclass may) names itself, the
        // root of the key paths its accessors give Observation.
        guard model.mayBeBridged else { return ["@_TrackedProperty(\(raw: position))"] }
        return ["@_TrackedProperty(\(raw: position), \(literal: model.name))"]
    }
}

/// What the macros need of a model class.
struct Model {
    /// The superclass, as written first in the inheritance clause.
    let superclass: String
    /// `public` or `open` when the class is, so that the generated members match; empty otherwise.
    let access: String
    /// The names of the tracked properties, in declaration order: their indices.
    let tracked: [String]
    /// The class's name, as its own body names it.
    let name: String
    /// Whether the class lists `TrackedObservable`: Observation observes it too.
    let isBridged: Bool

    /// Whether Observation may observe the class: it lists `TrackedObservable`, or its superclass
    /// is another model, which may (the accessors then tell Observation where the class conforms
    /// to `TrackedObservable`, chosen by overload resolution).
    var mayBeBridged: Bool { isBridged || !Self.registrarBases.contains(superclass) }

    /// The registrars' base classes: a model that subclasses one directly is bridged only if it
    /// says so.
    static let registrarBases: Set<String> = [
        "TrackedObject", "LockFreeObservation.TrackedObject", "LockedObject", "LockedObservation.LockedObject",
    ]

    init?(
        _ declaration: some DeclGroupSyntax, diagnosingAt node: AttributeSyntax?, in context: some MacroExpansionContext
    ) {
        guard let model = declaration.as(ClassDeclSyntax.self) else {
            if let node {
                context.diagnose(
                    Diagnostic(node: Syntax(node), message: ModelDiagnostic.notAClass(Self.kind(of: declaration))))
            }
            return nil
        }
        guard let superclass = model.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription else {
            if let node { context.diagnose(Diagnostic(node: Syntax(node), message: ModelDiagnostic.noSuperclass)) }
            return nil
        }
        self.superclass = superclass
        name = model.name.text
        let conformances: [InheritedTypeSyntax] =
            model.inheritanceClause.map { Array($0.inheritedTypes.dropFirst()) } ?? []
        let bridging = conformances.first {
            ["TrackedObservable", "LockFreeObservation.TrackedObservable"].contains($0.type.trimmedDescription)
        }
        // Only a hierarchy's root model lists `TrackedObservable`: the accessors of a superclass
        // that is not bridged would never tell Observation of its properties, and a bridged one's
        // subclasses inherit the conformance (and its storage).
        let isRoot = Self.registrarBases.contains(superclass)
        isBridged = bridging != nil && isRoot
        if node != nil, let bridging, !isRoot, let list = model.inheritanceClause?.inheritedTypes {
            context.diagnose(Self.bridgedSubclass(bridging, in: list, superclass: superclass))
        }
        if node != nil {
            for conformance in conformances
            where ["Observable", "Observation.Observable"].contains(conformance.type.trimmedDescription) {
                context.diagnose(Self.plainObservable(conformance))
            }
        }
        let modifiers = Set(model.modifiers.map(\.name.text))
        access = ["open", "public", "package"].first { modifiers.contains($0) } ?? ""
        tracked = model.memberBlock.members.compactMap { $0.decl.as(VariableDeclSyntax.self)?.trackedName }
        if node != nil {
            for member in model.memberBlock.members {
                guard let property = member.decl.as(VariableDeclSyntax.self), property.isUntrackableStoredVar
                else { continue }
                context.diagnose(Self.untrackable(property))
            }
        }
    }

    /// The error for a stored `var` the macro cannot track (several bindings, or a tuple pattern),
    /// with a fix-it that declares each property in a `var` of its own where that is a split of
    /// the bindings as written.
    static func untrackable(_ property: VariableDeclSyntax) -> Diagnostic {
        let names = property.bindings.flatMap { $0.pattern.boundNames }
        guard property.bindings.allSatisfy({ $0.pattern.is(IdentifierPatternSyntax.self) }) else {
            return Diagnostic(node: Syntax(property), message: ModelDiagnostic.tuplePattern(names))
        }
        // `var a, b: Int` declares both `Int`: a binding with neither a type nor a value takes the
        // type of the next binding that has one.
        var split: [VariableDeclSyntax] = []
        var type: TypeAnnotationSyntax?
        for binding in property.bindings.reversed() {
            var alone = binding.with(\.trailingComma, nil).with(\.trailingTrivia, [])
            if let annotation = binding.typeAnnotation {
                type = annotation
            } else if binding.initializer == nil, let type {
                alone.typeAnnotation = type
            }
            split.insert(property.with(\.bindings, [alone.with(\.leadingTrivia, [])]), at: 0)
        }
        // The first keeps the declaration's own leading trivia; the others start a line at its
        // indentation.
        let indentation = Trivia(pieces: property.leadingTrivia.pieces.reversed().prefix { !$0.isNewline }.reversed())
        let replacement = MemberBlockItemListSyntax(
            split.enumerated().map { index, declaration in
                MemberBlockItemSyntax(
                    decl: index == 0 ? declaration : declaration.with(\.leadingTrivia, .newline + indentation))
            })
        return Diagnostic(
            node: Syntax(property), message: ModelDiagnostic.severalBindings(names),
            fixIts: [
                FixIt(
                    message: ModelFixIt.declareEachAlone,
                    changes: [.replace(oldNode: Syntax(property), newNode: Syntax(replacement))])
            ])
    }

    /// The error for a model that lists `Observable`, with a fix-it that lists `TrackedObservable`.
    static func plainObservable(_ conformance: InheritedTypeSyntax) -> Diagnostic {
        let replacement = conformance.with(
            \.type,
            TypeSyntax(IdentifierTypeSyntax(name: .identifier("TrackedObservable"))).with(
                \.leadingTrivia, conformance.type.leadingTrivia
            ).with(\.trailingTrivia, conformance.type.trailingTrivia))
        return Diagnostic(
            node: Syntax(conformance.type), message: ModelDiagnostic.plainObservable,
            fixIts: [
                FixIt(
                    message: ModelFixIt.listTrackedObservable,
                    changes: [.replace(oldNode: Syntax(conformance), newNode: Syntax(replacement))])
            ])
    }

    /// The error for a subclass that lists `TrackedObservable`, with a fix-it that removes it here.
    static func bridgedSubclass(
        _ conformance: InheritedTypeSyntax, in list: InheritedTypeListSyntax, superclass: String
    ) -> Diagnostic {
        var kept = Array(list.filter { $0.id != conformance.id })
        if let last = kept.indices.last {
            kept[last] = kept[last].with(\.trailingComma, nil).with(
                \.trailingTrivia, list.last?.trailingTrivia ?? [])
        }
        return Diagnostic(
            node: Syntax(conformance.type), message: ModelDiagnostic.bridgedSubclass(superclass),
            fixIts: [
                FixIt(
                    message: ModelFixIt.removeTrackedObservable,
                    changes: [.replace(oldNode: Syntax(list), newNode: Syntax(InheritedTypeListSyntax(kept)))])
            ])
    }

    static func kind(of declaration: some DeclGroupSyntax) -> String {
        if declaration.is(StructDeclSyntax.self) { return "a struct" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ActorDeclSyntax.self) { return "an actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
        return "this declaration"
    }
}

enum ModelDiagnostic: DiagnosticMessage {
    case notAClass(String)
    case noSuperclass
    case severalBindings([String])
    case tuplePattern([String])
    case plainObservable
    case bridgedSubclass(String)

    var message: String {
        switch self {
        case .notAClass(let kind):
            "@TrackedModel applies to a class (a subclass of TrackedObject), not to \(kind)"
        case .noSuperclass:
            "a @TrackedModel class must inherit from TrackedObject or from another @TrackedModel class"
        case .severalBindings(let names):
            "@TrackedModel cannot track properties declared together (\(names.joined(separator: ", "))): "
                + "declare each in a 'var' of its own, or mark the declaration @Untracked"
        case .tuplePattern(let names):
            "@TrackedModel cannot track properties declared by a tuple pattern (\(names.joined(separator: ", "))): "
                + "declare each in a 'var' of its own, or mark the declaration @Untracked"
        case .plainObservable:
            "a @TrackedModel class that Observation may observe conforms to TrackedObservable, "
                + "which refines Observable: with Observable alone, Observation would never be told of a change"
        case .bridgedSubclass(let superclass):
            "TrackedObservable is listed on the root model of a hierarchy, not on a subclass: a subclass of a "
                + "bridged model is bridged already, and Observation would never be told of the properties of "
                + "a model that is not; list TrackedObservable on '\(superclass)' (or the model it subclasses) instead"
        }
    }
    var diagnosticID: MessageID {
        switch self {
        case .notAClass: MessageID(domain: "LockFreeObservation", id: "notAClass")
        case .noSuperclass: MessageID(domain: "LockFreeObservation", id: "noSuperclass")
        case .severalBindings: MessageID(domain: "LockFreeObservation", id: "severalBindings")
        case .tuplePattern: MessageID(domain: "LockFreeObservation", id: "tuplePattern")
        case .plainObservable: MessageID(domain: "LockFreeObservation", id: "plainObservable")
        case .bridgedSubclass: MessageID(domain: "LockFreeObservation", id: "bridgedSubclass")
        }
    }
    var severity: DiagnosticSeverity { .error }
}

enum ModelFixIt: FixItMessage {
    case declareEachAlone
    case listTrackedObservable
    case removeTrackedObservable

    var message: String {
        switch self {
        case .declareEachAlone: "declare each property in a 'var' of its own"
        case .listTrackedObservable: "conform to TrackedObservable"
        case .removeTrackedObservable: "remove TrackedObservable here, and bridge the hierarchy's root model"
        }
    }
    var fixItID: MessageID {
        switch self {
        case .removeTrackedObservable: MessageID(domain: "LockFreeObservation", id: "removeTrackedObservable")
        case .declareEachAlone: MessageID(domain: "LockFreeObservation", id: "declareEachAlone")
        case .listTrackedObservable: MessageID(domain: "LockFreeObservation", id: "listTrackedObservable")
        }
    }
}

extension VariableDeclSyntax {
    /// The name of a stored instance `var` that `@TrackedModel` tracks, or `nil`: `let`, static,
    /// lazy, computed and `@Untracked` declarations are left alone, and those it cannot track
    /// (`isUntrackableStoredVar`) are refused with an error.
    var trackedName: String? {
        guard isInstanceStoredVar, bindings.count == 1, let binding = bindings.first else { return nil }
        return binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    }

    /// A stored instance `var` that is neither `@Untracked` nor one property alone: several
    /// bindings (`var width = 0, height = 0`) or a tuple pattern (`var (x, y) = (0, 0)`). The
    /// accessors `@TrackedModel` generates belong to one property, so it cannot track these, and
    /// leaving a tracked-looking property untracked would be a silent missed update: an error.
    var isUntrackableStoredVar: Bool {
        guard isInstanceStoredVar, let binding = bindings.first else { return false }
        return bindings.count > 1 || !binding.pattern.is(IdentifierPatternSyntax.self)
    }

    /// A `var` with storage of its own in each instance, not opted out: not `static`, `class` or
    /// `lazy`, not `@Untracked`, not computed (observers keep it stored).
    private var isInstanceStoredVar: Bool {
        guard bindingSpecifier.tokenKind == .keyword(.var) else { return false }
        let modifiers = Set(self.modifiers.map(\.name.text))
        guard modifiers.isDisjoint(with: ["static", "class", "lazy"]) else { return false }
        for attribute in attributes {
            let attributeName = attribute.as(AttributeSyntax.self)?.attributeName.trimmedDescription
            // `@ObservationIgnored` means `@Untracked`: a model ported from `@Observable` keeps it.
            if ["Untracked", "_TrackedProperty", "ObservationIgnored", "Observation.ObservationIgnored"].contains(
                attributeName)
            {
                return false
            }
        }
        return bindings.allSatisfy { binding in
            // Computed: a getter (or a body with no accessor keyword).
            guard let block = binding.accessorBlock else { return true }
            guard case .accessors(let accessors) = block.accessors else { return false }
            return accessors.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        }
    }
}

extension PatternSyntax {
    /// The names a pattern binds, in order: `x` of `x`, `x` and `y` of `(x, y)`.
    var boundNames: [String] {
        if let identifier = self.as(IdentifierPatternSyntax.self) { return [identifier.identifier.text] }
        if let tuple = self.as(TuplePatternSyntax.self) { return tuple.elements.flatMap { $0.pattern.boundNames } }
        return [trimmedDescription]
    }
}
