//! Finds libkpc at run time through the directory the `kpc` crate's build script found
//! (DEP_KPC_LIB_DIR), and records the compiler's version for the report.
use std::process::Command;

fn main() {
    if let Some(dir) = std::env::var_os("DEP_KPC_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=KPC_BENCH_RUSTC_VERSION={}", version);
}
