import LockFreeObservationMacros
import SwiftDiagnostics
@_spi(FixItApplier) import SwiftIDEUtils
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros

/// The macros by the names the library declares them with.
var macros: [String: any Macro.Type] {
    [
        "TrackedModel": TrackedModelMacro.self,
        "_TrackedProperty": TrackedPropertyMacro.self,
        "Untracked": UntrackedMacro.self,
    ]
}

/// `source` with every macro expanded (as the compiler would, member attributes first), and the
/// diagnostics the macros reported: what `assertMacroExpansion` does, without the test-support
/// module the toolchain does not ship.
func expand(_ source: String) -> (source: String, diagnostics: [String]) {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(sourceFiles: [
        file: .init(moduleName: "Models", fullFilePath: "Models.swift")
    ])
    let expanded = file.expand(
        macros: macros,
        contextGenerator: {
            BasicMacroExpansionContext(sharingWith: context, lexicalContext: $0.allMacroLexicalContexts())
        },
        indentationWidth: .spaces(4))
    return (expanded.description, context.diagnostics.map(\.message))
}

/// `source` with the fix-its of the macros' diagnostics applied, as an editor applies them.
func applyingFixIts(_ source: String) -> String {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(sourceFiles: [
        file: .init(moduleName: "Models", fullFilePath: "Models.swift")
    ])
    _ = file.expand(
        macros: macros,
        contextGenerator: {
            BasicMacroExpansionContext(sharingWith: context, lexicalContext: $0.allMacroLexicalContexts())
        },
        indentationWidth: .spaces(4))
    return FixItApplier.applyFixes(from: context.diagnostics, filterByMessages: nil, to: file)
}
