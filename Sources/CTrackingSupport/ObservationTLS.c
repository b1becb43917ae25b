// Where Observation keeps its tracking (see `tracking_observation_word` in CTrackingSupport.h).
#define _GNU_SOURCE
#include "CTrackingSupport.h"

#include <pthread.h>
#include <stdlib.h>

#if defined(__linux__)
#include <dlfcn.h>
#endif

_Thread_local void *const *tracking_observation_word __attribute__((tls_model("initial-exec"))) = NULL;

void *const tracking_observation_always = (void *)&tracking_observation_always;

#if defined(__linux__)
static void *observation_library;
static pthread_once_t observation_library_once = PTHREAD_ONCE_INIT;

// The library is already loaded where a model conforms to `Observable`: RTLD_NOLOAD finds it and
// loads nothing. The handle is kept (its count keeps the library where it is).
// With LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL set, it is not looked for.
static void find_observation_library(void) {
    if (getenv("LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL")) return;
    observation_library = dlopen("libswiftObservation.so", RTLD_LAZY | RTLD_NOLOAD);
}

void *const *tracking_observation_block(void) {
    pthread_once(&observation_library_once, find_observation_library);
    if (!observation_library) return NULL;
    void *block = NULL;
    // The calling thread's block, or NULL while the thread has none yet (a library in dynamic
    // thread-local storage gets one at its first use on the thread).
    if (dlinfo(observation_library, RTLD_DI_TLS_DATA, &block) != 0) return NULL;
    return (void *const *)block;
}
#else
void *const *tracking_observation_block(void) { return NULL; }
#endif
