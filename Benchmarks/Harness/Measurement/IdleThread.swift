import Glibc

/// Keeps a second thread alive for the life of the process. While a process is single-threaded,
/// glibc elides the locking in pthread and stdio; contenders that use locks would then look faster
/// than they are in an app. The thread sleeps in `pause()` and never wakes.
public enum IdleThread {
    // nonisolated(unsafe): written only by `start()`, which runs on the main thread before any
    // measuring (documented precondition); no other code touches them.
    nonisolated(unsafe) private static var thread = pthread_t()
    nonisolated(unsafe) private static var started = false

    /// Starts the thread once. Call before measuring, from the main thread only.
    public static func start() {
        guard !started else { return }
        started = true
        pthread_create(
            &thread, nil,
            { _ in
                while true { pause() }
            }, nil)
    }
}
