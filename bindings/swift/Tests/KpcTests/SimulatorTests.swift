import Foundation
import XCTest
@testable import Kpc

/// The kperf backend against the kperf simulator (tests/kperf_sim), which stands in for
/// Apple's private frameworks on Linux. Runs only when KPC_BACKEND=kperf and
/// KPC_KPERF_PATH / KPC_KPERFDATA_PATH name the simulator libraries, as CTest's
/// swift_kperf_sim test sets them; skipped otherwise (with the reason).
final class SimulatorTests: XCTestCase {
    private var kperfPath = ""
    private var kperfdataPath = ""

    override func setUpWithError() throws {
        let env = ProcessInfo.processInfo.environment
        guard env["KPC_BACKEND"] == "kperf" else {
            throw XCTSkip("simulator tests need KPC_BACKEND=kperf (set by ctest -R swift_kperf_sim); "
                + "KPC_BACKEND is \(env["KPC_BACKEND"].map { "'\($0)'" } ?? "unset")")
        }
        guard let kperf = env["KPC_KPERF_PATH"], !kperf.isEmpty,
              let kperfdata = env["KPC_KPERFDATA_PATH"], !kperfdata.isEmpty else {
            throw XCTSkip("simulator tests need KPC_KPERF_PATH and KPC_KPERFDATA_PATH naming "
                + "libkperf_sim.so and libkperfdata_sim.so (built by the CMake build)")
        }
        for path in [kperf, kperfdata] where !FileManager.default.fileExists(atPath: path) {
            // The environment asks for the simulator, so a missing library is a failure,
            // not a reason to skip.
            throw KpcError(status: .loadFailed,
                           message: "simulator library \(path) does not exist: build the CMake project first")
        }
        kperfPath = kperf
        kperfdataPath = kperfdata
    }

    func testTheEnvironmentSelectsTheSimulator() throws {
        let sampler = try Sampler()  // everything from the environment, as for a user
        XCTAssertEqual(sampler.backend, .kperf)
        XCTAssertEqual(sampler.backendName, "kperf")
        let chip = ProcessInfo.processInfo.environment["KPSIM_DB"] ?? "a14"
        if chip == "a14" {
            XCTAssertEqual(sampler.cpuName, "Apple M1")
            XCTAssertEqual(sampler.cpuID, "a14")
        } else {
            XCTAssertTrue(sampler.cpuName.hasPrefix("Apple"), sampler.cpuName)
        }
        XCTAssertTrue(sampler.pmuName.contains("Apple"), sampler.pmuName)
        let counts = try sampler.counterCounts
        XCTAssertEqual(counts.fixed, 2)
        XCTAssertGreaterThan(counts.configurable, 0)
        XCTAssertNoThrow(try sampler.access(), "the simulator runs as root by default")
    }

    func testExplicitPathsSelectTheSimulator() throws {
        let sampler = try Sampler(backend: .kperf, kperfPath: kperfPath, kperfdataPath: kperfdataPath)
        XCTAssertEqual(sampler.backendName, "kperf")
        let cycles = try sampler.event(named: "cycles")
        XCTAssertEqual(cycles.kind, .fixed)
        XCTAssertTrue(cycles.isAvailable)
        XCTAssertNotNil(cycles.fixedCounter)
        XCTAssertFalse(cycles.nativeName.isEmpty)
    }

    func testCyclesAndInstructionsGrowWithWork() throws {
        let sampler = try Sampler(backend: .kperf, kperfPath: kperfPath, kperfdataPath: kperfdataPath)
        let counters = try sampler.counters(["cycles", "instructions"])
        try counters.start()
        let t0 = try counters.sample()
        burnCPU(nanoseconds: 5_000_000)
        let t1 = try counters.sample()
        burnCPU(nanoseconds: 40_000_000)
        let t2 = try counters.sample()
        let small = delta(t1, t0)
        let large = delta(t2, t1)
        for i in 0..<2 {
            let name = counters.events[i].name
            XCTAssertGreaterThan(small[i], 0, "\(name) counted nothing")
            XCTAssertGreaterThan(large[i], small[i], "\(name): 40 ms of work must count more than 5 ms")
        }
        try counters.stop()
    }

    func testSoftwareEventsAreUnavailable() throws {
        let sampler = try Sampler(backend: .kperf, kperfPath: kperfPath, kperfdataPath: kperfdataPath)
        let taskClock = try sampler.event(named: "task-clock")
        XCTAssertFalse(taskClock.isAvailable)
        XCTAssertNotNil(taskClock.unavailableReason)
        let error = assertThrowsKpc(.unavailable, "task-clock on kperf") { try sampler.counters(["task-clock"]) }
        XCTAssertTrue(error?.message.contains("task-clock") ?? false, error?.message ?? "")
    }

    func testAnotherThreadGetsWrongThread() throws {
        let sampler = try Sampler(backend: .kperf, kperfPath: kperfPath, kperfdataPath: kperfdataPath)
        let counters = try sampler.counters(["cycles"])
        try counters.start()
        let box = Box(counters)
        let result = runOnNewThread { () -> [UInt64] in try box.value.sample() }
        XCTAssertThrowsError(try result.get()) { error in
            XCTAssertEqual((error as? KpcError)?.status, .wrongThread, "\(error)")
        }
        XCTAssertEqual(try counters.sample().count, 1)
    }

    func testReleaseGivesTheCountersBack() throws {
        let sampler = try Sampler(backend: .kperf, kperfPath: kperfPath, kperfdataPath: kperfdataPath)
        let counters = try sampler.counters(["cycles"])
        try counters.start()
        try sampler.release()
        assertThrowsKpc(.badState, "sample after release") { try counters.sample() }
        XCTAssertFalse(sampler.events.isEmpty, "the event database stays readable")
    }
}
