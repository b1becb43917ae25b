#ifndef C_LOCKED_TRACKING_H
#define C_LOCKED_TRACKING_H

#include <stdint.h>

#include "CTrackingSupport.h"

// The locked registrar's (`LockedObservation`'s) own per-thread and process-wide words, the
// counterparts of the lock-free registrar's in CTrackingSupport, so that a run of one registrar
// never sees the other's reads. Their types, and every operation on them, are CTrackingSupport's.
// (The accessors' names differ from the lock-free registrar's: two inline functions of one name
// and two bodies cannot live in one program's modules.)

/// The calling thread's state, as `tracking_current`.
extern _Thread_local tracking_thread locked_tracking_current __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) tracking_thread *locked_thread_state(void) {
    return &locked_tracking_current;
}

/// Its process-wide words (`tracking_registrar`).
extern tracking_registrar locked_registrar_words;

static inline __attribute__((always_inline)) tracking_registrar *locked_registrar(void) {
    return &locked_registrar_words;
}

// ThreadSanitizer and the locks. The stdlib's `Mutex` waits on a futex inside the Synchronization
// module, which is not instrumented: ThreadSanitizer sees the accesses a lock orders and not the
// lock, and reports them as races. These two tell it of each critical section: acquired right
// after the lock is taken, released right before it is given back, on an address that names the
// lock (`LockedObject._withObservers`). They are defined in LockedTracking.c, which SwiftPM
// compiles with `-fsanitize=thread` under `--sanitize=thread`: there they call ThreadSanitizer,
// elsewhere they are empty. (Not inline here: the Swift compiler's clang importer parses this
// header without the sanitizer, so an inline test of `__has_feature(thread_sanitizer)` is always
// false for Swift callers.) Swift calls them in debug builds only (`_lockAcquired`): a release
// build has no call at all.
void locked_lock_acquired(void *lock);
void locked_lock_releasing(void *lock);

/// Whether this build's C target was compiled for ThreadSanitizer, so that the two above reach it
/// (tests).
_Bool locked_lock_is_visible_to_tsan(void);

#endif
