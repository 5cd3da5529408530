import Foundation
import XCTest
@testable import Kpc

#if canImport(Glibc)
import Glibc
#endif

/// The recount backend (macOS without root) against the simulated libSystem
/// (tests/recount_sim). Runs only when KPC_BACKEND=recount and KPC_LIBSYSTEM_PATH names
/// librecount_sim.so, as CTest's swift_recount_sim sets them; skipped otherwise.
///
/// The simulator's model (tests/recount_sim/README.md): cycles = the thread's CPU ns × 3,
/// instructions = cycles × 2, a share RCSIM_P_SHARE (default 0.75) of both on P cores.
/// Another simulated machine: set its RCSIM_* variable and call the simulator's
/// rcsim_reset(), found with dlsym in the very library libkpc loads (the same instance).
final class RecountSimTests: XCTestCase {
    private static let cyclesPerNs: UInt64 = 3
    private static let instructionsPerCycle: UInt64 = 2
    private var resetSimulator: (@convention(c) () -> Void)?
    private var changed: [String: String?] = [:]

    override func setUpWithError() throws {
        let env = ProcessInfo.processInfo.environment
        guard env["KPC_BACKEND"] == "recount", let path = env["KPC_LIBSYSTEM_PATH"], !path.isEmpty else {
            throw XCTSkip("recount simulator tests need KPC_BACKEND=recount and KPC_LIBSYSTEM_PATH naming "
                + "librecount_sim.so (set by ctest -R swift_recount_sim)")
        }
        // Kept open for the process's life, so the simulator's state survives samplers.
        guard let lib = dlopen(path, RTLD_NOW), let reset = dlsym(lib, "rcsim_reset") else {
            throw KpcError(status: .loadFailed, message: "cannot load rcsim_reset from \(path): "
                + String(cString: dlerror()) + "; build the CMake project first")
        }
        resetSimulator = unsafeBitCast(reset, to: (@convention(c) () -> Void).self)
    }

    override func tearDown() {
        for (name, value) in changed {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        changed = [:]
        resetSimulator?()
    }

    /// Sets environment variables for this test (restored by tearDown) and makes the
    /// simulator read its knobs again.
    private func simulate(_ settings: [String: String]) {
        for (name, value) in settings {
            if changed.index(forKey: name) == nil {
                changed.updateValue(getenv(name).map { String(cString: $0) }, forKey: name)
            }
            setenv(name, value, 1)
        }
        resetSimulator?()
    }

    func testTheEnvironmentSelectsRecountAndSaysWhy() throws {
        let sampler = try Sampler()
        XCTAssertEqual(sampler.backend, .recount)
        XCTAssertEqual(sampler.backend.rawValue, 3)
        XCTAssertEqual(sampler.backendName, "recount")
        XCTAssertEqual(sampler.backendReason, "named by KPC_BACKEND=recount")
        XCTAssertNoThrow(try sampler.access(), "recount needs no root")
        let named = try Sampler(backend: .perfEvent)
        XCTAssertTrue(named.backendReason.contains("named by the caller"), named.backendReason)
    }

    func testCyclesAreThreeTimesTheThreadsCPUTime() throws {
        let counters = try Sampler().counters(["cycles", "instructions"])
        try counters.start()
        let cpu0 = threadCPUTimeNs()
        let before = try counters.sample()
        burnCPU(nanoseconds: 30_000_000)
        let after = try counters.sample()
        let cpu = threadCPUTimeNs() - cpu0
        for v in [before, after] {
            XCTAssertEqual(v[1], Self.instructionsPerCycle * v[0], "instructions = 2 × cycles in one sample")
        }
        let cycles = Double(after[0] - before[0])
        let expected = Double(Self.cyclesPerNs * cpu)
        // The samples lie inside the measured interval: a little less, never more.
        XCTAssertLessThanOrEqual(cycles, expected * 1.001, "\(cpu) ns of CPU time")
        XCTAssertGreaterThanOrEqual(cycles, expected * 0.95, "\(cpu) ns of CPU time")
    }

    func testPerformanceAndEfficiencyAddUpToTheTotal() throws {
        simulate(["RCSIM_P_SHARE": "0.6"])
        let counters = try Sampler().counters(["cycles", "p-cycles", "e-cycles",
                                               "instructions", "p-instructions", "e-instructions"])
        try counters.start()
        burnCPU(nanoseconds: 20_000_000)
        let v = try counters.sample()
        XCTAssertEqual(v[1] + v[2], v[0], "p-cycles + e-cycles = cycles")
        XCTAssertEqual(v[4] + v[5], v[3], "p-instructions + e-instructions = instructions")
        XCTAssertEqual(Double(v[1]) / Double(v[0]), 0.6, accuracy: 0.01, "P share of cycles")
        XCTAssertEqual(Double(v[4]) / Double(v[3]), 0.6, accuracy: 0.01, "P share of instructions")
    }

    func testOnePerfLevelPutsEverythingOnP() throws {
        simulate(["RCSIM_PERF_LEVELS": "1"])
        let counters = try Sampler().counters(["cycles", "p-cycles", "e-cycles", "e-instructions"])
        try counters.start()
        burnCPU(nanoseconds: 10_000_000)
        let v = try counters.sample()
        XCTAssertGreaterThan(v[0], 0)
        XCTAssertEqual(v[1], v[0], "p-cycles = cycles")
        XCTAssertEqual(v[2], 0, "e-cycles")
        XCTAssertEqual(v[3], 0, "e-instructions")
    }

    func testAVirtualMachineIsUnsupportedAndSaysWhy() throws {
        simulate(["RCSIM_VM": "1"])
        let sampler = try Sampler()
        let error = assertThrowsKpc(.unsupported, "access() in a macOS VM") { try sampler.access() }
        XCTAssertEqual(error?.code, -7)
        XCTAssertTrue(error?.message.contains("virtual machine") ?? false, error?.message ?? "")
        assertThrowsKpc(.unsupported, "counters in a macOS VM") { try sampler.counters(["cycles"]) }
    }

    func testALibSystemWithoutThreadSelfcountsIsUnsupported() throws {
        guard let path = ProcessInfo.processInfo.environment["KPC_TEST_RCSIM_NOSELFCOUNTS"] else {
            throw XCTSkip("KPC_TEST_RCSIM_NOSELFCOUNTS does not name librecount_sim_noselfcounts.so")
        }
        simulate(["KPC_LIBSYSTEM_PATH": path])
        let sampler = try Sampler()
        let error = assertThrowsKpc(.unsupported, "access() without thread_selfcounts") { try sampler.access() }
        XCTAssertTrue(error?.message.contains("thread_selfcounts") ?? false, error?.message ?? "")
    }

    func testOtherEventsNeedRootAndKperf() throws {
        let sampler = try Sampler()
        XCTAssertFalse(try sampler.event(named: "branches").isAvailable)
        let error = assertThrowsKpc(.unavailable, "counters(cycles, branches)") {
            try sampler.counters(["cycles", "branches"])
        }
        XCTAssertEqual(error?.code, -9)
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("root") && message.contains("kperf"), message)
    }

    func testMacos12HasTotalsOnly() throws {
        simulate(["RCSIM_MACOS": "12.6"])
        let sampler = try Sampler()
        for name in ["p-cycles", "e-instructions"] {
            let event = try sampler.event(named: name)
            XCTAssertFalse(event.isAvailable, name)
            XCTAssertTrue(event.unavailableReason?.contains("13.0") ?? false, event.unavailableReason ?? "nil")
        }
        let counters = try sampler.counters(["cycles", "instructions"])
        try counters.start()
        burnCPU(nanoseconds: 5_000_000)
        let v = try counters.sample()
        XCTAssertGreaterThan(v[0], 0)
        XCTAssertEqual(v[1], Self.instructionsPerCycle * v[0])
        assertThrowsKpc(.unavailable, "counters(cycles, p-cycles) on macOS 12.6") {
            try sampler.counters(["cycles", "p-cycles"])
        }
    }

    func testThreadsCountInIsolation() throws {
        let sampler = try Sampler()
        let mine = try sampler.counters(["cycles"])
        try mine.start()
        let before = try mine.sample()[0]
        // The other thread works while this one waits.
        let busy = runOnNewThread { () -> (cycles: UInt64, cpu: UInt64) in
            let counters = try sampler.counters(["cycles"])
            try counters.start()
            let a = try counters.sample()[0]
            let cpu0 = threadCPUTimeNs()
            burnCPU(nanoseconds: 40_000_000)
            let cpu = threadCPUTimeNs() - cpu0
            return (try counters.sample()[0] - a, cpu)
        }
        let idle = try mine.sample()[0] - before
        let result = try busy.get()
        XCTAssertGreaterThanOrEqual(Double(result.cycles), Double(Self.cyclesPerNs * result.cpu) * 0.9)
        XCTAssertLessThan(idle, result.cycles / 10, "the waiting thread was charged the busy one's cycles")
    }
}
