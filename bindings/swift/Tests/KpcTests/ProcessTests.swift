import Foundation
import XCTest
@testable import Kpc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CountedProcess on perf_event: a whole process, every thread of it.
final class ProcessTests: XCTestCase {
    /// What `workload touch N` faults besides its N pages (loader, libc): about 60 here.
    let startupFaults: UInt64 = 400

    func testSpawnedCommandCountsItsPages() throws {
        let sampler = try perfEventSampler()
        let pages: UInt64 = 2000
        let p = try CountedProcess.spawn([try workload(), "touch", String(pages)],
                                         events: ["page-faults", "task-clock"], sampler: sampler)
        XCTAssertGreaterThan(p.pid, 0)
        XCTAssertNotEqual(p.pid, getpid())
        let exit = try p.wait()
        XCTAssertTrue(exit.isSuccess, exit.description)
        let v = try p.read()
        XCTAssert((pages...pages + startupFaults).contains(v[0]),
                  "\(v[0]) page faults for a command touching \(pages) pages")
        XCTAssertGreaterThan(v[1], 0)
        XCTAssertEqual(p.scopes, [.tree, .tree])
        XCTAssertEqual(p.events.map(\.name), ["page-faults", "task-clock"])
        let full = try p.readFull()
        XCTAssertEqual(full.values, v, "the totals of an ended command stay")
        XCTAssertEqual(full.complete, [true, true])
        for i in 0..<2 {
            XCTAssertGreaterThan(full.timeEnabledNs[i], 0)
            XCTAssertLessThanOrEqual(full.timeRunningNs[i], full.timeEnabledNs[i])
        }
    }

    func testWaitGivesTheExitCodeOrTheSignal() throws {
        let sampler = try perfEventSampler()
        let three = try CountedProcess.spawn(["sh", "-c", "exit 3"], events: ["task-clock"], sampler: sampler)
        XCTAssertEqual(try three.wait(), CountedProcess.ExitStatus(exitCode: 3, signal: 0))
        XCTAssertEqual(try three.wait().exitCode, 3, "a second wait gives the same result")
        let killed = try CountedProcess.spawn(["sh", "-c", "kill -KILL $$"], events: ["task-clock"], sampler: sampler)
        XCTAssertEqual(try killed.wait(), CountedProcess.ExitStatus(exitCode: -1, signal: SIGKILL))
    }

    func testAttachToSelfCountsEveryThread() throws {
        let sampler = try perfEventSampler()
        let p = try CountedProcess.attach(events: ["page-faults"], sampler: sampler)
        XCTAssertEqual(p.pid, getpid())
        let threads = 4, pages = 300
        let before = try p.read()[0]
        let group = DispatchGroup()
        for _ in 0..<threads {  // threads started after the attach are followed too
            group.enter()
            Thread {
                touchFreshPages(pages)
                group.leave()
            }.start()
        }
        group.wait()
        let counted = try p.read()[0] - before
        XCTAssertGreaterThanOrEqual(counted, UInt64(threads * pages), "\(counted) page faults")
    }

    func testStopPausesAndStartResumes() throws {
        let sampler = try perfEventSampler()
        let p = try CountedProcess.attach(pid: 0, events: ["page-faults"], sampler: sampler)
        XCTAssertTrue(p.isCounting)
        try p.stop()
        XCTAssertFalse(p.isCounting)
        let paused = try p.read()[0]
        touchFreshPages(1000)
        // Only a thread created at the very moment of the stop could escape it (kpc/process.h).
        XCTAssertLessThan(try p.read()[0] - paused, 500, "counted while stopped")
        try p.start()
        touchFreshPages(1000)
        XCTAssertGreaterThanOrEqual(try p.read()[0] - paused, 1000)
    }

    func testOneThreadWaitsWhileAnotherReads() throws {
        let sampler = try perfEventSampler()
        let p = try CountedProcess.spawn(["sleep", "0.3"], events: ["task-clock"], sampler: sampler)
        let exit = Box<Result<CountedProcess.ExitStatus, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            exit.value = Result { try p.wait() }
            done.signal()
        }.start()
        XCTAssertEqual(try p.read().count, 1)  // not blocked by the wait in progress
        try p.stop()
        try p.start()
        done.wait()
        XCTAssertTrue(try exit.value!.get().isSuccess)
    }

    func testErrorsCarryStatusAndMessage() throws {
        let sampler = try perfEventSampler()
        let missing = assertThrowsKpc(.exec, "spawn of a missing program") {
            try CountedProcess.spawn(["kpc-no-such-program"], events: ["task-clock"], sampler: sampler)
        }
        XCTAssert(missing?.message.contains("kpc-no-such-program") ?? false, "\(String(describing: missing))")
        XCTAssertEqual(missing?.osCode, ENOENT)
        assertThrowsKpc(.invalidArgument, "spawn of an empty command") {
            try CountedProcess.spawn([], events: ["task-clock"], sampler: sampler)
        }
        let unknown = assertThrowsKpc(.unknownEvent, "attach with an unknown event") {
            try CountedProcess.attach(events: ["no-such-event"], sampler: sampler)
        }
        XCTAssert(unknown?.message.contains("no-such-event") ?? false)
        assertThrowsKpc(.invalidArgument, "attach to pid -5") {
            try CountedProcess.attach(pid: -5, events: ["task-clock"], sampler: sampler)
        }
        let minusOne = assertThrowsKpc(.invalidArgument, "attach to pid -1 (system-wide has its own entry point)") {
            try CountedProcess.attach(pid: -1, events: ["task-clock"], sampler: sampler)
        }
        XCTAssert(minusOne?.message.contains("countSystemWide") ?? false, "\(String(describing: minusOne))")
        let attached = try CountedProcess.attach(events: ["task-clock"], sampler: sampler)
        let notOurs = assertThrowsKpc(.badState, "wait on an attached process") { try attached.wait() }
        XCTAssertFalse(notOurs?.message.isEmpty ?? true)
    }

    func testDeinitKillsACommandNotWaitedFor() throws {
        let sampler = try perfEventSampler()
        var p: CountedProcess? = try CountedProcess.spawn(["sleep", "30"], events: ["task-clock"], sampler: sampler)
        let pid = p!.pid
        p = nil
        XCTAssertNotEqual(kill(pid, 0), 0, "pid \(pid) outlived its CountedProcess")
        XCTAssertEqual(errno, ESRCH)
    }

    func testOutlivesItsSampler() throws {
        var sampler: Sampler? = try perfEventSampler()
        let p = try CountedProcess.attach(events: ["task-clock"], sampler: sampler!)
        sampler = nil
        XCTAssertGreaterThan(try p.read()[0], 0)
    }
}
