//! Lets this crate's tests and examples find libkpc at run time: the `kpc` crate's build
//! script found its directory (KPC_LIB_DIR or pkg-config) and passes it as DEP_KPC_LIB_DIR.
fn main() {
    if let Some(dir) = std::env::var_os("DEP_KPC_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}
