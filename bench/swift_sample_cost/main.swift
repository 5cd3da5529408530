// What a sample costs from Swift, next to the bare C kp_thread_sample, side by side in one run
// (docs/performance.md, "Swift: the cost of a sample (issue 9)").
//
// Each round times, back to back and in alternating order, --reads calls of
//   C                  kp_thread_sample in a C loop: Counters.calibrate(rounds: reads / 2)
//                      makes reads back-to-back kp_thread_sample calls in C (keeping a
//                      minimum, a few instructions), so its time / reads is the bare C cost
//   Swift call         kp_thread_sample called straight from Swift into a preallocated buffer
//                      (its own handle, same events): the least Swift can do
//   sample(into:)      Counters.sample(into:), the binding's allocation-free path
//   sample()           Counters.sample(), which also allocates the array it returns
// and prints the median ns per call of each and the median over rounds of each / C (paired
// per round, which cancels load that changes between rounds) with the interquartile range,
// then the absolute overhead per call: the binding's samples minus the direct Swift call,
// and that call minus C (paired per round). Time is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID). Run under
// LD_PRELOAD=<build>/bench/swift_sample_cost/libkpc_alloc_preload.so it also counts the heap
// allocations of the sample(into:) loops and exits 1 if there are any (and those of the
// sample() loops, one array per call, which shows the counting works). Nothing is asserted on
// time.
//
//   swift build -c release --product KpcSampleCost
//   .build/release/KpcSampleCost [--rounds 31] [--reads 10000] [--events task-clock,page-faults,context-switches]
// (CTest's swift_sample_cost runs a short pass of the debug build.)
import CKpc
import Kpc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func threadNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// x with exactly `digits` decimals (no Foundation for String(format:)).
func fixed(_ x: Double, _ digits: Int) -> String {
    var scale = 1
    for _ in 0..<digits { scale *= 10 }
    let v = Int((x * Double(scale)).rounded())
    let frac = String(v % scale)
    return "\(v / scale)." + String(repeating: "0", count: digits - frac.count) + frac
}

/// fixed() for either sign: a difference of two timings may be negative.
func signedFixed(_ x: Double, _ digits: Int) -> String {
    return x < 0 ? "-" + fixed(-x, digits) : fixed(x, digits)
}

func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return left ? s + fill : fill + s
}

/// The counting allocator's entry points, when libkpc_alloc_preload.so is preloaded.
typealias AllocBegin = @convention(c) () -> Void
typealias AllocEnd = @convention(c) () -> UInt64
let handle = dlopen(nil, RTLD_NOW)
let allocBegin = dlsym(handle, "kpc_alloc_preload_begin").map { unsafeBitCast($0, to: AllocBegin.self) }
let allocEnd = dlsym(handle, "kpc_alloc_preload_end").map { unsafeBitCast($0, to: AllocEnd.self) }

var rounds = 31
var reads = 10_000
var events = "task-clock,page-faults,context-switches"
var args = CommandLine.arguments.dropFirst()
while let flag = args.popFirst() {
    guard let value = args.popFirst() else { fatalError("\(flag) needs a value") }
    switch flag {
    case "--rounds": rounds = Int(value)!
    case "--reads": reads = Int(value)!
    case "--events": events = value
    default: fatalError("unknown option \(flag)")
    }
}
reads = max(2, reads / 2 * 2)  // the C loop makes reads / 2 pairs
let names = events.split(separator: ",").map(String.init)

do {
    let sampler = try Sampler()
    let counters = try sampler.counters(names)
    try counters.start()
    let n = counters.count

    // A second handle, sampled straight through the C API.
    var bare: OpaquePointer?
    var bareSampler: OpaquePointer?
    var cNames = names.map { strdup($0) }
    defer { cNames.forEach { free($0) } }
    let rc = cNames.withUnsafeMutableBufferPointer { buf -> Int32 in
        var rc = kp_sampler_new(&bareSampler, nil)
        if rc == 0 {
            rc = buf.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                kp_thread_new(&bare, bareSampler, $0.baseAddress, $0.count)
            }
        }
        if rc == 0 { rc = kp_thread_start(bare) }
        return rc
    }
    kp_sampler_free(bareSampler)
    guard rc == 0 else { fatalError("bare handle: \(String(cString: kp_error_last_message()))") }
    defer { kp_thread_free(bare) }
    let raw = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: n)
    defer { raw.deallocate() }

    var values = [UInt64](repeating: 0, count: n)
    var sink: UInt64 = 0
    var allocations: UInt64 = 0       // in the sample(into:) loops
    var arrayAllocations: UInt64 = 0  // in the sample() loops: shows the counter counts
    let methods: [(String, (Int) throws -> UInt64)] = [
        ("C loop of kp_thread_sample", { calls in
            let t0 = threadNs()
            _ = try counters.calibrate(rounds: UInt32(calls / 2))
            return threadNs() - t0
        }),
        ("Swift call of kp_thread_sample", { calls in
            let t0 = threadNs()
            for _ in 0..<calls where kp_thread_sample(bare, raw.baseAddress, n) != 0 {
                fatalError("kp_thread_sample failed")
            }
            return threadNs() - t0
        }),
        ("Counters.sample(into:)", { calls in
            allocBegin?()
            let t0 = threadNs()
            for _ in 0..<calls { try counters.sample(into: &values) }
            let ns = threadNs() - t0
            allocations += allocEnd?() ?? 0
            return ns
        }),
        ("Counters.sample()", { calls in
            allocBegin?()
            let t0 = threadNs()
            for _ in 0..<calls { sink &+= try counters.sample()[0] }
            let ns = threadNs() - t0
            arrayAllocations += allocEnd?() ?? 0
            return ns
        }),
    ]

    var perCall = [[Double]](repeating: [], count: methods.count)
    var order = Array(methods.indices)
    for round in -1..<rounds {  // round -1 warms up
        order.reverse()
        if round == 0 { (allocations, arrayAllocations) = (0, 0) }
        for m in order {
            let ns = Double(try methods[m].1(reads)) / Double(reads)
            if round >= 0 { perCall[m].append(ns) }
        }
    }

    print("libkpc \(Version.string), \(sampler.backendName) backend, events \(events); "
        + "\(rounds) rounds x \(reads) reads per method (sink \(sink % 10))")
    print(pad("method", 32, left: true) + pad("ns/call", 9) + pad("/ C", 8) + "  round ratios")
    for (m, (name, _)) in methods.enumerated() {
        var line = pad(name, 32, left: true) + pad(fixed(median(perCall[m]), 1), 9)
        if m > 0 {
            let ratios = zip(perCall[m], perCall[0]).map { $0 / $1 }.sorted()
            line += pad(fixed(median(ratios), 3), 8) + "  " + fixed(ratios[rounds / 4], 3) + "-"
                + fixed(ratios[(3 * rounds) / 4], 3)
        }
        print(line)
    }
    // Absolute costs, paired within each round: they stay meaningful when the C sample gets
    // cheap and every ratio to it grows.
    print("absolute overhead per call, ns (median over rounds of the paired difference; C sample "
        + fixed(median(perCall[0]), 1) + " ns):")
    for (a, b) in [(2, 1), (3, 1), (1, 0)] {
        let d = zip(perCall[a], perCall[b]).map { $0 - $1 }.sorted()
        print(pad(methods[a].0 + " - " + methods[b].0, 60, left: true) + pad(signedFixed(median(d), 1), 9)
            + "  " + signedFixed(d[rounds / 4], 1) + " to " + signedFixed(d[(3 * rounds) / 4], 1))
    }
    if allocBegin != nil && allocEnd != nil {
        print("allocations in \(rounds * reads) Counters.sample(into:) calls: \(allocations)")
        print("allocations in \(rounds * reads) Counters.sample() calls: \(arrayAllocations)")
        if allocations > 0 {
            print("Counters.sample(into:) allocates")
            exit(1)
        }
    } else {
        print("allocations: not counted (run with LD_PRELOAD=<build>/bench/swift_sample_cost/libkpc_alloc_preload.so)")
    }
} catch let error as KpcError {
    print("libkpc failed: \(error.message) [\(error.status)]")
    exit(1)
}
