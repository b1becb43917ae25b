import Glibc

/// Starts a second thread that only sleeps, as every timing of the suite has: glibc takes its lock
/// paths only when the process has more than one thread. (Outside `main.swift`, so that its body
/// is not isolated to the main actor.)
func startIdleThread() {
    var thread = pthread_t()
    pthread_create(
        &thread, nil,
        { _ in
            while true { sleep(1000) }
        }, nil)
}
