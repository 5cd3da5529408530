import XCTest
@testable import Kpc

/// Creating, using and freeing samplers and counters, in every order.
final class LifecycleTests: XCTestCase {
    func testVersionStringMatchesNumber() {
        let parts = Version.string.split(separator: ".").compactMap { Int($0) }
        XCTAssertEqual(parts.count, 3, "version string \(Version.string)")
        XCTAssertEqual(Version.number, parts[0] * 10000 + parts[1] * 100 + parts[2])
    }

    func testSamplerDescribesTheMachine() throws {
        let sampler = try perfEventSampler()
        XCTAssertEqual(sampler.backend, .perfEvent)
        XCTAssertEqual(sampler.backendName, "perf_event")
        XCTAssertFalse(sampler.cpuID.isEmpty)
        XCTAssertFalse(sampler.cpuName.isEmpty)
        XCTAssertFalse(sampler.pmuName.isEmpty)
        do {
            let counts = try sampler.counterCounts
            XCTAssertGreaterThanOrEqual(counts.fixed, 0)
            XCTAssertGreaterThanOrEqual(counts.configurable, 0)
        } catch let error as KpcError {
            XCTAssertEqual(error.status, .unsupported, "only an unknown count may throw: \(error)")
        }
        XCTAssertFalse(sampler.events.isEmpty)
    }

    /// An OS that does not tell its counter count (KP_EUNSUPPORTED): unknown is an error,
    /// never a made-up (0, 0) that reads as "no counters".
    func testUnknownCounterCountsThrowUnsupported() {
        XCTAssertThrowsError(try Sampler.counterCounts { fixed, configurable in
            fixed.pointee = 0
            configurable.pointee = 0
            return Status.unsupported.rawValue  // KP_EUNSUPPORTED
        }) { error in
            XCTAssertEqual((error as? KpcError)?.status, .unsupported, "\(error)")
        }
        let known = try? Sampler.counterCounts { fixed, configurable in
            fixed.pointee = 2
            configurable.pointee = 8
            return 0
        }
        XCTAssertEqual(known?.fixed, 2)
        XCTAssertEqual(known?.configurable, 8)
    }

    func testManyCreateStartStopCycles() throws {
        for round in 0..<50 {
            let sampler = try perfEventSampler()
            let counters = try sampler.counters(["task-clock", "page-faults"])
            XCTAssertFalse(counters.isRunning)
            try counters.start()
            XCTAssertTrue(counters.isRunning, "round \(round)")
            let v = try counters.sample()
            XCTAssertEqual(v.count, 2)
            try counters.stop()
            XCTAssertFalse(counters.isRunning, "round \(round)")
        }
    }

    func testCountersKeepWorkingAfterTheSamplerIsGone() throws {
        weak var weakSampler: Sampler?
        let counters: Counters = try {
            let sampler = try perfEventSampler()
            weakSampler = sampler
            return try sampler.counters(["page-faults"])
        }()
        XCTAssertNil(weakSampler, "the Sampler object should have been deinitialized (kp_sampler_free)")
        try counters.start()
        let before = try counters.sample()
        touchFreshPages(64)
        let after = try counters.sample()
        XCTAssertGreaterThanOrEqual(after[0] - before[0], 64,
                                    "counting must go on after the sampler is freed")
        XCTAssertEqual(counters.events.first?.name, "page-faults")
    }

    func testReleaseStopsCountersButKeepsTheDatabase() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock"])
        try counters.start()
        _ = try counters.sample()
        try sampler.release()
        try sampler.release()  // idempotent
        assertThrowsKpc(.badState, "sample after release") { try counters.sample() }
        assertThrowsKpc(.badState, "start after release") { try counters.start() }
        assertThrowsKpc(.badState, "access after release") { try sampler.access() }
        assertThrowsKpc(.badState, "counters after release") { try sampler.counters(["task-clock"]) }
        XCTAssertTrue(sampler.events.contains { $0.name == "task-clock" }, "the event database stays readable")
        XCTAssertEqual(try sampler.event(named: "task-clock").name, "task-clock")
    }

    func testSampleBeforeStartIsBadState() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock"])
        let error = assertThrowsKpc(.badState, "sample before start") { try counters.sample() }
        XCTAssertFalse(error?.message.isEmpty ?? true, "the message should say what to do")
    }

    func testCountersMayBeFreedOnAnotherThread() throws {
        let sampler = try perfEventSampler()
        weak var weakCounters: Counters?
        let box = Box<Counters?>(try sampler.counters(["task-clock"]))
        try box.value!.start()
        weakCounters = box.value
        // deinit (kp_thread_free) runs on the other thread; the C API allows any thread.
        _ = runOnNewThread { box.value = nil }
        XCTAssertNil(weakCounters)
        // The sampler is unaffected.
        let again = try sampler.counters(["task-clock"])
        try again.start()
        XCTAssertEqual(try again.sample().count, 1)
    }

    func testBadEventListsAreInvalidArguments() throws {
        let sampler = try perfEventSampler()
        assertThrowsKpc(.invalidArgument, "no events") { try sampler.counters([]) }
        assertThrowsKpc(.invalidArgument, "duplicate events") { try sampler.counters(["task-clock", "task-clock"]) }
        let many = (0..<33).map { "event-\($0)" }
        assertThrowsKpc(.invalidArgument, "33 events") { try sampler.counters(many) }
    }

    func testMissingFrameworkIsLoadFailed() throws {
        let path = "/nonexistent/kperf.framework/kperf"
        let error = assertThrowsKpc(.loadFailed, "kperf backend with a missing framework") {
            try Sampler(backend: .kperf, kperfPath: path, kperfdataPath: "/nonexistent/kperfdata")
        }
        XCTAssertTrue(error?.message.contains(path) ?? false, "message should name the path: \(error?.message ?? "")")
    }
}
