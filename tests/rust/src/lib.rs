//! Support crate for the integration tests in tests/: the bindgen-generated FFI module and
//! a few helpers. The tests call the C API through `sys` exactly as a foreign-language
//! binding would; the helpers only shorten the error checks.
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code
)]

/// FFI declarations generated from include/kpc/kpc.h by build.rs (never edited by hand),
/// with bindgen's layout tests for every public struct.
pub mod sys {
    include!(concat!(env!("OUT_DIR"), "/kpc_sys.rs"));
}

/// Every enumerator of the public enums, derived from `sys` by build.rs.
pub mod enums {
    use crate::sys;
    include!(concat!(env!("OUT_DIR"), "/kpc_enums.rs"));
}

pub mod check;
pub mod handles;
pub mod kpsim;
pub mod memory;
pub mod skip;
