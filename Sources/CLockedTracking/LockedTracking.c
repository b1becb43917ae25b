#include "CLockedTracking.h"

#include <stddef.h>

__attribute__((aligned(TRACKING_REGISTRAR_ALIGNMENT))) tracking_registrar locked_registrar_words = {{0}, NULL, NULL, {0}};

// Each thread starts outside any run: its cursor at the sentinel (the lock-free registrar's, which
// no getter of either writes to: its key matches no object). Its buffers grow, and are freed when
// the thread exits, as the lock-free registrar's (`tracking_grow_entries`).
_Thread_local tracking_thread locked_tracking_current __attribute__((tls_model("initial-exec"))) = {
    .run = {
        .dependencies = &tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_OFFSET],
        .cursor = &tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_OFFSET],
    },
};


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
