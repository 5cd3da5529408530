//! Generates the FFI module from the public C header with Debian's `bindgen` command (no
//! crates.io access, so not the bindgen crate), derives a table of every enum constant from
//! it, and links the test binaries against the libkpc.so that CMake built.
//!
//! Environment (CTest sets all of it; see tests/rust/CMakeLists.txt):
//!   KPC_LIB_DIR      directory holding libkpc.so (required)
//!   KPC_INCLUDE_DIR  directory holding kpc/kpc.h (default: ../../include)
//!   BINDGEN          bindgen executable (default: `bindgen` on PATH)

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const DEBIAN_PACKAGES: &str = "bindgen libclang1-14 libclang-common-14-dev";

fn main() {
    for var in ["KPC_LIB_DIR", "KPC_INCLUDE_DIR", "BINDGEN", "LIBCLANG_PATH"] {
        println!("cargo:rerun-if-env-changed={}", var);
    }
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let include_dir = match env::var_os("KPC_INCLUDE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => manifest_dir.join("../../include"),
    };
    let umbrella = include_dir.join("kpc").join("kpc.h");
    if !umbrella.is_file() {
        panic!(
            "{} does not exist: set KPC_INCLUDE_DIR to the directory that holds kpc/kpc.h",
            umbrella.display()
        );
    }
    watch_headers(&include_dir.join("kpc"));

    // kpc/kpc.h plus every header it does not include (kperf_raw.h, later ones), so each
    // public struct gets its layout test without this file being edited.
    let wrapper = out_dir.join("kpc_all.h");
    fs::write(&wrapper, wrapper_header(&include_dir.join("kpc"))).expect("write kpc_all.h");
    let bindings = out_dir.join("kpc_sys.rs");
    run_bindgen(&wrapper, &include_dir, &bindings);
    let text = fs::read_to_string(&bindings).expect("read the generated bindings");
    fs::write(out_dir.join("kpc_enums.rs"), enum_table(&text)).expect("write kpc_enums.rs");

    link_libkpc();
}

/// Rebuild when any public header changes or a header is added.
fn watch_headers(dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
    }
}

fn wrapper_header(kpc_dir: &Path) -> String {
    let mut headers: Vec<String> = fs::read_dir(kpc_dir)
        .expect("list the public headers")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".h") && name != "kpc.h")
        .collect();
    headers.sort();
    let mut text = String::from("#include <kpc/kpc.h>\n");
    for h in headers {
        text.push_str(&format!("#include <kpc/{}>\n", h));
    }
    text
}

fn run_bindgen(header: &Path, include_dir: &Path, output: &Path) {
    let bindgen = env::var("BINDGEN").unwrap_or_else(|_| "bindgen".to_string());
    // Only libkpc's own names; layout tests stay on (bindgen's default).
    let status = Command::new(&bindgen)
        .arg(header)
        .arg("-o")
        .arg(output)
        .args(["--allowlist-function", "kp_.*"])
        .args(["--allowlist-type", "kp_.*"])
        .args(["--allowlist-var", "KP_.*"])
        .args(["--no-prepend-enum-name"])
        .args(size_t_flag(&bindgen))
        .arg("--")
        .arg(format!("-I{}", include_dir.display()))
        .args(["-x", "c", "-std=c99"])
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!(
            "`{} {}` failed ({}). If it says libclang was not found, install the Debian \
             packages {} (or set LIBCLANG_PATH); if the header does not parse, fix the header.",
            bindgen,
            header.display(),
            s,
            DEBIAN_PACKAGES
        ),
        Err(e) => panic!(
            "cannot run `{}` ({}): install the Debian packages {} or set BINDGEN to the \
             bindgen executable",
            bindgen, e, DEBIAN_PACKAGES
        ),
    }
}

/// bindgen before 0.61 maps size_t to c_ulong unless told otherwise; later versions do it
/// by default and dropped the flag.
fn size_t_flag(bindgen: &str) -> Vec<&'static str> {
    let version = Command::new(bindgen)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    // "bindgen 0.60.1"
    let numbers: Vec<u32> = version
        .split_whitespace()
        .last()
        .unwrap_or("")
        .split('.')
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    match numbers.as_slice() {
        [0, minor, ..] if *minor < 61 => vec!["--size_t-is-usize"],
        _ => vec![],
    }
}

/// Turns bindgen's enum output (`pub const NAME: kp_type = value;` and
/// `pub type kp_type = ::std::os::raw::c_int;`) into a table of every constant, so tests
/// cover codes added to the header later without being edited.
///
/// bindgen formats its output with rustfmt only when rustfmt is installed; without it every
/// item shares one line with spaces between all tokens. So items are read as statements
/// (up to `;`) with the whitespace taken out, which is the same text either way.
fn enum_table(bindings: &str) -> String {
    let statements: Vec<String> = bindings
        .split(';')
        .map(|item| {
            // What follows the end of an earlier item (a struct's `}`, an attribute's `]`).
            let start = item.rfind(|c| c == '}' || c == ']').map_or(0, |i| i + 1);
            item[start..].split_whitespace().collect::<String>()
        })
        .collect();
    let enum_types: Vec<&str> = statements
        .iter()
        .filter_map(|st| st.strip_prefix("pubtype")?.split_once('='))
        .filter(|(name, ty)| name.starts_with("kp_") && ty.starts_with("::std::os::raw::c_"))
        .map(|(name, _)| name)
        .collect();
    let mut out = String::from(
        "/// Every enumerator of every public enum: (enum type, name, value).\n\
         pub const ENUM_CONSTANTS: &[(&str, &str, i64)] = &[\n",
    );
    for st in &statements {
        // NAME:kp_type=value
        let (name, ty, value) = match st
            .strip_prefix("pubconst")
            .and_then(|r| r.split_once(':'))
            .and_then(|(name, rest)| rest.split_once('=').map(|(ty, value)| (name, ty, value)))
        {
            Some(parts) => parts,
            None => continue,
        };
        if !enum_types.contains(&ty) || value.parse::<i64>().is_err() {
            continue;
        }
        out.push_str(&format!(
            "    ({:?}, {:?}, sys::{} as i64),\n",
            ty, name, name
        ));
    }
    out.push_str("];\n");
    out
}

fn link_libkpc() {
    let lib_dir = match env::var_os("KPC_LIB_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => panic!(
            "KPC_LIB_DIR is not set: point it at the directory holding libkpc.so \
             (<cmake build dir>/src), or run these tests through `ctest -R rust_`"
        ),
    };
    let found = ["libkpc.so", "libkpc.dylib"]
        .iter()
        .any(|name| lib_dir.join(name).exists());
    if !found {
        panic!(
            "no libkpc.so in KPC_LIB_DIR={}: build the `kpc` target first",
            lib_dir.display()
        );
    }
    // Absolute, so a relative KPC_LIB_DIR still gives a usable rpath.
    let lib_dir = fs::canonicalize(&lib_dir).unwrap_or(lib_dir);
    println!(
        "cargo:rerun-if-changed={}",
        lib_dir.join("libkpc.so").display()
    );
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=kpc");
    // dlopen/dlsym for the simulator controls (in libc itself from glibc 2.34 on).
    if env::var("CARGO_CFG_TARGET_OS")
        .map(|os| os == "linux")
        .unwrap_or(false)
    {
        println!("cargo:rustc-link-lib=dylib=dl");
    }
    // The test binaries find the library without LD_LIBRARY_PATH.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
}
