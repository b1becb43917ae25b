#include "CTrackingSupport.h"

#include <pthread.h>
#include <stdlib.h>

// Every word before the sentinel is 1, so that each leading sentinel's key is 1, whatever a
// dependency's stride (at most 64 bytes).
uintptr_t tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_WORDS] = {
    [0 ... TRACKING_NO_DEPENDENCIES_OFFSET] = TRACKING_NO_OBJECT,
};

// Each thread starts outside any run: its cursor at the sentinel.
_Thread_local tracking_thread tracking_current __attribute__((tls_model("initial-exec"))) = {
    .run = {
        .dependencies = &tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_OFFSET],
        .cursor = &tracking_no_dependencies_region[TRACKING_NO_DEPENDENCIES_OFFSET],
    },
};

const uint64_t tracking_nothing_watched = 0;

uint32_t tracking_lanes_assigned = 0;

__attribute__((aligned(TRACKING_REGISTRAR_ALIGNMENT))) tracking_registrar tracking_lockfree = {{0}, NULL, NULL, {0}};

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

// The calling thread's states that hold buffers: one per registrar (the lock-free one's
// `tracking_current`, the locked one's), freed when the thread exits.
static _Thread_local tracking_thread *buffered_states[2];

static void release_thread_states(void *unused) {
    (void)unused;
    for (int i = 0; i < 2; i++) {
        tracking_thread *state = buffered_states[i];
        if (!state) continue;
        free(state->entries);
        free(state->pending);
        free(state->released);
        state->entries = 0;
        state->pending = 0;
        state->released = 0;
        state->releasedCapacity = 0;
        state->capacity = 0;
        state->pendingCapacity = 0;
        buffered_states[i] = 0;
    }
}

static void make_exit_key(void) { pthread_key_create(&exit_key, release_thread_states); }

static void register_exit_hook(tracking_thread *state) {
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, (void *)1);
    for (int i = 0; i < 2; i++) {
        if (buffered_states[i] == state) return;
        if (!buffered_states[i]) {
            buffered_states[i] = state;
            return;
        }
    }
    abort();  // a third registrar's state
}

void *tracking_grow_buffer(void *buffer, intptr_t *capacity, size_t element) {
    intptr_t next = *capacity < 16 ? 16 : *capacity * 2;
    void *grown = realloc(buffer, (size_t)next * element);
    if (!grown) abort();
    *capacity = next;
    return grown;
}

// Registers the exit hook with the first buffer a thread grows.
static int has_buffers(const tracking_thread *state) { return state->entries || state->pending || state->released; }

void tracking_grow_entries(tracking_thread *state) {
    if (!has_buffers(state)) register_exit_hook(state);
    state->entries = tracking_grow_buffer(state->entries, &state->capacity, sizeof(tracking_entry));
    // The list of objects let go of, with the first entries: a thread that tracks allocates both
    // before its first scope ends, not in a later operation.
    if (!state->released) tracking_grow_released(state);
}

void tracking_grow_pending(tracking_thread *state) {
    if (!has_buffers(state)) register_exit_hook(state);
    state->pending = tracking_grow_buffer(state->pending, &state->pendingCapacity, sizeof(uint32_t));
}

void tracking_grow_released(tracking_thread *state) {
    if (!has_buffers(state)) register_exit_hook(state);
    state->released = tracking_grow_buffer(state->released, &state->releasedCapacity, sizeof(void *));
}
