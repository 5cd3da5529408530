import Foundation
import XCTest
@testable import Kpc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutable box that the tests deliberately pass between threads. The tests synchronise
/// every access with `runOnNewThread`'s join, so `@unchecked Sendable` is sound here.
final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// Runs `body` on a new OS thread (a Foundation `Thread`) and waits for it.
func runOnNewThread<T>(_ body: @escaping @Sendable () throws -> T) -> Result<T, Error> {
    let result = Box<Result<T, Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.value = Result { try body() }
        done.signal()
    }
    thread.start()
    done.wait()
    return result.value!
}

/// Asserts that `body` throws a `KpcError` with `status`, and returns it.
@discardableResult
func assertThrowsKpc<T>(_ status: Status, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                        _ body: () throws -> T) -> KpcError? {
    do {
        _ = try body()
        XCTFail("\(what): expected \(status) (\(status.rawValue)), but it succeeded", file: file, line: line)
        return nil
    } catch let error as KpcError {
        XCTAssertEqual(error.status, status, "\(what): \(error)", file: file, line: line)
        XCTAssertEqual(error.code, status.rawValue, "\(what): raw code", file: file, line: line)
        return error
    } catch {
        XCTFail("\(what): threw \(error), not a KpcError", file: file, line: line)
        return nil
    }
}

/// A sampler on the perf_event backend, or XCTSkip with the reason when the backend in use is
/// another one (e.g. kperf on macOS, where software events do not exist).
func perfEventSampler() throws -> Sampler {
    let sampler = try Sampler()
    guard sampler.backend == .perfEvent else {
        throw XCTSkip("these tests count Linux software events and need the perf_event backend; "
            + "this sampler uses \(sampler.backendName) (KPC_BACKEND=\(ProcessInfo.processInfo.environment["KPC_BACKEND"] ?? "unset"))")
    }
    return sampler
}

/// tests/cli's workload program (`spin MS`, `threads T MS`, `touch N`); CTest passes its
/// path in KPC_TEST_WORKLOAD, and without it the calling test skips.
func workload() throws -> String {
    guard let path = ProcessInfo.processInfo.environment["KPC_TEST_WORKLOAD"], !path.isEmpty else {
        throw XCTSkip("KPC_TEST_WORKLOAD is not set (CTest sets it to tests/cli's workload)")
    }
    return path
}

/// The size of a memory page.
let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

/// Maps `pages` fresh anonymous pages, writes one byte to each (one page fault per page),
/// then unmaps them.
func touchFreshPages(_ pages: Int) {
    let length = pages * pageSize
    guard let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
          base != MAP_FAILED else {
        XCTFail("mmap of \(pages) pages failed: errno \(errno)")
        return
    }
    for page in 0..<pages {
        base.storeBytes(of: UInt8(truncatingIfNeeded: page | 1), toByteOffset: page * pageSize, as: UInt8.self)
    }
    munmap(base, length)
}

/// CPU time the calling thread has used, in nanoseconds.
func threadCPUTimeNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Keeps the calling thread busy until it has used `nanoseconds` of CPU time (measured with
/// the thread CPU clock, so a loaded machine only makes it take longer), and returns a value
/// that depends on the work so it cannot be optimised away.
@discardableResult
func burnCPU(nanoseconds: UInt64) -> UInt64 {
    let end = threadCPUTimeNs() + nanoseconds
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    repeat {
        for _ in 0..<10_000 {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
        }
    } while threadCPUTimeNs() < end
    return x
}

/// Element-wise difference of two samples.
func delta(_ after: [UInt64], _ before: [UInt64]) -> [UInt64] {
    zip(after, before).map { $0 &- $1 }
}
