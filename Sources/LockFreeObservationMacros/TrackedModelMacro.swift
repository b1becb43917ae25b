import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@TrackedModel`: tracks every stored `var` of a `TrackedObject` subclass.
///
/// - As a member macro, it declares the class's `_trackedPropertyEnd`: its superclass's, plus the
///   properties it tracks. Property indices are assigned from there, so no two properties of a
///   class hierarchy share one.
/// - As a member-attribute macro, it marks each tracked property `@_TrackedProperty(index)`, whose
///   expansion (`TrackedPropertyMacro`) generates the storage and the accessors.
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
        return [
            """
            /// The properties of this class and its superclasses tracked by `@TrackedModel`: this
            /// class's take the indices from its superclass's end to this.
            \(raw: modifiers)override class var _trackedPropertyEnd: Int {
                \(raw: model.superclass)._trackedPropertyEnd &+ \(raw: model.tracked.count)
            }
            """
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let model = Model(declaration, diagnosingAt: nil, in: context),
            let property = member.as(VariableDeclSyntax.self), let name = property.trackedName,
            let index = model.tracked.firstIndex(of: name)
        else { return [] }
        return ["@_TrackedProperty(\(raw: model.superclass)._trackedPropertyEnd &+ \(raw: index))"]
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
        let modifiers = Set(model.modifiers.map(\.name.text))
        access = modifiers.contains("open") ? "open" : modifiers.contains("public") ? "public" : ""
        tracked = model.memberBlock.members.compactMap { $0.decl.as(VariableDeclSyntax.self)?.trackedName }
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

    var message: String {
        switch self {
        case .notAClass(let kind):
            "@TrackedModel applies to a class (a subclass of TrackedObject), not to \(kind)"
        case .noSuperclass:
            "a @TrackedModel class must inherit from TrackedObject or from another @TrackedModel class"
        }
    }
    var diagnosticID: MessageID {
        switch self {
        case .notAClass: MessageID(domain: "LockFreeObservation", id: "notAClass")
        case .noSuperclass: MessageID(domain: "LockFreeObservation", id: "noSuperclass")
        }
    }
    var severity: DiagnosticSeverity { .error }
}

extension VariableDeclSyntax {
    /// The name of a stored instance `var` that `@TrackedModel` tracks, or `nil`: `let`, static,
    /// lazy, computed, `@Untracked` and multi-binding declarations are left alone.
    var trackedName: String? {
        guard bindingSpecifier.tokenKind == .keyword(.var), bindings.count == 1, let binding = bindings.first,
            let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return nil }
        let modifiers = Set(self.modifiers.map(\.name.text))
        guard modifiers.isDisjoint(with: ["static", "class", "lazy"]) else { return nil }
        for attribute in attributes {
            let attributeName = attribute.as(AttributeSyntax.self)?.attributeName.trimmedDescription
            if attributeName == "Untracked" || attributeName == "_TrackedProperty" { return nil }
        }
        // Computed: a getter (or a body with no accessor keyword). Observers keep it stored.
        guard let block = binding.accessorBlock else { return name }
        guard case .accessors(let accessors) = block.accessors else { return nil }
        let observersOnly = accessors.allSatisfy { ["willSet", "didSet"].contains($0.accessorSpecifier.text) }
        return observersOnly ? name : nil
    }
}
