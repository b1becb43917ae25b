import Testing

@testable import Workloads

/// Equal build conditions: every contender's models live in the module that runs the workloads
/// (`Workloads`), so none reaches its accessors across a module boundary that another does not
/// cross, and all get that module's settings (release: exclusivity checks off, for all alike).
/// A contender whose models moved to a module of their own would fail here.
@Suite struct BuildConditionsTests {
    struct ModelModules: ContenderVisitor {
        func visit<C: Contender>(_: C.Type) -> [String] {
            let types: [Any.Type] = [
                C.self, C.Author.self, C.Book.self, C.Library.self, C.Cell.self, C.Fields.self, C.Settings.self,
                C.Record.self, C.SettingsState.self,
            ]
            return types.map { String(reflecting: $0).split(separator: ".")[0].description }
        }
    }

    @Test func everyContendersModelsShareTheWorkloadsModule() {
        let modules = Contenders.visitAll(ModelModules())
        #expect(modules.count == Contenders.names.count)
        for (name, list) in zip(Contenders.names, modules) {
            #expect(Set(list) == ["Workloads"], "\(name)'s models are in \(Set(list).sorted())")
        }
    }
}
