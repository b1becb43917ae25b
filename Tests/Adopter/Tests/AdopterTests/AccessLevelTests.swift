import AdopterModels
import LockFreeObservation
import Testing

/// Every property of `Account` this module may see is tracked across the module boundary, through
/// its `@inlinable` getter; those only `AdopterModels` may write are written through its methods.
@Suite struct AccessLevelTests {
    @Test func publicPropertiesAreReadAndWrittenFromAnotherModule() {
        let account = Account()
        #expect(told(reading: { _ = account.name }, writing: { account.name = "Ada" }) == 1)
        #expect(told(reading: { _ = account.balance }, writing: { account.balance = 10 }) == 1)
        #expect(told(reading: { _ = account.plan }, writing: { account.plan = "pro" }) == 1)
        #expect(account.name == "Ada" && account.balance == 10 && account.plan == "pro")
    }

    @Test func privateSettersTellReadersInOtherModules() {
        let account = Account()
        #expect(told(reading: { _ = account.visits }, writing: { account.visit(by: "Ada") }) == 1)
        #expect(told(reading: { _ = account.lastVisitor }, writing: { account.visit(by: "Bob") }) == 1)
        #expect(account.visits == 4 && account.lastVisitor == "Bob")
        // `owner`, `flags` (internal setters) and `shard` (a package getter) are readable here.
        #expect(account.owner == "" && account.flags == 0)
        #expect(account.privateState == [4, 4, 96, 1])
    }

    /// A property read but not written tells no one, whichever of its neighbours is written.
    @Test func eachPropertyIsTrackedOnItsOwn() {
        let account = Account()
        #expect(told(reading: { _ = account.visits }, writing: { account.name += "x" }) == 0)
        #expect(told(reading: { _ = account.name }, writing: { account.visit(by: "Ada") }) == 0)
    }

    @Test func finalAndInternalClassesWithPrivateSetters() {
        let profile = Profile()
        #expect(told(reading: { _ = profile.followers }, writing: { profile.follow() }) == 1)
        #expect(told(reading: { _ = profile.bio }, writing: { profile.bio = "hi" }) == 1)
        #expect(profile.followers == 2)
        #expect(internalModelsTell() == 2)
    }
}
