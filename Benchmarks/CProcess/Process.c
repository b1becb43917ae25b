#include "CProcess.h"

#if defined(__linux__)
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

int bench_die_with_parent(int expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // Re-parented already: the parent died between the spawn and the request.
    return getppid() == (pid_t)expected_parent ? 0 : 1;
}
#else
int bench_die_with_parent(int expected_parent) {
    (void)expected_parent;
    return -1;
}
#endif
