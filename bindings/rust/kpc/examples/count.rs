//! Counts events around a piece of work on this thread. Run: cargo run --example count
use kpc::Sampler;

fn main() {
    if let Err(e) = run() {
        eprintln!("count: {}", e); // libkpc's message: the cause and the fix
        std::process::exit(1);
    }
}

fn run() -> Result<(), kpc::SamplerError> {
    let sampler = Sampler::new()?;
    // Generic names mean the same everywhere; "cycles" and "instructions" need a PMU.
    let mut counters = sampler.thread(["task-clock", "page-faults"])?;
    counters.start()?;
    let before = counters.sample()?;
    let mut v: Vec<u64> = (0..1_000_000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    v.sort_unstable(); // the work being measured
    let after = counters.sample()?;
    println!(
        "task-clock {} ns, page-faults {} (sorted {} numbers, median {})",
        after[0] - before[0],
        after[1] - before[1],
        v.len(),
        v[v.len() / 2]
    );
    Ok(())
}
