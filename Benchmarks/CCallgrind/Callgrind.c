#include "CCallgrind.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#else
#define BENCH_HAVE_CALLGRIND 0
#endif

int bench_callgrind_built(void) { return BENCH_HAVE_CALLGRIND; }

int bench_running_on_valgrind(void) {
#if BENCH_HAVE_CALLGRIND
    return RUNNING_ON_VALGRIND;
#else
    return 0;
#endif
}

void bench_callgrind_begin(void) {
#if BENCH_HAVE_CALLGRIND
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
#endif
}

void bench_callgrind_end(const char *name) {
#if BENCH_HAVE_CALLGRIND
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(name);
#else
    (void)name;
#endif
}
