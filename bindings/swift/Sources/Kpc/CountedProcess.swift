import CKpc

/// A set of events counted for a whole process (`kp_process_t`): every thread of it, and on
/// Linux the threads and processes it starts (``scopes`` says what each event covers).
///
/// Make one with ``spawn(_:events:sampler:options:)`` (a command, counted from its exec),
/// ``attach(pid:events:sampler:options:)`` (a running process; pid 0, the default, is this
/// one: every thread of it, including threads started later) or
/// ``countSystemWide(events:sampler:options:)`` (every CPU). Counting runs from then on;
/// ``stop()`` pauses and ``start()`` resumes. ``readThreads()`` splits the totals by thread.
///
/// ```swift
/// let sampler = try Sampler()
/// let make = try CountedProcess.spawn(["make", "-j8"], events: ["task-clock", "page-faults"],
///                                     sampler: sampler)
/// let exit = try make.wait()        // ExitStatus(exitCode: 0, signal: 0)
/// let totals = try make.read()      // readable after the command ended
/// ```
///
/// **Threads.** Unlike ``Counters``, a `CountedProcess` is not tied to a thread: every
/// method may be called from any thread (it is `Sendable`), and one thread may ``wait()``
/// while others ``read()``, ``stop()`` or ``start()``.
///
/// **Ownership.** The object owns its `kp_process_t` and frees it in `deinit`; a spawned
/// command that has not been waited for is killed (SIGKILL) and reaped then, so no process
/// or zombie outlives it. An attached process keeps running, no longer counted. It keeps its
/// sampler's session alive.
public final class CountedProcess: @unchecked Sendable {
    // @unchecked: kpc/process.h lets every kp_process_* function run on any thread, and
    // serializes calls on one handle itself; only kp_process_free must not race, and deinit
    // runs once no reference is left.

    /// What one event covers (`kp_process_scope_t`).
    public enum Scope: Int32, Sendable {
        /// Linux: the process, all its threads, and the threads and processes it creates
        /// while counted.
        case tree = 0
        /// Apple recount: the process and its threads, not the processes it starts.
        case process = 1
        /// Every CPU of the machine, so everything else that ran meanwhile too:
        /// ``countSystemWide(events:sampler:options:)``, and any process on Apple kperf.
        case system = 2
    }

    /// How a spawned command ended (``wait()``).
    public struct ExitStatus: Equatable, Sendable, CustomStringConvertible {
        /// The exit status (0-255) if the command exited; -1 if a signal killed it.
        public var exitCode: Int32
        /// The signal that killed it; 0 if it exited.
        public var signal: Int32
        /// Whether the command exited with status 0.
        public var isSuccess: Bool { exitCode == 0 && signal == 0 }
        /// "exit status N" or "signal N".
        public var description: String { signal != 0 ? "signal \(signal)" : "exit status \(exitCode)" }
    }

    /// How to count (`kp_process_options_t`), for ``spawn(_:events:sampler:options:)``,
    /// ``attach(pid:events:sampler:options:)`` and ``countSystemWide(events:sampler:options:)``.
    /// The default counts every event or fails, with no groups.
    public struct Options: Equatable, Sendable {
        /// `KP_PROCESS_PARTIAL`: an event that cannot be counted here (not on this machine,
        /// or the backend refused it) does not fail the call; it reads 0 and
        /// ``eventStatus(_:)`` says why. The call still fails when none can be counted
        /// (except that a set known to be entirely unavailable runs the command uncounted).
        public var partial: Bool
        /// `nil`, or one entry per event: its group number (0 or more), or -1 for none. The
        /// events of one group are scheduled on the PMU together, so they count over the
        /// same time (Linux: one perf_event group; Apple never multiplexes). A number below
        /// -1 is refused with ``Status/invalidArgument``, and so is a list whose length is
        /// not the number of events.
        public var groups: [Int32]?

        public init(partial: Bool = false, groups: [Int32]? = nil) {
            self.partial = partial
            self.groups = groups
        }

        /// Calls `body` with the C options (borrowing `groups` for the call only, as
        /// libkpc reads them during the call and keeps nothing).
        func withC<R>(eventCount: Int, _ body: (UnsafePointer<kp_process_options_t>) throws -> R) throws -> R {
            var c = kp_process_options_t()
            try check(kp_process_options_init(&c, UInt32(KP_PROCESS_OPTIONS_VERSION)))
            if partial {
                c.flags |= UInt32(KP_PROCESS_PARTIAL)
            }
            guard let groups else {
                return try body(&c)
            }
            // libkpc reads one entry per event: a shorter array would be read past its end.
            guard groups.count == eventCount else {
                throw KpcError(status: .invalidArgument,
                               message: "Options.groups has \(groups.count) entries for \(eventCount) events: "
                                   + "give one per event (its group number, or -1 for none)")
            }
            return try groups.withUnsafeBufferPointer { g in
                c.groups = g.baseAddress
                return try body(&c)
            }
        }
    }

    /// One row of ``readThreads()`` (`kp_process_read_thread`): what one thread counted,
    /// plus the threads and processes it created while counted.
    public struct ThreadReading: Equatable, Sendable {
        /// The thread's id (Linux `gettid()`).
        public var tid: Int32
        /// Running totals, in event order; 0 for an event that is not counted.
        public var values: [UInt64]
        /// `false` for an event the kernel multiplexed on this thread, or one not counted.
        public var complete: [Bool]
    }

    /// The result of ``readFull()``; every array is in event order.
    public struct FullReading: Equatable, Sendable {
        /// Running totals (as ``read()``).
        public var values: [UInt64]
        /// `false` for an event the kernel multiplexed: its value then covers only
        /// `timeRunningNs[i]` of `timeEnabledNs[i]`; also on Apple's recount backend when an
        /// attached process was reaped before its final totals were read (the last read).
        public var complete: [Bool]
        /// Nanoseconds each event was enabled, summed over the threads it counted (so it can
        /// exceed the wall-clock time); 0 when the backend does not measure it (Apple).
        public var timeEnabledNs: [UInt64]
        /// Nanoseconds each event was on a counter, summed likewise; 0 likewise.
        public var timeRunningNs: [UInt64]
    }

    /// The owned C handle.
    let raw: OpaquePointer
    /// Held around the reads and ``eventStatus(_:)``: the reason text libkpc lends is valid
    /// only until the handle's next read, so a read on another thread must not run while it
    /// is copied. (``wait()``, start and stop do not touch it.)
    private let readLock = Lock()

    /// The events, in the order they were given (copies; see ``Event``).
    public let events: [Event]
    /// What each event covers, in event order; `nil` for a scope this binding does not
    /// know yet (a newer libkpc).
    public let scopes: [Scope?]
    /// The counted process's id (this process's own for an attach with pid 0); -1 when
    /// counting system-wide.
    public let pid: Int32

    private init(raw: OpaquePointer) {
        self.raw = raw
        let n = kp_process_event_count(raw)
        events = (0..<n).compactMap { kp_process_event_at(raw, $0).map(Event.init(copying:)) }
        scopes = (0..<n).map { Scope(rawValue: kp_process_event_scope(raw, $0)) }
        pid = kp_process_pid(raw)
    }

    private static func wrap(_ handle: OpaquePointer?, _ function: String) throws -> CountedProcess {
        guard let handle else {
            throw KpcError(status: .error, message: "\(function) returned KP_OK without a handle")
        }
        return CountedProcess(raw: handle)
    }

    /// Starts `command` (the program, looked up in PATH, then its arguments) and counts
    /// `events` in it from its exec on (`kp_process_spawn_ex`; with the default `options`,
    /// exactly `kp_process_spawn`). Returns once the command runs; it inherits this
    /// process's environment, working directory and file descriptors not marked
    /// close-on-exec. Wait for it with ``wait()``; do not reap it otherwise.
    ///
    /// With `Options(partial: true)`, events that cannot be counted read 0 and
    /// ``eventStatus(_:)`` says why, instead of failing the call.
    ///
    /// - Throws: ``KpcError`` with ``Status/invalidArgument`` (an empty command, a bad
    ///   event list, or a command that cannot be run: the message names the program and the
    ///   exec error, ``KpcError/osCode`` its errno), ``Status/unknownEvent``,
    ///   ``Status/unavailable``, ``Status/permissionDenied``, ``Status/busy``,
    ///   ``Status/unsupported``, ``Status/badState`` (sampler released), ``Status/kernel``,
    ///   ``Status/framework``, ``Status/outOfMemory``; ``Status/conflict`` (a group member
    ///   on another PMU than its group); ``Status/invalidArgument`` for bad `options`.
    public static func spawn(_ command: [String], events: [String], sampler: Sampler,
                             options: Options = Options()) throws -> CountedProcess {
        var handle: OpaquePointer?
        try withCStringArray(events) { names, count in
            try withCStringArray(command) { argv, argc in
                try options.withC(eventCount: count) { opts in
                    // An empty command reaches libkpc as NULL, which it rejects (invalidArgument).
                    try check(kp_process_spawn_ex(&handle, sampler.raw, names, count, argc > 0 ? argv : nil, opts))
                }
            }
        }
        return try wrap(handle, "kp_process_spawn_ex")
    }

    /// Counts `events` in the running process `pid`, and the threads and processes it
    /// creates, from now on (`kp_process_attach_ex`); pid 0 is this process. `options` as
    /// for ``spawn(_:events:sampler:options:)`` (a group is one perf_event group per
    /// counted thread). To count every CPU, use ``countSystemWide(events:sampler:options:)``.
    ///
    /// - Throws: ``KpcError`` with ``Status/invalidArgument`` (no such process:
    ///   ``KpcError/osCode`` is ESRCH; a negative pid; a bad event list; bad `options`),
    ///   ``Status/permissionDenied`` (not allowed to count it: the message says what to
    ///   change; Apple recount: it runs as another user), ``Status/unsupported`` (the backend
    ///   cannot count a process, e.g. recount's cycles in a macOS VM), ``Status/unknownEvent``,
    ///   ``Status/unavailable``, ``Status/busy``, ``Status/badState``, ``Status/kernel``
    ///   (too many open files: one per thread and event), ``Status/framework``,
    ///   ``Status/outOfMemory``, ``Status/conflict``.
    public static func attach(pid: Int32 = 0, events: [String], sampler: Sampler,
                              options: Options = Options()) throws -> CountedProcess {
        // kp_process_attach_ex reads -1 as "every CPU"; here a negative pid is a mistake.
        guard pid >= 0 else {
            throw KpcError(status: .invalidArgument,
                           message: "attach(pid: \(pid)): a pid is 0 (this process) or positive; "
                               + "to count every CPU use CountedProcess.countSystemWide(events:sampler:)")
        }
        return try attachEx(pid: pid, events: events, sampler: sampler, options: options)
    }

    /// Counts `events` on every CPU, whatever runs there, from now on (`kp_process_attach_ex`
    /// with `KP_PROCESS_SYSTEM_WIDE`). Every event's scope is ``Scope/system``, ``pid`` is
    /// -1, ``wait()`` throws ``Status/badState`` and ``threadCount`` is 0.
    ///
    /// Linux: one counter per online CPU and event; allowed to root, to a process with
    /// CAP_PERFMON, or with `kernel.perf_event_paranoid` <= 0. Apple: kperf counts every CPU
    /// anyway (root); the recount backend cannot.
    ///
    /// - Throws: ``KpcError`` with ``Status/permissionDenied`` (not allowed: the message
    ///   names the setting), ``Status/unsupported`` (Apple's recount backend), and the
    ///   errors of ``attach(pid:events:sampler:options:)``.
    public static func countSystemWide(events: [String], sampler: Sampler,
                                       options: Options = Options()) throws -> CountedProcess {
        try attachEx(pid: KP_PROCESS_SYSTEM_WIDE, events: events, sampler: sampler, options: options)
    }

    private static func attachEx(pid: Int32, events: [String], sampler: Sampler,
                                 options: Options) throws -> CountedProcess {
        var handle: OpaquePointer?
        try withCStringArray(events) { names, count in
            try options.withC(eventCount: count) { opts in
                try check(kp_process_attach_ex(&handle, sampler.raw, names, count, pid, opts))
            }
        }
        return try wrap(handle, "kp_process_attach_ex")
    }

    deinit {
        kp_process_free(raw)
    }

    /// Resumes counting after ``stop()`` (`kp_process_start`). Idempotent.
    ///
    /// - Throws: ``KpcError`` with ``Status/badState`` (sampler released),
    ///   ``Status/permissionDenied`` (recount: the process now runs as another user),
    ///   ``Status/busy`` (Apple kperf), ``Status/kernel``.
    public func start() throws {
        try check(kp_process_start(raw))
    }

    /// Pauses counting in every thread and child of the process (`kp_process_stop`); the
    /// totals stay readable. Idempotent.
    ///
    /// - Throws: ``KpcError`` with ``Status/kernel``; on recount ``Status/permissionDenied``
    ///   or ``Status/kernel`` when the totals could not be read at the stop (it stops anyway,
    ///   keeping the totals last read, not complete).
    public func stop() throws {
        try check(kp_process_stop(raw))
    }

    /// Whether counting is on (made, and not stopped).
    public var isCounting: Bool { kp_process_is_counting(raw) != 0 }

    /// The running totals, in event order (`kp_process_read`): while the process runs, and
    /// after it ends (they then stay as they were at its end; on Apple's recount backend, an
    /// attached process that its parent reaped before its final totals were read keeps the
    /// totals last read, and ``readFull()`` reports them not complete).
    ///
    /// - Throws: ``KpcError`` with ``Status/badState`` (sampler released),
    ///   ``Status/permissionDenied`` (recount: the process runs as another user, e.g. a
    ///   setuid command), ``Status/kernel``.
    public func read() throws -> [UInt64] {
        var values = [UInt64](repeating: 0, count: events.count)
        try readLock.withLock {
            try check(values.withUnsafeMutableBufferPointer { kp_process_read(raw, $0.baseAddress, $0.count) })
        }
        return values
    }

    /// ``read()`` plus, per event, whether it was multiplexed and its enabled and running
    /// times (`kp_process_read_full`).
    ///
    /// - Throws: as ``read()``.
    public func readFull() throws -> FullReading {
        let n = events.count
        var values = [UInt64](repeating: 0, count: n)
        var complete = [UInt8](repeating: 0, count: n)
        var enabled = [UInt64](repeating: 0, count: n)
        var running = [UInt64](repeating: 0, count: n)
        try readLock.withLock {
            try check(values.withUnsafeMutableBufferPointer { v in
                complete.withUnsafeMutableBufferPointer { c in
                    enabled.withUnsafeMutableBufferPointer { e in
                        running.withUnsafeMutableBufferPointer { r in
                            kp_process_read_full(raw, v.baseAddress, c.baseAddress, n, e.baseAddress, r.baseAddress)
                        }
                    }
                }
            })
        }
        return FullReading(values: values, complete: complete.map { $0 != 0 },
                           timeEnabledNs: enabled, timeRunningNs: running)
    }

    /// Number of per-thread rows ``readThread(_:)`` has (`kp_process_thread_count`), fixed
    /// when the handle was made: Linux, an attached process: one per thread it had then; a
    /// spawned command: 1 (its first thread, which every other descends from); 0
    /// system-wide and on Apple.
    public var threadCount: Int { kp_process_thread_count(raw) }

    /// Per-thread row `index` (`kp_process_read_thread`): what that thread counted plus the
    /// threads and processes it created while counted. A thread that has ended keeps its
    /// final totals. The rows add up to ``read()`` for events counted on every thread.
    ///
    /// - Throws: ``KpcError`` with ``Status/invalidArgument`` (`index` out of range),
    ///   ``Status/badState`` (sampler released), ``Status/kernel``.
    public func readThread(_ index: Int) throws -> ThreadReading {
        guard index >= 0 else {
            throw KpcError(status: .invalidArgument, message: "thread row \(index) is negative")
        }
        let n = events.count
        var tid: Int32 = 0
        var values = [UInt64](repeating: 0, count: n)
        var complete = [UInt8](repeating: 0, count: n)
        try readLock.withLock {
            try check(values.withUnsafeMutableBufferPointer { v in
                complete.withUnsafeMutableBufferPointer { c in
                    kp_process_read_thread(raw, index, &tid, v.baseAddress, c.baseAddress, n)
                }
            })
        }
        return ThreadReading(tid: tid, values: values, complete: complete.map { $0 != 0 })
    }

    /// Every per-thread row, ``readThread(_:)`` for 0 ..< ``threadCount``. Each row is read
    /// separately: for rows that add up exactly, ``stop()`` first.
    public func readThreads() throws -> [ThreadReading] {
        try (0..<threadCount).map { try readThread($0) }
    }

    /// Whether event `index` is counted (`kp_process_event_status`): `nil` when it is,
    /// else a ``KpcError`` whose ``KpcError/status`` is the code it failed with (e.g.
    /// ``Status/unavailable``: this machine cannot count it) and whose
    /// ``KpcError/message`` says why, naming the fix where there is one. As known at the
    /// handle's creation or its last read (some backends learn of a failure only when
    /// reading). Without ``Options/partial`` every event is counted.
    ///
    /// - Throws: ``KpcError`` with ``Status/invalidArgument`` when `index` is out of range.
    public func eventStatus(_ index: Int) throws -> KpcError? {
        guard index >= 0 else {
            throw KpcError(status: .invalidArgument, message: "event index \(index) is negative")
        }
        var status: Int32 = 0
        var reason: UnsafePointer<CChar>?
        return try readLock.withLock {
            try check(kp_process_event_status(raw, index, &status, &reason))
            // Copied under the lock: the text is the handle's, valid until its next read.
            return status == 0 ? nil : KpcError(code: status, message: optionalString(reason) ?? "")
        }
    }

    /// ``eventStatus(_:)`` of every event, in event order.
    public func eventStatuses() throws -> [KpcError?] {
        try events.indices.map { try eventStatus($0) }
    }

    /// Waits for a spawned command to end and reaps it (`kp_process_wait`); once it has,
    /// returns the same result at once. Counting is left as it is: read the totals
    /// afterwards. Blocks the calling thread (not a Swift concurrency executor's: call it
    /// from a `Thread` or a detached task you can afford to block).
    ///
    /// - Throws: ``KpcError`` with ``Status/badState`` (an attached process or system-wide
    ///   counting, which libkpc did not start; or someone else reaped the command),
    ///   ``Status/kernel``.
    public func wait() throws -> ExitStatus {
        var code: Int32 = -1
        var signal: Int32 = 0
        try check(kp_process_wait(raw, &code, &signal))
        return ExitStatus(exitCode: code, signal: signal)
    }
}
