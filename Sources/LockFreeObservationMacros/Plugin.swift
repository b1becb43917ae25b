import SwiftSyntaxMacros

#if canImport(SwiftCompilerPlugin)
    // Built on the swift-syntax package (`LOCKFREE_OBSERVATION_SWIFT_SYNTAX_PACKAGE=1`).
    import SwiftCompilerPlugin

    @main struct Plugin: CompilerPlugin {
        let providingMacros: [any Macro.Type] = [
            TrackedModelMacro.self, TrackedPropertyMacro.self, UntrackedMacro.self,
        ]
    }
#else
    // Built on the toolchain's own SwiftSyntax modules, which do not include `SwiftCompilerPlugin`:
    // the same message loop, without its convenience.
    @_spi(PluginMessage) import SwiftCompilerPluginMessageHandling

    struct Provider: PluginProvider {
        func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
            switch typeName {
            case "TrackedModelMacro": TrackedModelMacro.self
            case "TrackedPropertyMacro": TrackedPropertyMacro.self
            case "UntrackedMacro": UntrackedMacro.self
            default: throw UnknownMacro(name: typeName)
            }
        }
    }

    struct UnknownMacro: Error, CustomStringConvertible {
        let name: String
        var description: String { "LockFreeObservationMacros has no macro \(name)" }
    }

    @main struct Plugin {
        static func main() throws {
            let listener = CompilerPluginMessageListener(
                connection: try StandardIOMessageConnection(), provider: Provider())
            try listener.main()
        }
    }
#endif
