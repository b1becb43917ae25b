#ifndef C_LOCKED_TRACKING_H
#define C_LOCKED_TRACKING_H

#include <stdint.h>

#include "CTrackingSupport.h"

// Per-thread state of the locked registrar (`LockedObservation`), the lock-based ablation of the
// lock-free registrar. Its own thread-local, so that a run of one registrar never sees the other's
// reads: `_Thread_local` with the initial-exec model, one %fs-relative load to reach it. What both
// registrars share (the sentinel dependencies, the operations of a count of writes in flight, the
// test of a write word, the buffers' growth) is CTrackingSupport's.

/// A callback a write claimed: the scope (`_ScopeCore`, retained) and the phase word it claimed
/// (`_ScopeCore.phase`: its run).
typedef struct locked_claim {
    void *core;
    uint32_t phase;
} locked_claim;

/// The calling thread's state. Only its own thread touches it.
typedef struct locked_tracking_thread {
    void *run;                ///< The scope whose run is active on this thread (unretained), or NULL.
    locked_claim *pending;    ///< Callbacks claimed by a write on this thread, awaiting their start.
    intptr_t pendingCount;
    intptr_t pendingCapacity;
    /// The outermost `LockedScope` run's cursor over its last run's dependencies, as the lock-free
    /// registrar's `tracking_run`: the dependency at `cursor` is always readable (the list ends with
    /// a sentinel, and two precede it), and is a real one only in such a run. Outside one, and in a
    /// scope nested in one, `cursor` is a sentinel and `dependencyCount` 0.
    void *cursor;             ///< The dependency a read is expected to match next (`_Dependency`).
    void *dependencies;       ///< The list the cursor walks, or `tracking_no_dependencies_address()`.
    intptr_t dependencyCount; ///< Its length: 0 outside an outermost `LockedScope` run.
    intptr_t bitsRead;        ///< Properties the run read of kept dependencies beyond one per dependency kept.
    void *heldCursor;         ///< In a run that began with an observed write in flight: the cursor, held away from the getters (`cursor` is then the sentinel); otherwise null. As the lock-free registrar's `tracking_thread.heldCursor`.
    /// Objects (`LockedObject`, one retain each) the registrar let go of while a scope was running
    /// on this thread (a run's dropped dependencies, a cancelled scope's objects): released when
    /// the thread's outermost scope has ended (`_ScopeCore.releaseLater`), so that no deinit runs
    /// inside a run or its end.
    void **released;
    intptr_t releasedCount;
    intptr_t releasedCapacity;
} locked_tracking_thread;

/// Swift reads `locked_tracking_current.run` directly on every tracked get and set.
extern _Thread_local locked_tracking_thread locked_tracking_current __attribute__((tls_model("initial-exec")));

/// The calling thread's state.
static inline __attribute__((always_inline)) locked_tracking_thread *locked_tracking_state(void) {
    return &locked_tracking_current;
}

/// Observed writes in flight in the process, as the lock-free registrar's
/// `tracking_observed_writes_in_flight` (and with its operations: `tracking_write_count_begins`):
/// counted under the object's lock before its version word's increment, uncounted after its end.
/// Word 0; the rest pads its lines.
extern uint64_t locked_observed_writes_in_flight[16];

static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
void locked_observed_write_begins(void) {
    tracking_write_count_begins(&locked_observed_writes_in_flight[0]);
}

static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
void locked_observed_write_ends(void) {
    tracking_write_count_ends(&locked_observed_writes_in_flight[0]);
}

static inline __attribute__((always_inline)) __attribute__((swift_attr("@_effects(releasenone)")))
_Bool locked_observed_writes_are_in_flight(void) {
    return tracking_write_count_is_nonzero(&locked_observed_writes_in_flight[0]);
}

/// Grows `pending` to hold at least one more scope. Registers a thread-exit destructor on first use.
void locked_tracking_grow_pending(locked_tracking_thread *state);

/// Grows `released` to hold at least one more object, as `locked_tracking_grow_pending`.
void locked_tracking_grow_released(locked_tracking_thread *state);

// ThreadSanitizer and the locks. The stdlib's `Mutex` waits on a futex inside the Synchronization
// module, which is not instrumented: ThreadSanitizer sees the accesses a lock orders and not the
// lock, and reports them as races. These two tell it of each critical section: acquired right
// after the lock is taken, released right before it is given back, on an address that names the
// lock (`LockedObject._withObservers`, `_ScopeCore.withCallback`). They are defined in
// LockedTracking.c, which SwiftPM compiles with `-fsanitize=thread` under `--sanitize=thread`:
// there they call ThreadSanitizer, elsewhere they are empty. (Not inline here: the Swift
// compiler's clang importer parses this header without the sanitizer, so an inline test of
// `__has_feature(thread_sanitizer)` is always false for Swift callers.) Swift calls them in debug
// builds only (`_lockAcquired`): a release build has no call at all.
void locked_lock_acquired(void *lock);
void locked_lock_releasing(void *lock);

/// Whether this build's C target was compiled for ThreadSanitizer, so that the two above reach it
/// (tests).
_Bool locked_lock_is_visible_to_tsan(void);

#endif
