import CTrackingSupport
import Synchronization

// What a scope does to an object's observer state: installs its slots, publishes their properties
// and re-checks the write word, and empties them. The scopes decide what the slots hold
// (`TrackingScope.forEachSlot`); each registrar keeps them its own way (`_withObserverSlots`: the
// lock-free registrar's compare-and-swap on each slot, the locked one's lock around them all).
extension RegistrarObject {
    /// Installs the slots `TrackingScope.forEachSlot` makes of `entry` for the scope `record` in
    /// its incarnation `generation` (`straddling`: marked so), then publishes the properties and
    /// re-checks the write word against `version`, the word the read loaded, and the reader's own
    /// writes since (`_publishAndRecheck`). Returns how many slots it wrote, the first one (where
    /// the registrar hands slots out), and whether a write may have raced the read.
    @inline(__always)
    final func _installObservers(
        of entry: tracking_entry, record: UInt32, generation: UInt32, version: UInt64, ownWrites: UInt32,
        straddling: Bool
    ) -> (slots: Int, first: UnsafeMutablePointer<Atomic<UInt64>>?, changed: Bool) {
        _withObserverSlots { observers in
            var slots = 0
            var first: UnsafeMutablePointer<Atomic<UInt64>>?
            TrackingScope.forEachSlot(of: entry, record: record, generation: generation, straddling: straddling) {
                let slot = observers.insert($0)
                if slots == 0 { first = slot }
                slots += 1
            }
            let changed = _publishAndRecheck(
                mask: entry.mask, version: version, ownWrites: ownWrites, straddling: straddling)
            return (slots, first, changed)
        }
    }

    /// Empties the slots `_installObservers` wrote of `entry` for the scope, which holds them (no
    /// other thread claims, empties or rewrites them meanwhile). `slot`, when the entry had one
    /// slot, is where it was written.
    @inline(__always)
    final func _uninstallObservers(
        of entry: tracking_entry, record: UInt32, generation: UInt32, straddling: Bool,
        slot: UnsafeMutablePointer<Atomic<UInt64>>?
    ) {
        _withObserverSlots { observers in
            TrackingScope.forEachSlot(of: entry, record: record, generation: generation, straddling: straddling) {
                observers.remove($0, at: slot)
            }
        }
    }
}
