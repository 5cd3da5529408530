//! Finds libkpc and links it. In order:
//!   1. KPC_LIB_DIR: the directory holding libkpc.so / libkpc.dylib (a CMake build tree's
//!      `<build>/src`, or an install's lib directory);
//!   2. pkg-config: `pkg-config --variable=libdir kpc` (set PKG_CONFIG_PATH for a prefix of
//!      your own, e.g. $HOME/opt/kpc/lib/pkgconfig).
//! The directory goes into this crate's own test and example binaries as an rpath, and to
//! dependent crates as DEP_KPC_LIB_DIR (this package has `links = "kpc"`), so that their
//! build scripts can do the same. Only the standard library: no build dependencies.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=KPC_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    let dir = match env::var_os("KPC_LIB_DIR") {
        Some(dir) => checked(PathBuf::from(dir), "KPC_LIB_DIR"),
        None => match pkg_config_libdir() {
            Some(dir) => checked(dir, "pkg-config --variable=libdir kpc"),
            None => panic!(
                "libkpc not found: set KPC_LIB_DIR to the directory that holds libkpc.so \
                 (a CMake build's <build>/src, or the lib directory of an install), or install \
                 libkpc where `pkg-config --variable=libdir kpc` finds it (for a prefix of your \
                 own: PKG_CONFIG_PATH=<prefix>/lib/pkgconfig)"
            ),
        },
    };
    for name in LIBRARY_NAMES {
        if dir.join(name).exists() {
            println!("cargo:rerun-if-changed={}", dir.join(name).display());
        }
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=kpc");
    // For this crate's tests and examples; dependents read DEP_KPC_LIB_DIR.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    println!("cargo:lib_dir={}", dir.display());
}

/// The directory, made absolute (so the rpath works from anywhere), if it holds libkpc.
fn checked(dir: PathBuf, from: &str) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or(dir);
    if !has_libkpc(&dir) {
        panic!(
            "no libkpc.so or libkpc.dylib in {} (from {}): build the CMake target `kpc` \
             first, or point KPC_LIB_DIR at the directory that holds the library",
            dir.display(),
            from
        );
    }
    dir
}

const LIBRARY_NAMES: [&str; 2] = ["libkpc.so", "libkpc.dylib"];

fn has_libkpc(dir: &Path) -> bool {
    LIBRARY_NAMES.iter().any(|name| dir.join(name).exists())
}

fn pkg_config_libdir() -> Option<PathBuf> {
    let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let out = Command::new(pkg_config)
        .args(["--variable=libdir", "kpc"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let dir = String::from_utf8(out.stdout).ok()?;
    let dir = dir.trim();
    if dir.is_empty() {
        None
    } else {
        Some(PathBuf::from(dir))
    }
}
