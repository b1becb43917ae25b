import SwiftSyntax
import SwiftSyntaxMacros

/// `@_TrackedProperty(index)`, which `@TrackedModel` puts on each tracked property: the storage
/// (`_name`, with the property's type, initial value, `weak`/`unowned` and observers) and the
/// accessors, which call the registrar with `index`.
///
/// - `init`: an init accessor, so that `init` assigns the property as usual.
/// - `get`: the read recorded (`trackAccess`), then the value.
/// - `set`: Observation's setter: an equal (`Equatable`) or identical (a class reference) value
///   is stored without notifying; any other is announced (`willMutate`: observers are told before
///   the store), stored, and ended (`didMutate`). The property's `willSet`/`didSet`, kept on the
///   storage, run around the store: after the observers are told, as Observation's do.
/// - `_modify`: an in-place mutation, always announced, as Observation's.
///
/// Accessors another module can call (`public`, `open` or `package`) are `@inlinable`, over
/// `@usableFromInline` storage, so that a model used from another module is read and written with
/// no call. Each accessor follows its own access level: in `public private(set) var visits`, the
/// getter is `@inlinable` and the setter, which only this file can call, is not (an `@inlinable`
/// private declaration does not compile).
public struct TrackedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        let arguments = node.arguments?.as(LabeledExprListSyntax.self).map(Array.init) ?? []
        guard let property = declaration.as(VariableDeclSyntax.self), let name = property.storedName,
            let index = arguments.first?.expression.trimmedDescription
        else { return [] }
        let access = property.declaredAccess
        let inlinableGetter = access.getterIsExported ? "@inlinable " : ""
        let inlinableSetter = access.setterIsExported ? "@inlinable " : ""
        // Observation's side, where the model may be bridged (`_observationAccess`,
        // `_observationMutation`, `_observationWillSet`, `_observationDidSet`), with the key path
        // `\Model.name`, as `@Observable`'s. An `@inlinable` getter whose setter is not (`public
        // private(set)`) cannot name that key path (it names the setter): it records the read
        // through a function of the model's that is not inlined (`_observationAccess_name`).
        let model = arguments.dropFirst().first?.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
        let keyPath = model.map { "\\\($0).\(name)" }
        let observationAccess: String
        if let model, access.getterIsExported && !access.setterIsExported {
            observationAccess =
                "\n    _observationAccess(self, recordedBy: { \(model).\(Self.accessRecorderPrefix)\(name)($0) })"
        } else {
            observationAccess = keyPath.map { "\n    _observationAccess(self, \($0))" } ?? ""
        }
        let store =
            keyPath.map { "\n    _observationMutation(self, \($0)) { _\(name) = newValue }" }
            ?? "\n    _\(name) = newValue"
        let observationWillSet = keyPath.map { "\n    _observationWillSet(self, \($0))" } ?? ""
        let modifyEnd =
            keyPath.map { "\n        _observationDidSet(self, \($0))\n        didMutate(mutation)\n    " }
            ?? " didMutate(mutation) "
        return [
            """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = initialValue
            }
            """,
            """
            \(raw: inlinableGetter)get {
                trackAccess(\(raw: index))\(raw: observationAccess)
                return _\(raw: name)
            }
            """,
            """
            \(raw: inlinableSetter)\(raw: property.isString ? "@inline(__always) " : "")set {
                guard _trackedShouldNotify(_\(raw: name), newValue) else {
                    _\(raw: name) = newValue
                    return
                }
                let mutation = willMutate(\(raw: index))\(raw: store)
                didMutate(mutation)
            }
            """,
            """
            \(raw: inlinableSetter)_modify {
                trackAccess(\(raw: index))\(raw: observationAccess)
                let mutation = willMutate(\(raw: index))\(raw: observationWillSet)
                defer {\(raw: modifyEnd)}
                yield &_\(raw: name)
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let property = declaration.as(VariableDeclSyntax.self), let name = property.storedName,
            var binding = property.bindings.first
        else { return [] }
        binding.pattern = PatternSyntax(IdentifierPatternSyntax(identifier: .identifier("_" + name)))
        var storage = property
        storage.bindings = [binding]
        // Untracked (no `@TrackedModel` attribute for it), and no wider than the accessors need.
        storage.attributes = [.attribute("@Untracked")]
        let exported = property.declaredAccess.isExported
        if exported { storage.attributes.append(.attribute("@usableFromInline")) }
        storage.modifiers = storage.modifiers.filter {
            !["public", "open", "private", "fileprivate", "internal", "package", "override", "final"].contains(
                $0.name.text)
        }
        storage.modifiers = DeclModifierListSyntax(
            storage.modifiers.map { $0.with(\.leadingTrivia, []).with(\.trailingTrivia, .space) })
        storage.modifiers.insert(
            DeclModifierSyntax(name: .keyword(exported ? .internal : .private, trailingTrivia: .space)),
            at: storage.modifiers.startIndex)
        storage.bindingSpecifier = storage.bindingSpecifier.with(\.leadingTrivia, [])
        var peers = [DeclSyntax(storage.with(\.leadingTrivia, []))]
        // The read Observation is told of, for a getter that cannot name its key path (above).
        let arguments = node.arguments?.as(LabeledExprListSyntax.self).map(Array.init) ?? []
        if let model = arguments.dropFirst().first?.expression.as(StringLiteralExprSyntax.self)?
            .representedLiteralValue,
            property.declaredAccess.getterIsExported, !property.declaredAccess.setterIsExported
        {
            peers.append(
                """
                /// Tells Observation of a read of `\(raw: name)` (`\\\(raw: model).\(raw: name)`), where it tracks.
                @usableFromInline static func \(raw: accessRecorderPrefix)\(raw: name)(_ subject: \(raw: model)) {
                    _observationRecordAccess(subject, \\\(raw: model).\(raw: name))
                }
                """)
        }
        return peers
    }

    /// The prefix of the function through which an `@inlinable` getter whose setter is not tells
    /// Observation of a read (`TrackedModel.swift` declares the names).
    static let accessRecorderPrefix = "_observationAccess_"
}

extension VariableDeclSyntax {
    /// The name of the single stored property this declares.
    var storedName: String? {
        guard bindings.count == 1 else { return nil }
        return bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    }

    /// The access levels the declaration states for its getter and its setter.
    var declaredAccess: DeclaredAccess {
        var access = DeclaredAccess()
        for modifier in modifiers where DeclaredAccess.levels.contains(modifier.name.text) {
            if modifier.detail?.detail.text == "set" {
                access.setter = modifier.name.text
            } else {
                access.getter = modifier.name.text
            }
        }
        return access
    }

    /// Whether the property is declared a `String`, or initialised with a string literal. Its
    /// setter is always inlined: left out of line (the optimiser leaves it so, for the string
    /// comparison), an equal write (`book.title = book.title`) pays a retain and a release of the
    /// new value just to compare it. Other setters are left to the optimiser, which inlines them
    /// where that pays (always inlined, a `Double` setter makes the code that writes it larger
    /// and slower).
    var isString: Bool {
        guard let binding = bindings.first else { return false }
        if let type = binding.typeAnnotation?.type.trimmedDescription {
            return type == "String" || type == "Swift.String"
        }
        return binding.initializer?.value.is(StringLiteralExprSyntax.self) ?? false
    }

    /// Whether the property has `willSet` or `didSet` (kept on its storage).
    var hasObservers: Bool {
        guard case .accessors(let accessors) = bindings.first?.accessorBlock?.accessors else { return false }
        return !accessors.isEmpty
    }
}

extension AttributeListSyntax.Element {
    static func attribute(_ text: String) -> Self {
        .attribute(AttributeSyntax(stringLiteral: text).with(\.trailingTrivia, .space))
    }
}

/// A stored property's access levels as written: `public private(set) var` is a `public` getter
/// and a `private` setter; no modifier is `nil` (internal), and no `(set)` modifier gives the
/// setter the getter's level.
struct DeclaredAccess {
    static let levels: Set<String> = ["open", "public", "package", "internal", "fileprivate", "private"]

    var getter: String?
    var setter: String?

    /// Whether another module may call the getter: it is then `@inlinable`.
    var getterIsExported: Bool { Self.isExported(getter) }
    /// Whether another module may call the setter (and `_modify`): they are then `@inlinable`.
    var setterIsExported: Bool { Self.isExported(setter ?? getter) }
    /// Whether any accessor is `@inlinable`, so that the storage must be `@usableFromInline`.
    var isExported: Bool { getterIsExported || setterIsExported }

    static func isExported(_ level: String?) -> Bool { ["open", "public", "package"].contains(level ?? "") }
}
