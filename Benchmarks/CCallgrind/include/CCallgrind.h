#ifndef BENCH_CCALLGRIND_H
#define BENCH_CCALLGRIND_H

/// Callgrind client requests around the measured region of the instruction pass. Built from
/// valgrind's own header when it was installed at build time (Debian: `valgrind`); otherwise every
/// function is a no-op and `bench_callgrind_built` returns 0, so instruction counts are reported
/// as unavailable.

/// 1 when valgrind's client-request header was found at build time.
int bench_callgrind_built(void);
/// Non-zero when this process runs under valgrind.
int bench_running_on_valgrind(void);
/// Zeroes callgrind's counters and starts collecting (run with `--collect-atstart=no`).
void bench_callgrind_begin(void);
/// Stops collecting and dumps what was collected since `bench_callgrind_begin`, with `name` in the
/// dump's `desc: Trigger:` line.
void bench_callgrind_end(const char *name);

#endif
