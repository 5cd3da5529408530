#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A plain mutex (pthread), for the few places where libkpc hands out a borrowed pointer
/// that another thread's call on the same handle may invalidate before Swift has copied it.
/// The Kpc module does not import Foundation, so no `NSLock`.
final class Lock: @unchecked Sendable {
    // @unchecked: the mutex is the synchronisation; it lives at a fixed heap address, as
    // pthread requires, and is destroyed once in deinit.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held.
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
