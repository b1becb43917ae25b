// Where Observation keeps its tracking (see `tracking_observation_word` in CTrackingSupport.h).
#define _GNU_SOURCE
#include "CTrackingSupport.h"

#include <pthread.h>
#include <stdlib.h>

// The direct read needs glibc's `dlinfo(…, RTLD_DI_TLS_DATA, …)` (glibc 2.4 and later; an enum
// constant, which the preprocessor cannot see): musl (the static Linux SDK) has no
// RTLD_DI_TLS_DATA and Android's libc no `dlinfo`. Elsewhere no block is found, and every bridged
// read goes to Observation's registrar.
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 4))
#define TRACKING_OBSERVATION_DIRECT_READ 1
#include <dlfcn.h>
#endif

_Thread_local void *const *tracking_observation_word __attribute__((tls_model("initial-exec"))) = NULL;

// Its own address: non-null, and where it is for the life of the process.
void *const tracking_observation_always = (void *)&tracking_observation_always;

void *const *tracking_observation_always_address(void) { return &tracking_observation_always; }

#if defined(TRACKING_OBSERVATION_DIRECT_READ)
static void *observation_library;
static pthread_once_t observation_library_once = PTHREAD_ONCE_INIT;

// The library is already loaded where a model conforms to `Observable`: RTLD_NOLOAD finds it and
// loads nothing. The handle is kept (its count keeps the library where it is). In a binary linked
// with the standard library statically there is no such library: no block is found.
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

_Bool tracking_observation_block_is_supported(void) { return 1; }
#else
void *const *tracking_observation_block(void) { return NULL; }

_Bool tracking_observation_block_is_supported(void) { return 0; }
#endif
