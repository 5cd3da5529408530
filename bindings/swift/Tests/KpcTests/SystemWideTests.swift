import Foundation
import XCTest
@testable import Kpc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CountedProcess.countSystemWide on perf_event: every CPU. Its own CTest test
/// (swift_system_wide), because it skips where the kernel does not allow it (not root and
/// kernel.perf_event_paranoid > 0), and a skip must not hide swift_tests' passes.
final class SystemWideTests: XCTestCase {
    func testEveryCPUCountsAcrossASleep() throws {
        let sampler = try perfEventSampler()
        let all: CountedProcess
        do {
            all = try CountedProcess.countSystemWide(events: ["task-clock"], sampler: sampler)
        } catch let error as KpcError where error.status == .permissionDenied && geteuid() != 0 {
            throw XCTSkip("system-wide counting is not allowed to this user here: \(error.message)")
        }
        XCTAssertEqual(all.pid, -1)
        XCTAssertEqual(all.scopes, [.system])
        XCTAssertEqual(all.threadCount, 0)
        XCTAssertTrue(all.isCounting)

        let before = try all.read()[0]
        usleep(100_000)
        let counted = try all.read()[0] - before
        // Every CPU's clock runs whatever it runs (idle included), so even one CPU gives
        // about 100 ms while this thread sleeps.
        XCTAssertGreaterThan(counted, 50_000_000, "\(counted) ns of task-clock on every CPU over 100 ms")

        let notOurs = assertThrowsKpc(.badState, "wait while counting system-wide") { try all.wait() }
        XCTAssertFalse(notOurs?.message.isEmpty ?? true)
        try all.stop()
        let stopped = try all.read()[0]
        usleep(20_000)
        XCTAssertEqual(try all.read()[0], stopped, "stopped system-wide counting stays still")
    }
}
