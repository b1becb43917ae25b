import SwiftSyntax
import SwiftSyntaxMacros

/// `@Untracked`: a stored `var` of a `@TrackedModel` class that is not tracked (as Observation's
/// `@ObservationIgnored`). It generates nothing: `@TrackedModel` skips what it marks.
/// A peer macro, so that it may mark any declaration, one of several properties included.
public struct UntrackedMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}
