//! What a released ABI promises a compiled foreign caller, pinned from outside C:
//! enumerator values never change and only grow at the end, options structs keep their
//! field offsets and grow only with a new version number, and the header constants agree
//! with the library actually loaded. bindgen's own layout tests (in the lib target) check
//! that Rust and C agree on today's layout; these check that today's layout is still the
//! released one. See docs/api-stability.md.
use std::mem::{align_of, size_of, MaybeUninit};
use std::os::raw::{c_int, c_void};
use std::ptr::addr_of;

use kpc_abi_tests::check::{c_string, expect_ok, expect_status};
use kpc_abi_tests::enums::ENUM_CONSTANTS;
use kpc_abi_tests::sys;

/// Every enumerator as released in 0.1.0: (enum, name, value). Append, never edit.
const RELEASED: &[(&str, &str, i64)] = &[
    ("kp_status", "KP_OK", 0),
    ("kp_status", "KP_ERROR", -1),
    ("kp_status", "KP_EINVAL", -2),
    ("kp_status", "KP_ENOMEM", -3),
    ("kp_status", "KP_ELOAD", -4),
    ("kp_status", "KP_EPERM", -5),
    ("kp_status", "KP_EBUSY", -6),
    ("kp_status", "KP_EUNSUPPORTED", -7),
    ("kp_status", "KP_EUNKNOWN_EVENT", -8),
    ("kp_status", "KP_EUNAVAILABLE", -9),
    ("kp_status", "KP_ECONFLICT", -10),
    ("kp_status", "KP_EWRONG_THREAD", -11),
    ("kp_status", "KP_ESTATE", -12),
    ("kp_status", "KP_ELAYOUT", -13),
    ("kp_status", "KP_EFRAMEWORK", -14),
    ("kp_status", "KP_EKERNEL", -15),
    ("kp_status", "KP_EBUFSIZE", -16),
    ("kp_status", "KP_EPARTIAL", -17),
    ("kp_status", "KP_EEXEC", -18),
    ("kp_event_kind", "KP_EVENT_FIXED", 0),
    ("kp_event_kind", "KP_EVENT_CONFIGURABLE", 1),
    ("kp_event_kind", "KP_EVENT_SOFTWARE", 2),
    ("kp_backend", "KP_BACKEND_AUTO", 0),
    ("kp_backend", "KP_BACKEND_KPERF", 1),
    ("kp_backend", "KP_BACKEND_PERF_EVENT", 2),
    ("kp_backend", "KP_BACKEND_RECOUNT", 3),
    ("kp_event_unit", "KP_EVENT_UNIT_COUNT", 0),
    ("kp_event_unit", "KP_EVENT_UNIT_NANOSECONDS", 1),
];

/// sizeof(kp_sampler_options_t) for each KP_SAMPLER_OPTIONS_VERSION ever released, in
/// pointer-size-independent form: (version, bytes before the pointers, pointer count).
/// Version 2 appends the int user_reads, padded to pointer alignment: 4 + 4 bytes on 64-bit
/// and 4 on 32-bit, which is one more "pointer" either way.
const OPTIONS_SIZES: &[(u32, usize, usize)] = &[(1, 8, 2), (2, 8, 3)];

/// The same for kp_process_options_t and KP_PROCESS_OPTIONS_VERSION: version and flags,
/// then the groups pointer.
const PROCESS_OPTIONS_SIZES: &[(u32, usize, usize)] = &[(1, 8, 1)];

/// The size `table` gives for options structure version `current`, for pointers of
/// `ptr_size` bytes; panics naming `what` when the version has no row.
fn released_size(
    table: &[(u32, usize, usize)],
    current: u32,
    what: &str,
    ptr_size: usize,
) -> usize {
    let row = table
        .iter()
        .find(|(v, _, _)| *v == current)
        .unwrap_or_else(|| {
            panic!(
                "{} version {} has no row in this file's size table: add the new version's size \
             (fields are only appended)",
                what, current
            )
        });
    row.1 + row.2 * ptr_size
}

fn released_value(ty: &str, name: &str) -> Option<i64> {
    RELEASED
        .iter()
        .find(|(t, n, _)| *t == ty && *n == name)
        .map(|(_, _, v)| *v)
}

#[test]
fn released_enumerators_keep_their_values() {
    for (ty, name, value) in RELEASED {
        let now = ENUM_CONSTANTS.iter().find(|(t, n, _)| t == ty && n == name);
        match now {
            None => panic!(
                "{}::{} (= {}) was released and has disappeared from the headers; \
                            enumerators are never removed (docs/api-stability.md)",
                ty, name, value
            ),
            Some((_, _, v)) => assert_eq!(
                v, value,
                "{}::{} changed from {} to {}; released values never change",
                ty, name, value, v
            ),
        }
    }
}

#[test]
fn new_enumerators_only_extend_the_end() {
    for (ty, name, value) in ENUM_CONSTANTS {
        if released_value(ty, name).is_some() {
            continue;
        }
        let released: Vec<i64> = RELEASED
            .iter()
            .filter(|(t, _, _)| t == ty)
            .map(|(_, _, v)| *v)
            .collect();
        if released.is_empty() {
            continue; // an enum added after 0.1.0: add its values to RELEASED when it ships
        }
        // Status codes grow downwards (more negative); every other enum grows upwards.
        let beyond = if *ty == "kp_status" {
            *value < *released.iter().min().unwrap()
        } else {
            *value > *released.iter().max().unwrap()
        };
        assert!(
            beyond,
            "new enumerator {}::{} = {} reuses or falls inside the released range {:?}; \
             new values go after the last one",
            ty, name, value, released
        );
    }
}

#[test]
fn enumerator_values_are_unique_within_each_enum() {
    for (i, (ty, name, value)) in ENUM_CONSTANTS.iter().enumerate() {
        for (ty2, name2, value2) in &ENUM_CONSTANTS[i + 1..] {
            assert!(
                !(ty == ty2 && value == value2),
                "{}::{} and {} share the value {}",
                ty,
                name,
                name2,
                value
            );
        }
    }
}

#[test]
fn enums_are_int_sized() {
    // bindgen picks the enum's integer type from the C compiler's view of it.
    assert_eq!(size_of::<sys::kp_status>(), size_of::<c_int>());
    assert_eq!(size_of::<sys::kp_event_kind_t>(), size_of::<c_int>());
    assert_eq!(size_of::<sys::kp_backend_t>(), size_of::<c_int>());
    assert_eq!(align_of::<sys::kp_backend_t>(), align_of::<c_int>());
    assert_eq!(size_of::<sys::kp_user_reads_t>(), size_of::<c_int>());
}

#[test]
fn sampler_options_layout_is_the_released_one() {
    let opts = MaybeUninit::<sys::kp_sampler_options_t>::uninit();
    let base = opts.as_ptr();
    let offset = |field: *const u8| field as usize - base as usize;
    let ptr_size = size_of::<*const c_void>();
    unsafe {
        assert_eq!(
            offset(addr_of!((*base).version) as *const u8),
            0,
            "version must stay the first field"
        );
        assert_eq!(offset(addr_of!((*base).backend) as *const u8), 4);
        assert_eq!(offset(addr_of!((*base).kperf_path) as *const u8), 8);
        assert_eq!(
            offset(addr_of!((*base).kperfdata_path) as *const u8),
            8 + ptr_size
        );
        assert_eq!(
            offset(addr_of!((*base).user_reads) as *const u8),
            8 + 2 * ptr_size
        );
    }
    let expected = released_size(
        OPTIONS_SIZES,
        sys::KP_SAMPLER_OPTIONS_VERSION,
        "kp_sampler_options_t",
        ptr_size,
    );
    assert_eq!(
        size_of::<sys::kp_sampler_options_t>(),
        expected,
        "kp_sampler_options_t changed size without a new KP_SAMPLER_OPTIONS_VERSION; append \
         fields and bump the version (docs/api-stability.md)"
    );
}

#[test]
fn every_released_options_version_is_still_accepted() {
    for version in 1..=sys::KP_SAMPLER_OPTIONS_VERSION {
        let mut opts = sys::kp_sampler_options_t {
            version: 12345,
            backend: 7,
            kperf_path: 1 as *const _,
            kperfdata_path: 1 as *const _,
            user_reads: 9,
        };
        expect_ok(
            unsafe { sys::kp_sampler_options_init(&mut opts, version) },
            "kp_sampler_options_init",
        );
        assert_eq!(opts.version, version);
        assert_eq!(opts.backend, sys::KP_BACKEND_AUTO);
        assert!(
            opts.kperf_path.is_null() && opts.kperfdata_path.is_null(),
            "init must reset the paths to NULL"
        );
        // Version 1 ends before user_reads: init must not write it.
        let expected_reads = if version >= 2 { sys::KP_USER_READS_AUTO } else { 9 };
        assert_eq!(opts.user_reads, expected_reads);
    }
    let mut opts = MaybeUninit::<sys::kp_sampler_options_t>::zeroed();
    let rc = unsafe {
        sys::kp_sampler_options_init(opts.as_mut_ptr(), sys::KP_SAMPLER_OPTIONS_VERSION + 1)
    };
    expect_status(
        rc,
        sys::KP_EINVAL,
        "kp_sampler_options_init(a future version)",
    );
}

#[test]
fn process_options_layout_is_the_released_one() {
    let opts = MaybeUninit::<sys::kp_process_options_t>::uninit();
    let base = opts.as_ptr();
    let offset = |field: *const u8| field as usize - base as usize;
    unsafe {
        assert_eq!(
            offset(addr_of!((*base).version) as *const u8),
            0,
            "version must stay the first field"
        );
        assert_eq!(offset(addr_of!((*base).flags) as *const u8), 4);
        assert_eq!(offset(addr_of!((*base).groups) as *const u8), 8);
    }
    let ptr_size = size_of::<*const c_void>();
    assert_eq!(
        size_of::<sys::kp_process_options_t>(),
        released_size(
            PROCESS_OPTIONS_SIZES,
            sys::KP_PROCESS_OPTIONS_VERSION,
            "kp_process_options_t",
            ptr_size
        ),
        "kp_process_options_t changed size without a new KP_PROCESS_OPTIONS_VERSION; append \
         fields and bump the version (docs/api-stability.md)"
    );
    assert_eq!(
        align_of::<sys::kp_process_options_t>(),
        align_of::<*const c_void>()
    );
    // The flag and pid values a compiled caller passes.
    assert_eq!(sys::KP_PROCESS_PARTIAL, 1);
    assert_eq!(sys::KP_PROCESS_SYSTEM_WIDE, -1);
    // The limits a caller sizes its arrays by.
    assert_eq!(sys::KP_MAX_EVENTS, 32);
    assert_eq!(sys::KP_EVENT_NAME_MAX, 256);
}

#[test]
fn every_released_process_options_version_is_still_accepted() {
    for version in 1..=sys::KP_PROCESS_OPTIONS_VERSION {
        let mut opts = sys::kp_process_options_t {
            version: 12345,
            flags: 7,
            groups: 1 as *const _,
        };
        expect_ok(
            unsafe { sys::kp_process_options_init(&mut opts, version) },
            "kp_process_options_init",
        );
        assert_eq!(opts.version, version);
        assert_eq!(opts.flags, 0, "init must clear the flags");
        assert!(opts.groups.is_null(), "init must reset groups to NULL");
    }
    let mut opts = MaybeUninit::<sys::kp_process_options_t>::zeroed();
    let rc = unsafe {
        sys::kp_process_options_init(opts.as_mut_ptr(), sys::KP_PROCESS_OPTIONS_VERSION + 1)
    };
    expect_status(
        rc,
        sys::KP_EINVAL,
        "kp_process_options_init(a future version)",
    );
}

#[test]
fn header_version_matches_the_loaded_library() {
    let number = unsafe { sys::kp_version_number() };
    assert_eq!(
        number as u32,
        sys::KP_VERSION_NUMBER,
        "kp_version_number() vs KP_VERSION_NUMBER"
    );
    assert_eq!(
        sys::KP_VERSION_NUMBER,
        sys::KP_VERSION_MAJOR * 10000 + sys::KP_VERSION_MINOR * 100 + sys::KP_VERSION_PATCH
    );
    let header = std::str::from_utf8(sys::KP_VERSION_STRING)
        .unwrap()
        .trim_end_matches('\0');
    assert_eq!(
        header,
        format!(
            "{}.{}.{}",
            sys::KP_VERSION_MAJOR,
            sys::KP_VERSION_MINOR,
            sys::KP_VERSION_PATCH
        )
    );
    let runtime =
        c_string(unsafe { sys::kp_version_string() }).expect("kp_version_string() returned NULL");
    assert_eq!(runtime, header, "kp_version_string() vs KP_VERSION_STRING");
}
