import Kpc

do {
    let sampler = try Sampler()  // KPC_BACKEND, else kperf on macOS, perf_event on Linux
    print("libkpc \(Version.string): \(sampler.backendName) on \(sampler.cpuName)")

    // Apple has no software events; a VM usually has no hardware ones.
    let names = sampler.backend == .kperf ? ["cycles", "instructions"] : ["task-clock", "page-faults"]
    let counters = try sampler.counters(names)  // counts this thread only
    try counters.start()
    let before = try counters.sample()

    var sum = 0.0
    for i in 1...5_000_000 { sum += 1.0 / Double(i) }

    let after = try counters.sample()
    for (event, (a, b)) in zip(counters.events, zip(after, before)) {
        print("\(event.name): \(a - b)")
    }
    print("(sum \(sum))")
} catch let error as KpcError {
    print("libkpc failed: \(error.message) [\(error.status), code \(error.code)]")
}
