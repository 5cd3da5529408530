import Foundation
import XCTest
@testable import Kpc

/// CountedProcess.readThread(_:) on perf_event: per-thread rows of an attached process.
final class ProcessThreadTests: XCTestCase {
    /// This process with two extra threads that burn CPU after the attach: one row per
    /// thread it had then, each with its own tid, and the rows add up to the total.
    func testRowsOfThisProcessAddUpToItsTotal() throws {
        let sampler = try perfEventSampler()
        let burners = 2
        let burnNs: UInt64 = 60_000_000
        let started = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let tids = (0..<burners).map { _ in Box<Int32>(0) }  // each written by its thread before `started`
        for tid in tids {
            Thread {
                tid.value = currentThreadID()
                started.signal()
                go.wait()
                burnCPU(nanoseconds: burnNs)
                done.signal()
            }.start()
        }
        for _ in 0..<burners { started.wait() }

        let p = try CountedProcess.attach(events: ["task-clock"], sampler: sampler)
        XCTAssertGreaterThanOrEqual(p.threadCount, 1 + burners, "this thread and the burners at least")
        for _ in 0..<burners { go.signal() }
        for _ in 0..<burners { done.wait() }
        try p.stop()

        let total = try p.read()[0]
        let rows = try p.readThreads()
        XCTAssertEqual(rows.count, p.threadCount)
        XCTAssertEqual(rows.reduce(0) { $0 + $1.values[0] }, total, "the rows add up to the process total")
        XCTAssertTrue(rows.allSatisfy { $0.tid > 0 }, "\(rows.map(\.tid))")
        XCTAssertEqual(Set(rows.map(\.tid)).count, rows.count, "one row per thread: \(rows.map(\.tid))")
        for tid in tids.map(\.value) {
            let row = try XCTUnwrap(rows.first { $0.tid == tid }, "no row for burner thread \(tid)")
            XCTAssertGreaterThanOrEqual(row.values[0], burnNs * 9 / 10,
                                        "thread \(tid) burned \(burnNs) ns of its own CPU time")
        }
        assertThrowsKpc(.invalidArgument, "row \(p.threadCount) of \(p.threadCount)") {
            try p.readThread(p.threadCount)
        }
        assertThrowsKpc(.invalidArgument, "row -1") { try p.readThread(-1) }
    }

    /// A spawned command has one row, its first thread, which holds everything it counted.
    func testSpawnedCommandHasOneRow() throws {
        let sampler = try perfEventSampler()
        let p = try CountedProcess.spawn([try workload(), "threads", "2", "20"], events: ["task-clock"],
                                         sampler: sampler)
        XCTAssertTrue(try p.wait().isSuccess)
        XCTAssertEqual(p.threadCount, 1)
        let row = try p.readThread(0)
        XCTAssertEqual(row.tid, p.pid, "the first thread's id is the process's")
        XCTAssertEqual(row.values, try p.read(), "its row includes the threads it created")
        // 90%: task-clock leaves out the scheduler's switch path that the threads' CPU clock
        // includes, so under load it reads a little less than the CPU time they burned.
        XCTAssertGreaterThanOrEqual(row.values[0], 36_000_000, "two threads burned 20 ms each")
    }
}

/// The calling thread's id (Linux gettid(), which Swift's Glibc module does not export):
/// /proc/thread-self links to "<pid>/task/<tid>". 0 if that cannot be read.
func currentThreadID() -> Int32 {
    let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return Int32(link.split(separator: "/").last ?? "") ?? 0
}
