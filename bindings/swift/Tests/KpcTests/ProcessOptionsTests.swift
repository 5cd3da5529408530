import Foundation
import XCTest
@testable import Kpc

/// CountedProcess.Options on perf_event: PARTIAL (per-event status instead of failing) and
/// event groups.
final class ProcessOptionsTests: XCTestCase {
    /// {task-clock, cycles} with partial: task-clock counts, cycles reads 0 and says why
    /// (there is no PMU here); without partial the same set fails as a whole.
    func testPartialReportsTheEventThatCannotBeCounted() throws {
        let sampler = try perfEventSampler()
        let command = [try workload(), "spin", "30"]
        let cycles = try sampler.event(named: "cycles")
        let p = try CountedProcess.spawn(command, events: ["task-clock", "cycles"], sampler: sampler,
                                         options: .init(partial: true))
        XCTAssertTrue(try p.wait().isSuccess)
        let full = try p.readFull()
        XCTAssertGreaterThan(full.values[0], 0, "task-clock of a command that spun 30 ms")
        XCTAssertNil(try p.eventStatus(0), "task-clock is counted")
        if cycles.isAvailable {
            // A machine with a usable PMU: nothing to report, both count.
            XCTAssertGreaterThan(full.values[1], 0, "cycles with a PMU")
            XCTAssertEqual(try p.eventStatuses().compactMap { $0 }, [])
            return
        }
        XCTAssertEqual(full.values[1], 0, "an event that is not counted reads 0")
        XCTAssertEqual(full.complete[1], false, "and is not complete")
        let why = try XCTUnwrap(try p.eventStatus(1), "cycles cannot be counted here")
        XCTAssertEqual(why.status, .unavailable, "\(why)")
        XCTAssertEqual(why.code, Status.unavailable.rawValue)
        XCTAssertFalse(why.message.isEmpty, "the status says why")
        XCTAssertEqual(try p.eventStatuses().map { $0?.status }, [nil, .unavailable])
        assertThrowsKpc(.invalidArgument, "status of event 2 of 2") { try p.eventStatus(2) }
        assertThrowsKpc(.invalidArgument, "status of event -1") { try p.eventStatus(-1) }

        let whole = assertThrowsKpc(.unavailable, "the same set without partial") {
            try CountedProcess.spawn(command, events: ["task-clock", "cycles"], sampler: sampler)
        }
        XCTAssertTrue(whole?.message.contains("cycles") ?? false, "\(String(describing: whole))")
    }

    /// Events of one group count together; a group number below -1 is refused.
    func testGroupedEventsBothCount() throws {
        let sampler = try perfEventSampler()
        let pages: UInt64 = 500
        let p = try CountedProcess.spawn([try workload(), "touch", String(pages)],
                                         events: ["task-clock", "page-faults"], sampler: sampler,
                                         options: .init(groups: [0, 0]))
        XCTAssertTrue(try p.wait().isSuccess)
        let full = try p.readFull()
        XCTAssertGreaterThan(full.values[0], 0, "task-clock in the group")
        XCTAssertGreaterThanOrEqual(full.values[1], pages, "page-faults in the group")
        XCTAssertEqual(full.complete, [true, true])
        XCTAssertEqual(try p.eventStatuses().compactMap { $0 }, [])

        let bad = assertThrowsKpc(.invalidArgument, "group number -2") {
            try CountedProcess.spawn(["true"], events: ["task-clock", "page-faults"], sampler: sampler,
                                     options: .init(groups: [0, -2]))
        }
        XCTAssertFalse(bad?.message.isEmpty ?? true)
        assertThrowsKpc(.invalidArgument, "one group number for two events") {
            try CountedProcess.spawn(["true"], events: ["task-clock", "page-faults"], sampler: sampler,
                                     options: .init(groups: [0]))
        }
    }
}
