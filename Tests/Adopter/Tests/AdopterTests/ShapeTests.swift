import AdopterModels
import Foundation
import LockFreeObservation
import Testing

/// What each write tells, by the shape of the property, against Observation's rule: an equal value
/// (`Equatable`) or the same object tells no one; any other write tells once.
@Suite struct ShapeTests {
    @Test func optionalsEnumsAndCollectionsCompareTheirValues() {
        let shapes = Shapes()
        #expect(told(reading: { _ = shapes.nickname }, writing: { shapes.nickname = "x" }) == 1)
        #expect(told(reading: { _ = shapes.nickname }, writing: { shapes.nickname = "x" }) == 0)
        #expect(told(reading: { _ = shapes.phase }, writing: { shapes.phase = .loading(progress: 0.5) }) == 1)
        #expect(told(reading: { _ = shapes.phase }, writing: { shapes.phase = .loading(progress: 0.5) }) == 0)
        #expect(told(reading: { _ = shapes.scores }, writing: { shapes.scores = ["a": 1] }) == 1)
        #expect(told(reading: { _ = shapes.scores }, writing: { shapes.scores = ["a": 1] }) == 0)
        #expect(told(reading: { _ = shapes.implicitlyUnwrapped }, writing: { shapes.implicitlyUnwrapped = "x" }) == 1)
    }

    @Test func referencesCompareIdentity() {
        let shapes = Shapes()
        let other = Plain()
        #expect(told(reading: { _ = shapes.reference }, writing: { shapes.reference = other }) == 1)
        #expect(told(reading: { _ = shapes.reference }, writing: { shapes.reference = other }) == 0)
        #expect(told(reading: { _ = shapes.optionalReference }, writing: { shapes.optionalReference = other }) == 1)
    }

    /// Closures, tuples and enums that are not `Equatable` cannot be compared: every write tells
    /// (each `told` writes twice; a one-shot scope is told once).
    @Test func valuesThatCannotBeComparedAlwaysTell() {
        let shapes = Shapes()
        #expect(told(reading: { _ = shapes.onTap }, writing: { shapes.onTap = nil }) == 1)
        #expect(told(reading: { _ = shapes.origin }, writing: { shapes.origin = (0, 0) }) == 1)
        #expect(told(reading: { _ = shapes.outcome }, writing: { shapes.outcome = .success }) == 1)
    }

    /// An in-place mutation (`_modify`) tells once, as Observation's does.
    @Test func inPlaceMutationsTell() {
        let shapes = Shapes()
        #expect(told(reading: { _ = shapes.tags }, writing: { shapes.tags.append("a") }) == 1)
        #expect(shapes.tags == ["a", "a"])
    }

    /// `@Untracked` on a declaration of two properties leaves both plain.
    @Test func untrackedPropertiesDeclaredTogetherTellNoOne() {
        let shapes = Shapes()
        #expect(told(reading: { _ = shapes.cache + shapes.scratch }, writing: { shapes.cache += 1 }) == 0)
        #expect(shapes.cache == 2)
    }
}
