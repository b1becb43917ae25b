#include "CLockedTracking.h"

#include <pthread.h>
#include <stdlib.h>

// The count in word 0; the rest pads its line and the next.
__attribute__((aligned(128))) uint64_t locked_observed_writes_in_flight[16] = {0};

// Each thread starts outside any run: its cursor at the sentinel (the lock-free registrar's, which
// no getter of either writes to: its key matches no object).
_Thread_local locked_tracking_thread locked_tracking_current __attribute__((tls_model("initial-exec"))) = {
    .cursor = &tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_OFFSET],
    .dependencies = &tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_OFFSET],
};

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

// Frees the calling thread's buffers when it exits (the argument is only the key's trigger).
static void release_thread_state(void *unused) {
    (void)unused;
    free(locked_tracking_current.pending);
    free(locked_tracking_current.released);
    locked_tracking_current.pending = 0;
    locked_tracking_current.pendingCapacity = 0;
    locked_tracking_current.released = 0;
    locked_tracking_current.releasedCapacity = 0;
}

static void make_exit_key(void) { pthread_key_create(&exit_key, release_thread_state); }

// Registers the exit destructor with the thread's first buffer.
static void register_exit(locked_tracking_thread *state) {
    if (!state->pending && !state->released) {
        pthread_once(&exit_key_once, make_exit_key);
        pthread_setspecific(exit_key, (void *)1);
    }
}

void locked_tracking_grow_pending(locked_tracking_thread *state) {
    register_exit(state);
    state->pending = tracking_grow_buffer(state->pending, &state->pendingCapacity, sizeof(locked_claim));
}

void locked_tracking_grow_released(locked_tracking_thread *state) {
    register_exit(state);
    state->released = tracking_grow_buffer(state->released, &state->releasedCapacity, sizeof(void *));
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LOCKED_TRACKING_TSAN 1
#endif
#endif

#ifdef LOCKED_TRACKING_TSAN
// From <sanitizer/tsan_interface.h>.
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

void locked_lock_acquired(void *lock) { __tsan_acquire(lock); }
void locked_lock_releasing(void *lock) { __tsan_release(lock); }
_Bool locked_lock_is_visible_to_tsan(void) { return 1; }
#else
void locked_lock_acquired(void *lock) { (void)lock; }
void locked_lock_releasing(void *lock) { (void)lock; }
_Bool locked_lock_is_visible_to_tsan(void) { return 0; }
#endif
