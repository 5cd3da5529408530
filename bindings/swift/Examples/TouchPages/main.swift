// A benchmark-shaped measurement: each operation writes to N fresh pages, so it should cost
// about N page faults. Prints page-faults and task-clock per operation for N = 16 and 256.
// Run by CTest as swift_touch_pages, which checks page-faults/op against N. (Linux: Apple's
// kperf backend has no software events.)
import Kpc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

/// Maps `pages` fresh pages, writes one byte to each (one fault per page), unmaps them.
func touchFreshPages(_ pages: Int) {
    let length = pages * pageSize
    guard let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
          base != MAP_FAILED else {
        fatalError("mmap of \(pages) pages failed: errno \(errno)")
    }
    for page in 0..<pages {
        base.storeBytes(of: 1, toByteOffset: page * pageSize, as: UInt8.self)
    }
    munmap(base, length)
}

do {
    let counters = try Sampler().counters(["page-faults", "task-clock"])
    let ops = 50
    for pages in [16, 256] {
        let counts = try counters.measure(subtractingOverhead: true) {
            for _ in 0..<ops { touchFreshPages(pages) }
        }
        let faults = (Double(counts[0]) / Double(ops) * 100).rounded() / 100
        print("pages=\(pages): page-faults/op \(faults), task-clock/op \(counts[1] / UInt64(ops)) ns")
    }
} catch let error as KpcError {
    print("libkpc failed: \(error.message) [\(error.status)]")
    exit(1)
}
