#ifndef C_PROCESS_H
#define C_PROCESS_H

// What a measuring child asks of the kernel that Swift cannot call (`prctl` is variadic).

/// Asks the kernel to kill the calling process (SIGKILL) when its parent dies, then checks that
/// the parent is still `expected_parent` (it may have died before the request). Returns 0 when
/// armed and the parent lives, 1 when the parent is already gone, -1 when the request failed.
/// Linux only; elsewhere returns -1 and does nothing.
int bench_die_with_parent(int expected_parent);

#endif
