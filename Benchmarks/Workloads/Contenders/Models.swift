/// The models every contender declares in its own idiom. Workloads use only these protocols.

/// `Author` of Apple's "Managing model data in your app".
public protocol AuthorModel: AnyObject {
    init(name: String)
    var name: String { get set }
}

/// `Book`: its author is itself observable.
public protocol BookModel: AnyObject {
    associatedtype Author: AuthorModel
    init(id: Int, title: String, author: Author, isAvailable: Bool)
    var id: Int { get }
    var title: String { get set }
    var author: Author { get set }
    var isAvailable: Bool { get set }
    var isSelected: Bool { get set }
}

/// `Library`, with the computed `availableBooksCount` that depends on `books` and every book's
/// `isAvailable`.
public protocol LibraryModel: AnyObject {
    associatedtype Book: BookModel
    init(books: [Book])
    var books: [Book] { get set }
    var selectedID: Int { get set }
    var availableBooksCount: Int { get }
    /// In-place edits of `books` (each is one change of `books`).
    func insert(_ book: Book, at index: Int)
    func remove(at index: Int) -> Book
    func swapAt(_ i: Int, _ j: Int)
}

extension LibraryModel {
    public func insert(_ book: Book, at index: Int) { books.insert(book, at: index) }
    public func remove(at index: Int) -> Book { books.remove(at: index) }
    public func swapAt(_ i: Int, _ j: Int) { books.swapAt(i, j) }
}

/// One observable value: a source or a derived node's published output (signals, kairo, cellx,
/// the dependency grid). Written only when it changed (the setter ignores equal values).
public protocol CellModel: AnyObject {
    init(_ value: Double)
    var value: Double { get set }
}

/// One object with `count` observable integer properties, for disjoint fan-out.
public protocol FieldsModel: AnyObject {
    init(count: Int)
    func value(at index: Int) -> Int
    func setValue(_ value: Int, at index: Int)
}

/// Display settings as an observable class, one observable property per field.
public protocol SettingsModel: AnyObject {
    init()
    var fontSize: Double { get set }
    var lineSpacing: Double { get set }
    var theme: Int { get set }
}

/// The same settings as a struct inside a generic observable wrapper (`ObservableState<Settings>`):
/// the whole struct is one property.
public protocol SettingsStateModel: AnyObject {
    init(_ item: SettingsValue)
    var item: SettingsValue { get set }
}

public struct SettingsValue: Equatable, Sendable {
    public var fontSize: Double
    public var lineSpacing: Double
    public var theme: Int

    public init(fontSize: Double = 14, lineSpacing: Double = 1.2, theme: Int = 0) {
        self.fontSize = fontSize
        self.lineSpacing = lineSpacing
        self.theme = theme
    }
}

/// An object with eight observable integer properties `p0`...`p7`, for tracking K properties of one
/// object. `value(at:)` and `setValue(_:at:)` are app code: a switch over the declared properties.
public protocol RecordModel: AnyObject {
    init()
    var p0: Int { get set }
    var p1: Int { get set }
    var p2: Int { get set }
    var p3: Int { get set }
    var p4: Int { get set }
    var p5: Int { get set }
    var p6: Int { get set }
    var p7: Int { get set }
}

extension RecordModel {
    @inlinable
    public func value(at index: Int) -> Int {
        switch index & 7 {
        case 0: p0
        case 1: p1
        case 2: p2
        case 3: p3
        case 4: p4
        case 5: p5
        case 6: p6
        default: p7
        }
    }
}
