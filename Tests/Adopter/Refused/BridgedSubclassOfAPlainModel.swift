import AdopterModels
import LockFreeObservation

// Refused: Observation would never be told of `name`, which `PlainBase`'s accessors (not bridged)
// do not tell it of. scripts/test.sh builds this target (ADOPTER_REFUSED=1) and expects the error.
@TrackedModel final class BridgedSubclassOfAPlainModel: PlainBase, TrackedObservable {
    var age = 0
}
