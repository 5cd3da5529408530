import CKpc

/// A libkpc counting session (`kp_sampler_t`): one backend, the CPU it found, its event
/// database and, on Apple, ownership of the hardware counters. Create one per process and
/// make ``Counters`` from it.
///
/// **Ownership.** The sampler owns its `kp_sampler_t` and frees it in `deinit`. Counters
/// made from it keep the underlying session alive on their own, so the sampler may be
/// deinitialized before, after or while its counters are in use: they keep working.
///
/// **Threads.** Every method may be called from any thread, concurrently (libkpc makes the
/// sampler functions thread-safe, and `deinit` cannot race with a call because it runs only
/// once no reference is left); hence `Sendable`.
///
/// **Errors.** Throwing members throw ``KpcError``; the documentation of each lists the
/// statuses to expect.
public final class Sampler: @unchecked Sendable {
    /// Which backend a sampler loads (`kp_backend_t`).
    public enum Backend: Int32, Sendable {
        /// The `KPC_BACKEND` environment variable (`auto`, `kperf`, `perf_event`) if set,
        /// else the platform's own: kperf on macOS, perf_event on Linux.
        case auto = 0
        /// Apple's kperf.framework and kperfdata.framework, loaded with `dlopen`.
        case kperf = 1
        /// Linux `perf_event_open`.
        case perfEvent = 2
        /// macOS without root: the kernel's per-thread cycles and instructions (and P/E split).
        case recount = 3
    }

    /// The owned C handle.
    let raw: OpaquePointer

    /// Opens a session (`kp_sampler_new`).
    ///
    /// - Parameters:
    ///   - backend: the backend to load; `.auto` follows `KPC_BACKEND`, then the platform.
    ///   - kperfPath: path of the kperf framework binary; `nil` means `KPC_KPERF_PATH`, then
    ///     the system framework. Used by the kperf backend only; copied.
    ///   - kperfdataPath: path of the kperfdata framework binary; `nil` means
    ///     `KPC_KPERFDATA_PATH`, then the system framework. Copied.
    /// - Throws: ``KpcError`` with ``Status/invalidArgument`` (bad `KPC_BACKEND` value),
    ///   ``Status/unsupported`` (backend not built for this platform), ``Status/loadFailed``
    ///   (framework or symbol missing: the message names it), ``Status/layout``,
    ///   ``Status/framework``, ``Status/outOfMemory``.
    ///   Missing permission does not fail here; see ``access()``.
    public init(backend: Backend = .auto, kperfPath: String? = nil, kperfdataPath: String? = nil) throws {
        var options = kp_sampler_options_t()
        try check(kp_sampler_options_init(&options, UInt32(KP_SAMPLER_OPTIONS_VERSION)))
        options.backend = kp_backend_t(rawValue: numericCast(backend.rawValue))
        var handle: OpaquePointer?
        let rc = withOptionalCString(kperfPath) { kperf in
            withOptionalCString(kperfdataPath) { kperfdata in
                options.kperf_path = kperf
                options.kperfdata_path = kperfdata
                return kp_sampler_new(&handle, &options)
            }
        }
        // Still on the failing call's thread, with no libkpc call in between.
        try check(rc)
        guard let handle else {
            throw KpcError(status: .error, message: "kp_sampler_new returned KP_OK without a sampler")
        }
        raw = handle
    }

    deinit {
        kp_sampler_free(raw)
    }

    /// The backend in use.
    public var backend: Backend {
        Backend(rawValue: kp_sampler_backend(raw)) ?? .auto
    }

    /// The backend's name: `"kperf"`, `"perf_event"` or `"recount"`.
    public var backendName: String { String(cString: kp_sampler_backend_name(raw)) }

    /// Why the session uses its backend (`kp_sampler_backend_reason`), e.g. `"named by
    /// KPC_BACKEND"` or, on macOS, why recount was chosen instead of kperf.
    public var backendReason: String { String(cString: kp_sampler_backend_reason(raw)) }

    /// Machine-readable CPU / event-database identifier: the kpep database name on Apple
    /// (`"a14"`, `"as4"`, ...), `"<vendor>-<family>-<model>"` on Linux.
    public var cpuID: String { String(cString: kp_sampler_cpu_id(raw)) }

    /// Human CPU name: `"Apple M1"`, or the model name from `/proc/cpuinfo`.
    public var cpuName: String { String(cString: kp_sampler_cpu_name(raw)) }

    /// PMU description, e.g. `"Apple PMU (a14, M1 generation)"` or `"cpu"`; `"none"` when the
    /// machine has no usable hardware PMU.
    public var pmuName: String { String(cString: kp_sampler_pmu_name(raw)) }

    /// Number of hardware counters: fixed-function and programmable (`(0, 0)` without a PMU).
    ///
    /// - Throws: ``KpcError`` with ``Status/unsupported`` when the OS does not tell how many
    ///   there are (`kp_sampler_counter_count`'s `KP_EUNSUPPORTED`; the message says why): the
    ///   counts are then unknown, not zero.
    public var counterCounts: (fixed: Int, configurable: Int) {
        get throws {
            try Sampler.counterCounts { fixed, configurable in
                kp_sampler_counter_count(fixed, configurable, raw)
            }
        }
    }

    /// The counts `read` writes, or its failure thrown; a function of its own so that a test
    /// can answer as a machine whose counter count is unknown.
    static func counterCounts(
        _ read: (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>) -> Int32
    ) throws -> (fixed: Int, configurable: Int) {
        var fixed: UInt32 = 0
        var configurable: UInt32 = 0
        try check(read(&fixed, &configurable))
        return (Int(fixed), Int(configurable))
    }

    /// Checks whether this process may count hardware events now (`kp_sampler_access`).
    ///
    /// - Throws: ``KpcError`` with the status creating hardware ``Counters`` would fail with:
    ///   ``Status/permissionDenied`` (not root, or `perf_event_paranoid` too strict),
    ///   ``Status/busy`` (another tool holds the counters), ``Status/unsupported`` (no PMU),
    ///   ``Status/badState`` (the sampler was released). The message says what to do.
    public func access() throws {
        try check(kp_sampler_access(raw))
    }

    /// Gives the hardware counters back while keeping the event database readable
    /// (`kp_sampler_release`). Counting of every ``Counters`` made from this sampler stops,
    /// and later ``counters(_:)``, ``Counters/start()`` and ``Counters/sample()`` calls throw
    /// ``Status/badState``. Idempotent.
    ///
    /// - Throws: ``KpcError`` with ``Status/kernel`` if the OS refused to restore a setting;
    ///   the release takes effect anyway.
    public func release() throws {
        try check(kp_sampler_release(raw))
    }

    /// A snapshot of the event database, in database order. Each element is a copy
    /// (see ``Event``). The database grows when ``event(named:)`` adds a raw or PMU event.
    public var events: [Event] {
        let count = kp_sampler_event_count(raw)
        var result: [Event] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            if let e = kp_sampler_event_at(raw, index) {
                result.append(Event(copying: e))
            }
        }
        return result
    }

    /// Looks an event up by generic or native name (on Linux also `r<hex>` raw codes)
    /// (`kp_sampler_event_find`). Finding an event does not mean it can be counted: check
    /// ``Event/isAvailable``.
    ///
    /// - Returns: a copy of the event's information.
    /// - Throws: ``KpcError`` with ``Status/unknownEvent`` (the message repeats the name and
    ///   suggests close ones), ``Status/invalidArgument``, ``Status/outOfMemory``.
    public func event(named name: String) throws -> Event {
        var found: OpaquePointer?
        try check(kp_sampler_event_find(&found, raw, name))
        guard let found else {
            throw KpcError(status: .error, message: "kp_sampler_event_find returned KP_OK without an event")
        }
        return Event(copying: found)
    }

    /// Prepares `names` for counting on the **calling thread** (`kp_thread_new`). Counting
    /// begins at ``Counters/start()``. See ``Counters`` for the thread rule.
    ///
    /// - Parameter names: 1 to ``Event/maxPerHandle`` distinct event names, generic or native.
    /// - Returns: a new ``Counters`` that the caller owns (freed in its `deinit`).
    /// - Throws: ``KpcError`` with ``Status/invalidArgument`` (no names, more than ``Event/maxPerHandle``,
    ///   duplicates), ``Status/unknownEvent``, ``Status/unavailable`` (the event cannot be
    ///   counted here; the message names it), ``Status/conflict``, ``Status/permissionDenied``,
    ///   ``Status/busy``, ``Status/unsupported``, ``Status/badState`` (sampler released),
    ///   ``Status/kernel``, ``Status/framework``, ``Status/outOfMemory``.
    public func counters(_ names: [String]) throws -> Counters {
        try Counters(sampler: self, names: names)
    }
}

/// Calls `body` with a temporary C string for `string`, or with `nil`.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) throws -> R) rethrows -> R {
    guard let string else { return try body(nil) }
    return try string.withCString { try body($0) }
}
