// Measuring a closure: what a benchmark or an XCTest wants from Counters in one call.

import CKpc

extension Counters {
    /// What an empty measured region costs each event, measured on this thread
    /// (`kp_thread_calibrate`): the smallest difference over `rounds` pairs of back-to-back
    /// samples (0 means 100). On Apple the fixed counters include each read's kernel work
    /// (about 17,700 instructions on an M4), which this captures.
    ///
    /// - Throws: ``KpcError`` with ``Status/badState`` (not started: a stopped handle's totals
    ///   do not move), ``Status/wrongThread``, ``Status/invalidArgument`` (more than
    ///   1,000,000 rounds), ``Status/kernel``, ``Status/partial`` (the events were
    ///   multiplexed: no offset is meaningful).
    public func calibrate(rounds: UInt32 = 0) throws -> [UInt64] {
        var offsets = [UInt64](repeating: 0, count: events.count)
        let rc = offsets.withUnsafeMutableBufferPointer { buf in
            kp_thread_calibrate(raw, buf.baseAddress, buf.count, rounds)
        }
        try check(rc)
        return offsets
    }

    /// Runs `body` between two samples on this thread and returns what each event counted,
    /// in event order. Starts the counters first if they are stopped (and leaves them
    /// started). With `subtractingOverhead`, each count is less the cost of an empty region
    /// (``calibrate(rounds:)``, measured once per call), never below 0.
    ///
    ///     let counters = try sampler.counters(["instructions", "branch-misses"])
    ///     let counts = try counters.measure(subtractingOverhead: true) { parse(input) }
    ///
    /// Counts only this thread: work `body` hands to other threads or tasks is not counted.
    /// - Throws: what ``start()``, ``calibrate(rounds:)`` and ``sample()`` throw, and
    ///   whatever `body` throws (the counters then stay started).
    public func measure(subtractingOverhead: Bool = false, _ body: () throws -> Void) throws
        -> [UInt64]
    {
        if !isRunning { try start() }
        let offsets = subtractingOverhead
            ? try calibrate() : [UInt64](repeating: 0, count: events.count)
        let before = try sample()
        try body()
        let after = try sample()
        return (0..<events.count).map { i in
            let delta = after[i] &- before[i]
            return delta > offsets[i] ? delta - offsets[i] : 0
        }
    }
}
