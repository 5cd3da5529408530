// Uses the Kpc product from outside the package: identifies the machine and counts where
// this process may. Exits non-zero on any libkpc error.
import Foundation
import Kpc

do {
    let sampler = try Sampler()
    print("libkpc \(Version.string): \(sampler.backendName), cpu '\(sampler.cpuID)' (\(sampler.cpuName))")
    let names = sampler.backend == .kperf ? ["cycles", "instructions"] : ["task-clock", "page-faults"]
    for name in names {
        let event = try sampler.event(named: name)
        print("  \(name) -> \(event.nativeName)" + (event.isAvailable ? "" : " (unavailable)"))
    }
    do {
        if sampler.backend == .kperf { try sampler.access() }
    } catch let error as KpcError {
        print("counting skipped: \(error.message)")
        exit(0)
    }
    let counters = try sampler.counters(names)
    try counters.start()
    let before = try counters.sample()
    var sum = 0.0
    for i in 1...3_000_000 { sum += 1.0 / Double(i) }
    let after = try counters.sample()
    print("  counted \(names[0]): \(after[0] - before[0]) (sum \(sum))")
    if after[0] <= before[0] {
        print("FAIL: \(names[0]) did not grow")
        exit(1)
    }
} catch let error as KpcError {
    print("FAIL: libkpc: \(error.message) [\(error.status)]")
    exit(1)
}
