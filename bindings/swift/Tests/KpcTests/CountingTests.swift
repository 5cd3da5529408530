import Foundation
import XCTest
@testable import Kpc

/// Real counts of Linux software events (perf_event backend).
final class CountingTests: XCTestCase {
    func testPageFaultsCountTouchedPages() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["page-faults"])
        try counters.start()
        let pages = 256
        let before = try counters.sample()
        touchFreshPages(pages)
        let after = try counters.sample()
        XCTAssertGreaterThanOrEqual(after[0] - before[0], UInt64(pages),
                                    "touching \(pages) fresh pages must fault at least once per page")
    }

    func testTaskClockMeasuresBusyWork() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock"])
        try counters.start()
        let before = try counters.sample()
        burnCPU(nanoseconds: 50_000_000)
        let after = try counters.sample()
        XCTAssertGreaterThanOrEqual(after[0] - before[0], 40_000_000,
                                    "50 ms of this thread's CPU time must show as >= 40 ms of task-clock")
    }

    func testTotalsNeverDecrease() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock", "page-faults", "context-switches"])
        try counters.start()
        var previous = try counters.sample()
        for round in 0..<30 {
            if round % 3 == 0 { touchFreshPages(8) } else { burnCPU(nanoseconds: 200_000) }
            let current = try counters.sample()
            for i in 0..<current.count {
                XCTAssertGreaterThanOrEqual(current[i], previous[i], "\(counters.events[i].name), round \(round)")
            }
            previous = current
        }
        XCTAssertGreaterThan(previous[0], 0)
    }

    func testStopFreezesAndStartResumes() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["page-faults"])
        try counters.start()
        touchFreshPages(16)
        try counters.stop()
        let frozen = try counters.sample()
        touchFreshPages(64)
        XCTAssertEqual(try counters.sample(), frozen, "stopped counters must not move")
        try counters.start()
        try counters.start()  // idempotent
        touchFreshPages(64)
        let resumed = try counters.sample()
        XCTAssertGreaterThanOrEqual(resumed[0] - frozen[0], 64, "counting resumes after start()")
    }

    /// stop() then start() must resume every event of the set at once, not only the first
    /// one (perf_event puts them in one group led by the first event). The pages are touched
    /// right after start(), before the thread is next scheduled: an event that resumes only
    /// at the next context switch misses them.
    func testStartResumesEveryEventOfTheSet() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock", "page-faults"])
        try counters.start()
        touchFreshPages(16)
        try counters.stop()
        let frozen = try counters.sample()
        touchFreshPages(64)
        XCTAssertEqual(try counters.sample(), frozen, "stopped counters must not move")
        try counters.start()
        touchFreshPages(64)
        let resumed = try counters.sample()
        XCTAssertGreaterThan(resumed[0], frozen[0], "task-clock (first event) resumes after start()")
        XCTAssertGreaterThanOrEqual(resumed[1] - frozen[1], 64,
                                    "page-faults (second event) must count the 64 pages touched right after start()")
    }

    func testSampleIntoWritesInPlace() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock", "page-faults"])
        try counters.start()
        var buffer: [UInt64] = [0, 0, 7777]
        try counters.sample(into: &buffer)
        XCTAssertGreaterThan(buffer[0], 0)
        XCTAssertEqual(buffer[2], 7777, "elements past count are left alone")
        let first = buffer
        touchFreshPages(16)
        try counters.sample(into: &buffer)
        XCTAssertGreaterThanOrEqual(buffer[1] - first[1], 16)
        var small: [UInt64] = [0]
        assertThrowsKpc(.bufferTooSmall, "one slot for two events") { try counters.sample(into: &small) }
    }

    func testSampleFull() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock", "page-faults"])
        try counters.start()
        let before = try counters.sample()
        burnCPU(nanoseconds: 2_000_000)
        let full = try counters.sampleFull()
        XCTAssertEqual(full.values.count, 2)
        XCTAssertEqual(full.complete.count, 2)
        XCTAssertGreaterThanOrEqual(full.values[0], before[0] + 1_000_000)
        XCTAssertLessThanOrEqual(full.timeRunningNs, full.timeEnabledNs)
        if full.complete.allSatisfy({ $0 }) {
            XCTAssertEqual(full.timeRunningNs, full.timeEnabledNs, "complete events ran the whole time")
        }
    }

    /// Work on one thread never shows in another thread's counters.
    func testThreadsAreIsolated() throws {
        let sampler = try perfEventSampler()
        let mine = try sampler.counters(["page-faults", "task-clock"])
        try mine.start()
        let before = try mine.sample()
        let pages = 512
        let theirs = runOnNewThread { () -> [UInt64] in
            let counters = try sampler.counters(["page-faults", "task-clock"])
            try counters.start()
            let start = try counters.sample()
            touchFreshPages(pages)
            burnCPU(nanoseconds: 50_000_000)
            return delta(try counters.sample(), start)
        }
        let mineDelta = delta(try mine.sample(), before)
        let theirDelta = try theirs.get()
        XCTAssertGreaterThanOrEqual(theirDelta[0], UInt64(pages), "the worker's own faults")
        XCTAssertGreaterThanOrEqual(theirDelta[1], 40_000_000, "the worker's own CPU time")
        XCTAssertLessThan(mineDelta[0], UInt64(pages / 2),
                          "the worker's \(pages) page faults leaked into this thread's counters")
        XCTAssertLessThan(mineDelta[1], theirDelta[1] / 2,
                          "the worker's CPU time leaked into this thread's task-clock")
    }

    func testEventsListTaskClockAsAvailableSoftware() throws {
        let sampler = try perfEventSampler()
        let events = sampler.events
        let taskClock = try XCTUnwrap(events.first { $0.name == "task-clock" }, "task-clock not in \(events.map(\.name))")
        XCTAssertEqual(taskClock.kind, .software)
        XCTAssertEqual(taskClock.unit, .nanoseconds)
        XCTAssertTrue(taskClock.isAvailable)
        XCTAssertTrue(taskClock.isGeneric)
        XCTAssertNil(taskClock.unavailableReason)
        XCTAssertNil(taskClock.fixedCounter)
        XCTAssertEqual(try sampler.event(named: "task-clock"), taskClock)
        XCTAssertTrue(events.contains { $0.name == "cycles" }, "generic hardware events are listed even when unavailable")
        let counters = try sampler.counters(["task-clock"])
        XCTAssertEqual(counters.events, [taskClock])
        XCTAssertEqual(counters.count, 1)
    }

    func testEventValuesOutliveTheirSampler() throws {
        var sampler: Sampler? = try perfEventSampler()
        let event = try sampler!.event(named: "page-faults")
        let all = sampler!.events
        sampler = nil
        XCTAssertEqual(event.name, "page-faults")
        XCTAssertEqual(event.kind, .software)
        XCTAssertEqual(event.unit, .count)
        XCTAssertFalse(event.nativeName.isEmpty)
        XCTAssertTrue(all.contains(event))
    }
}

/// Hardware counting; skipped (with the reason) on machines without a usable PMU. On Linux
/// under CTest, whether the machine can count is decided without libkpc: KPC_TEST_PMU_PROBE
/// names a program that opens the instructions event with perf_event_open itself
/// (tests/common/pmu_probe.c). Where it can, a libkpc error fails the test.
final class HardwareTests: XCTestCase {
    /// nil when the probe counts instructions (or there is no probe), else the kernel's reason.
    private func probeCannotCount() throws -> String? {
        guard let path = ProcessInfo.processInfo.environment["KPC_TEST_PMU_PROBE"], !path.isEmpty else {
            return nil
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: path)
        let out = Pipe()
        probe.standardOutput = out
        probe.standardError = out
        try probe.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        switch probe.terminationStatus {
        case 0: return nil
        case 1: return text.trimmingCharacters(in: .whitespacesAndNewlines)
        default:
            XCTFail("the PMU probe \(path) exited with \(probe.terminationStatus): \(text)")
            return text
        }
    }

    func testCyclesAndInstructionsCount() throws {
        let probed = ProcessInfo.processInfo.environment["KPC_TEST_PMU_PROBE"] != nil
        if let why = try probeCannotCount() {
            throw XCTSkip("this machine cannot count hardware instructions: \(why)")
        }
        let sampler = try Sampler()
        do {
            try sampler.access()
        } catch let error as KpcError {
            if probed {
                XCTFail("perf_event_open counts instructions here, yet access() refused (\(error.status)): \(error.message)")
                return
            }
            throw XCTSkip("no usable hardware PMU here (\(error.status)): \(error.message)")
        }
        for name in ["cycles", "instructions"] {
            let event = try sampler.event(named: name)
            if !event.isAvailable {
                let why = event.unavailableReason ?? "no reason given"
                if probed {
                    XCTFail("perf_event_open counts instructions here, yet \(name) is unavailable: \(why)")
                    return
                }
                throw XCTSkip("\(name) is unavailable here: \(why)")
            }
        }
        let counters = try sampler.counters(["cycles", "instructions"])
        try counters.start()
        let before = try counters.sample()
        burnCPU(nanoseconds: 20_000_000)
        let mid = try counters.sample()
        burnCPU(nanoseconds: 20_000_000)
        let after = try counters.sample()
        for i in 0..<2 {
            XCTAssertGreaterThan(mid[i], before[i], counters.events[i].name)
            XCTAssertGreaterThan(after[i], mid[i], counters.events[i].name)
        }
    }
}
