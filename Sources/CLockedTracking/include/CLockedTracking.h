#ifndef C_LOCKED_TRACKING_H
#define C_LOCKED_TRACKING_H

#include <stdint.h>

// Per-thread state of the locked registrar (`LockedObservation`), the lock-based ablation of the
// lock-free registrar. Its own thread-local, so that a run of one registrar never sees the other's
// reads: `_Thread_local` with the initial-exec model, one %fs-relative load to reach it.

/// The calling thread's state. Only its own thread touches it.
typedef struct locked_tracking_thread {
    void *run;                ///< The scope whose run is active on this thread (unretained), or NULL.
    void **pending;           ///< Scopes (retained) claimed by a write on this thread, awaiting their callbacks.
    intptr_t pendingCount;
    intptr_t pendingCapacity;
} locked_tracking_thread;

/// Swift reads `locked_tracking_current.run` directly on every tracked get and set.
extern _Thread_local locked_tracking_thread locked_tracking_current __attribute__((tls_model("initial-exec")));

/// The calling thread's state.
static inline __attribute__((always_inline)) locked_tracking_thread *locked_tracking_state(void) {
    return &locked_tracking_current;
}

/// Grows `pending` to hold at least one more scope. Registers a thread-exit destructor on first use.
void locked_tracking_grow_pending(locked_tracking_thread *state);

#endif
