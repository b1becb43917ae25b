import SwiftSyntax
import SwiftSyntaxMacros

/// `@Untracked`: a stored `var` of a `@TrackedModel` class that is not tracked (as Observation's
/// `@ObservationIgnored`). It generates nothing: `@TrackedModel` skips what it marks.
public struct UntrackedMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] { [] }
}
