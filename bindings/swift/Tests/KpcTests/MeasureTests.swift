import XCTest

@testable import Kpc

/// Counters.measure and Counters.calibrate on perf_event's software events, which are real
/// on every Linux machine (and macOS has none: the perf_event sampler skips there).
final class MeasureTests: XCTestCase {
    func testMeasureCountsThePageFaultsOfTheClosure() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["page-faults", "task-clock"])
        let pages = 200
        let counts = try counters.measure { touchFreshPages(pages) }
        XCTAssertGreaterThanOrEqual(counts[0], UInt64(pages))
        XCTAssertLessThan(counts[0], UInt64(pages * 3 / 2))
        XCTAssertGreaterThan(counts[1], 0)
        XCTAssertTrue(counters.isRunning, "measure starts stopped counters and leaves them on")
    }

    func testSubtractingTheOverheadKeepsRealCounts() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["page-faults"])
        let counts = try counters.measure(subtractingOverhead: true) { touchFreshPages(100) }
        XCTAssertGreaterThanOrEqual(counts[0], 100)
    }

    func testCalibrateNeedsStartedCounters() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock", "page-faults"])
        assertThrowsKpc(.badState, "calibrate while stopped") { try counters.calibrate() }
        try counters.start()
        let offsets = try counters.calibrate(rounds: 50)
        XCTAssertEqual(offsets.count, 2)
        XCTAssertLessThan(offsets[0], 1_000_000, "two back-to-back reads take under 1 ms")
        XCTAssertEqual(offsets[1], 0, "an empty region faults no page")
    }
}
