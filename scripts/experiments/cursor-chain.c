// What bounds a long run of kept reads (README, "Re-tracking, against publish-everything"): the
// loop a count view compiles to, over 100,000 objects, three ways, in C so that nothing else
// differs:
//   plain     the value loaded (what `naive`'s view does);
//   register  the kept read (`TrackedObject._keepReadInline`: key compared, watched properties and
//             the write word tested, the property read stored) with the cursor in a register;
//   tls       the same with the cursor in a thread-local, loaded and stored by each read, as a
//             getter must (each getter is its own inlined code; a call on its slow path keeps the
//             compiler from holding the cursor in a register across the loop).
// The difference between the last two is the cursor's store-to-load chain: each read's load of
// the cursor waits for the previous read's store.
//   cc -O2 scripts/experiments/cursor-chain.c -o /tmp/cursor-chain && /tmp/cursor-chain
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct { uintptr_t key; uint64_t mask, read, version; void *slot; uint64_t flags; } dependency;  // 48 bytes
typedef struct { uint64_t header[2], observed, writes, slots, id; uint8_t available; } object;

static __thread struct { long depth; dependency *cursor; } state __attribute__((tls_model("initial-exec")));

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

__attribute__((noinline)) static void slow_path(object *o) { __asm__ volatile("" ::"r"(o) : "memory"); }

#define KEEP(cursor)                                                                              \
    if (state.depth) {                                                                            \
        dependency *d = (cursor);                                                                 \
        if (d->key == (uintptr_t)o && (d->mask & 4)                                               \
            && !(*(volatile uint32_t *)&o->writes & 0xFFFFFF)) {                                  \
            d->read = 4;                                                                          \
            (cursor) = d + 1;                                                                     \
        } else {                                                                                  \
            slow_path(o);                                                                         \
        }                                                                                         \
    }

__attribute__((noinline)) static long count_tls(object **objects, long n) {
    long count = 0;
    for (long i = 0; i < n; i++) {
        object *o = objects[i];
        KEEP(state.cursor)
        count += o->available;
    }
    return count;
}

__attribute__((noinline)) static long count_register(object **objects, long n, dependency *cursor) {
    long count = 0;
    for (long i = 0; i < n; i++) {
        object *o = objects[i];
        KEEP(cursor)
        count += o->available;
    }
    state.cursor = cursor;
    return count;
}

__attribute__((noinline)) static long count_plain(object **objects, long n) {
    long count = 0;
    for (long i = 0; i < n; i++) count += objects[i]->available;
    return count;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    enum { n = 100000, rounds = 11, passes = 50 };
    object *storage = calloc(n, sizeof(object));
    object **objects = malloc(n * sizeof(object *));
    dependency *dependencies = calloc(n + 1, sizeof(dependency));
    for (long i = 0; i < n; i++) {
        objects[i] = &storage[i];
        storage[i].available = i % 10 != 0;
        dependencies[i].key = (uintptr_t)&storage[i];
        dependencies[i].mask = 4;
    }
    state.depth = 1;
    double t[3][rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int p = 0; p < passes; p++) { __asm__ volatile("" ::: "memory"); sink += count_plain(objects, n); }
        double t1 = now();
        for (int p = 0; p < passes; p++) { __asm__ volatile("" ::: "memory"); sink += count_register(objects, n, dependencies); }
        double t2 = now();
        for (int p = 0; p < passes; p++) { __asm__ volatile("" ::: "memory"); state.cursor = dependencies; sink += count_tls(objects, n); }
        double t3 = now();
        t[0][r] = (t1 - t0) / passes / n;
        t[1][r] = (t2 - t1) / passes / n;
        t[2][r] = (t3 - t2) / passes / n;
    }
    for (int k = 0; k < 3; k++) qsort(t[k], rounds, sizeof(double), compare);
    printf("ns per read, median of %d rounds of %d passes over %d objects (checksum %ld):\n", rounds, passes, n, sink);
    printf("  plain     %.2f\n  register  %.2f\n  tls       %.2f\n", t[0][rounds / 2], t[1][rounds / 2], t[2][rounds / 2]);
    return 0;
}
