import CKpc
import XCTest
@testable import Kpc

/// Status codes, messages and the thread rule.
final class ErrorTests: XCTestCase {
    func testStatusMirrorsTheCEnum() {
        let expected: [(Status, kp_status)] = [
            (.ok, KP_OK), (.error, KP_ERROR), (.invalidArgument, KP_EINVAL), (.outOfMemory, KP_ENOMEM),
            (.loadFailed, KP_ELOAD), (.permissionDenied, KP_EPERM), (.busy, KP_EBUSY),
            (.unsupported, KP_EUNSUPPORTED), (.unknownEvent, KP_EUNKNOWN_EVENT),
            (.unavailable, KP_EUNAVAILABLE), (.conflict, KP_ECONFLICT), (.wrongThread, KP_EWRONG_THREAD),
            (.badState, KP_ESTATE), (.layout, KP_ELAYOUT), (.framework, KP_EFRAMEWORK),
            (.kernel, KP_EKERNEL), (.bufferTooSmall, KP_EBUFSIZE), (.partial, KP_EPARTIAL),
            (.exec, KP_EEXEC),
        ]
        XCTAssertEqual(expected.count, Status.allCases.count, "every case is listed")
        for (status, c) in expected {
            XCTAssertEqual(status.rawValue, Int32(c.rawValue), "\(status)")
            XCTAssertEqual(status.description, String(cString: kp_strerror(Int32(c.rawValue))))
        }
        XCTAssertEqual(Status.unknownEvent.rawValue, -8)
        XCTAssertEqual(Status.unavailable.rawValue, -9)
        XCTAssertEqual(Status.wrongThread.rawValue, -11)
        XCTAssertEqual(Status.partial.rawValue, -17)
        XCTAssertEqual(KpcError(code: -17, message: "").status, .partial)
        XCTAssertEqual(Status.exec.rawValue, -18)
        XCTAssertEqual(KpcError(code: -18, message: "").status, .exec)
        // The limits and units come from kpc/event.h.
        XCTAssertEqual(Event.maxPerHandle, 32)
        XCTAssertEqual(Event.maxNameBytes, 256)
        XCTAssertEqual(Event.Unit.count.rawValue, Int32(KP_EVENT_UNIT_COUNT.rawValue))
        XCTAssertEqual(Event.Unit.nanoseconds.rawValue, Int32(KP_EVENT_UNIT_NANOSECONDS.rawValue))
    }

    func testUnknownEventNamesTheEvent() throws {
        let sampler = try Sampler()
        let name = "no-such-event-xyzzy"
        let found = assertThrowsKpc(.unknownEvent, "event(named:)") { try sampler.event(named: name) }
        XCTAssertTrue(found?.message.contains(name) ?? false, "message should name the event: \(found?.message ?? "")")
        let counted = assertThrowsKpc(.unknownEvent, "counters") { try sampler.counters(["task-clock", name]) }
        XCTAssertTrue(counted?.message.contains(name) ?? false, "message should name the event: \(counted?.message ?? "")")
        XCTAssertTrue(counted?.description.contains("code -8") ?? false, counted?.description ?? "")
    }

    /// Without a hardware PMU (a VM) hardware events are KP_EUNAVAILABLE; with one they count.
    func testHardwareEventIsUnavailableOrCounts() throws {
        let sampler = try perfEventSampler()
        let cycles = try sampler.event(named: "cycles")
        XCTAssertNotEqual(cycles.kind, .software)
        if cycles.isAvailable {
            do {
                let counters = try sampler.counters(["cycles"])
                try counters.start()
                let before = try counters.sample()
                burnCPU(nanoseconds: 5_000_000)
                XCTAssertGreaterThan(try counters.sample()[0], before[0], "cycles should grow with work")
            } catch let error as KpcError where error.status == .permissionDenied || error.status == .busy {
                // A PMU exists but this process may not use it now: that is still a precise code.
                XCTAssertFalse(error.message.isEmpty)
            }
        } else {
            XCTAssertNotNil(cycles.unavailableReason, "an unavailable event says why")
            let error = assertThrowsKpc(.unavailable, "counting cycles without a PMU") { try sampler.counters(["cycles"]) }
            XCTAssertTrue(error?.message.contains("cycles") ?? false, "message should name the event: \(error?.message ?? "")")
        }
    }

    func testAnotherThreadGetsWrongThread() throws {
        let sampler = try perfEventSampler()
        let counters = try sampler.counters(["task-clock"])
        try counters.start()
        let box = Box(counters)
        let result = runOnNewThread { () -> [KpcError] in
            var errors: [KpcError] = []
            for call in [{ try box.value.start() }, { try box.value.stop() }, { _ = try box.value.sample() }] {
                do { try call() } catch let e as KpcError { errors.append(e) }
            }
            var buffer = [UInt64](repeating: 0, count: 1)
            do { try box.value.sample(into: &buffer) } catch let e as KpcError { errors.append(e) }
            do { _ = try box.value.sampleFull() } catch let e as KpcError { errors.append(e) }
            return errors
        }
        let errors = try result.get()
        XCTAssertEqual(errors.count, 5, "start, stop, sample, sample(into:) and sampleFull must all fail: \(errors)")
        for error in errors {
            XCTAssertEqual(error.status, .wrongThread, "\(error)")
            XCTAssertFalse(error.message.isEmpty, "message read on the failing thread")
        }
        // The other thread's attempts did nothing: still running, still usable here.
        XCTAssertTrue(counters.isRunning)
        XCTAssertEqual(try counters.sample().count, 1)
    }

    func testErrorMessagesStayWithTheirThread() throws {
        let sampler = try Sampler()
        let other = runOnNewThread { () -> KpcError? in
            do { _ = try sampler.event(named: "other-thread-event") } catch let e as KpcError { return e }
            return nil
        }
        let mine = assertThrowsKpc(.unknownEvent, "this thread") { try sampler.event(named: "this-thread-event") }
        let theirs = try other.get()
        XCTAssertTrue(theirs?.message.contains("other-thread-event") ?? false, theirs?.message ?? "no error")
        XCTAssertTrue(mine?.message.contains("this-thread-event") ?? false, mine?.message ?? "no error")
    }
}
