import CKpc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A set of events counted on the thread that created it (`kp_thread_t`).
///
/// Make one with ``Sampler/counters(_:)``, then ``start()``, take ``sample()``s and subtract
/// them: values are running totals (never decreasing) of what the creating thread did while
/// started. ``stop()`` pauses the totals; ``start()`` resumes them.
///
/// **Thread rule.** A `Counters` counts only the OS thread that created it, and
/// ``start()``, ``stop()``, ``sample()``, ``sample(into:)`` and ``sampleFull()`` must be
/// called on that thread; from another thread they throw ``Status/wrongThread`` and do
/// nothing. In Swift concurrency an `await` may resume on another thread, so create and use
/// a `Counters` in synchronous code (or on a `Thread` you own). The type is deliberately not
/// `Sendable`.
///
/// **Ownership.** The object owns its `kp_thread_t` and frees it in `deinit`, which may run
/// on any thread (it stops counting first). It keeps its sampler's session alive: the
/// ``Sampler`` object may be deinitialized first and this object keeps counting. After
/// ``Sampler/release()``, however, sampling throws ``Status/badState``.
public final class Counters {
    /// The owned C handle.
    let raw: OpaquePointer

    /// The events of the set, in the order they were given (copies; see ``Event``).
    public let events: [Event]

    /// Number of events; the length of every sample.
    public var count: Int { events.count }

    /// The result of ``sampleFull()``.
    public struct FullSample: Equatable, Sendable {
        /// Running totals, in event order (as ``sample()``).
        public var values: [UInt64]
        /// Per event: `true` if it was on a counter the whole time it was enabled; `false` if
        /// the kernel multiplexed it, so its value covers only
        /// ``timeRunningNs`` of ``timeEnabledNs``.
        public var complete: [Bool]
        /// Nanoseconds the events were enabled; 0 when the backend does not measure it
        /// (Apple counters are never multiplexed).
        public var timeEnabledNs: UInt64
        /// Nanoseconds the events were on a counter; 0 likewise.
        public var timeRunningNs: UInt64
    }

    /// Creates the handle on the calling thread (`kp_thread_new`); see
    /// ``Sampler/counters(_:)`` for the errors.
    init(sampler: Sampler, names: [String]) throws {
        var handle: OpaquePointer?
        try check(withCStringArray(names) { kp_thread_new(&handle, sampler.raw, $0, $1) })
        guard let handle else {
            throw KpcError(status: .error, message: "kp_thread_new returned KP_OK without a handle")
        }
        raw = handle
        let n = kp_thread_event_count(handle)
        events = (0..<n).compactMap { kp_thread_event_at(handle, $0).map(Event.init(copying:)) }
    }

    deinit {
        kp_thread_free(raw)
    }

    /// Starts (or resumes) counting (`kp_thread_start`). Idempotent.
    ///
    /// - Throws: ``KpcError`` with ``Status/wrongThread`` (not the creating thread),
    ///   ``Status/badState`` (sampler released), ``Status/busy`` (Apple: another set of events
    ///   is counting, or another tool holds the counters), ``Status/permissionDenied``,
    ///   ``Status/unavailable`` (Apple: the kernel refused an event), ``Status/kernel``.
    public func start() throws {
        try check(kp_thread_start(raw))
    }

    /// Stops (pauses) counting (`kp_thread_stop`). Idempotent; totals stay readable.
    ///
    /// - Throws: ``KpcError`` with ``Status/wrongThread``, ``Status/kernel``.
    public func stop() throws {
        try check(kp_thread_stop(raw))
    }

    /// Whether counting is started. Any thread (but not concurrently with another call).
    public var isRunning: Bool { kp_thread_is_running(raw) != 0 }

    /// Reads the running totals, in event order, into a new array (`kp_thread_sample`).
    ///
    /// - Throws: ``KpcError`` with ``Status/wrongThread``, ``Status/badState`` (never
    ///   started, or sampler released), ``Status/kernel``; ``Status/partial`` when the kernel
    ///   multiplexed the handle's events: the values are partial (use ``sampleFull()`` for
    ///   the scaling times).
    public func sample() throws -> [UInt64] {
        var values = [UInt64](repeating: 0, count: events.count)
        try sample(into: &values)
        return values
    }

    /// Reads the running totals into the first ``count`` elements of `values`, without
    /// allocating: the array's existing storage is written in place (keep the array
    /// uniquely referenced so Swift does not copy it). Elements past ``count`` are left as
    /// they are.
    ///
    /// - Throws: ``KpcError`` with ``Status/bufferTooSmall`` (`values` is shorter than
    ///   ``count``; ``Status/invalidArgument`` if it is empty), ``Status/wrongThread``,
    ///   ``Status/badState``, ``Status/kernel``, ``Status/partial`` (as ``sample()``; the
    ///   partial values are written). On any other failure `values` is unspecified.
    public func sample(into values: inout [UInt64]) throws {
        let rc = values.withUnsafeMutableBufferPointer { buf in
            kp_thread_sample(raw, buf.baseAddress, buf.count)
        }
        try check(rc)
    }

    /// ``sample()`` plus, per event, whether it ran the whole time, and the enabled and
    /// running times (`kp_thread_sample_full`).
    ///
    /// - Throws: as ``sample()``, except ``Status/partial``: multiplexed events are reported
    ///   here in `complete` and the times.
    public func sampleFull() throws -> FullSample {
        let n = events.count
        var values = [UInt64](repeating: 0, count: n)
        var complete = [UInt8](repeating: 0, count: n)
        var enabled: UInt64 = 0
        var running: UInt64 = 0
        let rc = values.withUnsafeMutableBufferPointer { v in
            complete.withUnsafeMutableBufferPointer { c in
                kp_thread_sample_full(raw, v.baseAddress, c.baseAddress, n, &enabled, &running)
            }
        }
        try check(rc)
        return FullSample(values: values, complete: complete.map { $0 != 0 },
                          timeEnabledNs: enabled, timeRunningNs: running)
    }
}

/// `Counters` counts one OS thread and must be used on it: never send it elsewhere.
@available(*, unavailable, message: "Counters counts the thread that created it; use it there")
extension Counters: Sendable {}
