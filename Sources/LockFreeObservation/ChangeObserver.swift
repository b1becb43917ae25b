/// An object a scope tells when one of the properties it read is about to change.
///
/// Conform a long-lived object (a view node, a logger) to observe without allocating a closure per
/// observation: ``withTracking(_:notifying:)``, ``observeChanges(_:notifying:)`` and
/// ``ReusableScope/init(notifying:)`` hold the observer until the observation ends.
///
/// The call comes synchronously on the writing thread, before the new value is stored (or, for a
/// scope that read while the write was under way, once it has stored; see
/// ``withTracking(_:onChange:)``). An observer is therefore called on whichever thread writes the
/// models it watches.
public protocol ChangeObserver: AnyObject {
    /// Called when a property the observation read is about to change.
    ///
    /// Runs on the writing thread, inside the write, with no lock held. It may read and write
    /// models (the property being written too), track, re-arm, run reusable scopes, cancel any
    /// observation and drop objects. The observer is called without a retain of its own: the
    /// observation holds it until after the call.
    func observedValueWillChange()
}
