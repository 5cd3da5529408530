//! kp_process_t through FFI, as a binding drives it: a child process spawned and counted
//! through the C API (this test binary, re-run to fault a known number of pages), its exit
//! code and signal, this process counted whole, and the documented refusals.
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::ptr;
use std::sync::{Mutex, MutexGuard};

use kpc_abi_tests::check::{expect_ok, expect_status, last_message, status_name};
use kpc_abi_tests::handles::perf_event_sampler;
use kpc_abi_tests::memory::touch_fresh_pages;
use kpc_abi_tests::skip::skip;
use kpc_abi_tests::sys;

const CHILD_PAGES: usize = 4000;

/// The tests of this file take turns: a process counted whole counts every thread and child
/// of it, so one test's threads and children would land in another's counts, and a thread
/// created at the moment of kp_process_stop() may escape the stop (see kpc/process.h).
static SERIAL: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
const CHILD_ENV: &str = "KPC_PROCESS_RS_CHILD";

/// Not a test of its own: the body of the spawned child. It does its work only when the
/// parent test re-runs this binary for it (with CHILD_ENV set).
#[test]
fn child_touches_pages() {
    if std::env::var_os(CHILD_ENV).is_some() {
        assert_eq!(touch_fresh_pages(CHILD_PAGES), 0);
    }
}

fn c_strings(items: &[&str]) -> Vec<CString> {
    items.iter().map(|s| CString::new(*s).unwrap()).collect()
}

fn pointers(owned: &[CString]) -> Vec<*const c_char> {
    owned.iter().map(|c| c.as_ptr()).collect()
}

/// A constructor call: (out, events, count, argv) -> status.
type SpawnCall<'a> = dyn FnOnce(
        *mut *mut sys::kp_process_t,
        *const *const c_char,
        usize,
        *const *const c_char,
    ) -> c_int
    + 'a;

/// `call` (kp_process_spawn or kp_process_spawn_ex) on `events` and `argv` as C arrays;
/// Err carries the status and the message. `what` names the call in assertions.
fn spawn_via(
    what: &str,
    events: &[&str],
    argv: &[&str],
    call: Box<SpawnCall<'_>>,
) -> Result<*mut sys::kp_process_t, (c_int, String)> {
    let names = c_strings(events);
    let name_ptrs = pointers(&names);
    let args = c_strings(argv);
    let mut arg_ptrs = pointers(&args);
    arg_ptrs.push(ptr::null());
    let mut p: *mut sys::kp_process_t = ptr::null_mut();
    let rc = call(&mut p, name_ptrs.as_ptr(), name_ptrs.len(), arg_ptrs.as_ptr());
    if rc == sys::KP_OK {
        assert!(!p.is_null(), "{} returned KP_OK but no handle", what);
        Ok(p)
    } else {
        assert!(p.is_null(), "{} failed but left *out non-NULL", what);
        Err((rc, last_message()))
    }
}

/// kp_process_spawn of `argv`; Err carries the status and the message.
fn try_spawn(
    s: *mut sys::kp_sampler_t,
    events: &[&str],
    argv: &[&str],
) -> Result<*mut sys::kp_process_t, (c_int, String)> {
    spawn_via(
        "kp_process_spawn",
        events,
        argv,
        Box::new(move |out, names, n, args| unsafe { sys::kp_process_spawn(out, s, names, n, args) }),
    )
}

/// try_spawn that must succeed; None (a recorded skip) when the OS forbids counting.
fn spawn(
    s: *mut sys::kp_sampler_t,
    events: &[&str],
    argv: &[&str],
    test: &str,
) -> Option<*mut sys::kp_process_t> {
    match try_spawn(s, events, argv) {
        Ok(p) => Some(p),
        Err((rc, msg)) if rc == sys::KP_EPERM => {
            skip(
                test,
                &format!("the OS does not allow counting here: {}", msg),
            );
            None
        }
        Err((rc, msg)) => panic!(
            "kp_process_spawn({:?}) failed with {}: {}",
            argv,
            status_name(rc),
            msg
        ),
    }
}

fn wait(p: *mut sys::kp_process_t) -> (c_int, c_int) {
    let (mut code, mut sig) = (-2, -2);
    expect_ok(
        unsafe { sys::kp_process_wait(p, &mut code, &mut sig) },
        "kp_process_wait",
    );
    (code, sig)
}

fn read(p: *mut sys::kp_process_t) -> Vec<u64> {
    let n = unsafe { sys::kp_process_event_count(p) };
    let mut values = vec![0u64; n];
    expect_ok(
        unsafe { sys::kp_process_read(p, values.as_mut_ptr(), n) },
        "kp_process_read",
    );
    values
}

#[test]
fn spawned_child_is_counted_with_its_metadata() {
    let _turn = one_at_a_time();
    let exe = std::env::current_exe().expect("the test binary's path");
    let exe = exe.to_str().expect("a UTF-8 path");
    let script = format!(
        "{}=1 exec \"$0\" child_touches_pages --exact --test-threads=1 >/dev/null",
        CHILD_ENV
    );
    let s = perf_event_sampler();
    let p = match spawn(
        s,
        &["page-faults", "task-clock"],
        &["sh", "-c", &script, exe],
        "spawned_child_is_counted_with_its_metadata",
    ) {
        Some(p) => p,
        None => return unsafe { sys::kp_sampler_free(s) },
    };
    assert!(unsafe { sys::kp_process_pid(p) } > 0);
    assert_eq!(wait(p), (0, 0), "the child test failed");
    let mut values = [0u64; 2];
    let mut complete = [9u8; 2];
    let mut enabled = [0u64; 2];
    let mut running = [0u64; 2];
    expect_ok(
        unsafe {
            sys::kp_process_read_full(
                p,
                values.as_mut_ptr(),
                complete.as_mut_ptr(),
                2,
                enabled.as_mut_ptr(),
                running.as_mut_ptr(),
            )
        },
        "kp_process_read_full",
    );
    eprintln!(
        "child: page-faults {}, task-clock {} ns",
        values[0], values[1]
    );
    assert!(
        values[0] >= CHILD_PAGES as u64,
        "{} page faults for {} pages",
        values[0],
        CHILD_PAGES
    );
    assert!(
        values[0] < (CHILD_PAGES + 3000) as u64,
        "{} page faults",
        values[0]
    );
    assert!(values[1] > 0);
    for i in 0..2 {
        assert_eq!(complete[i], 1);
        assert!(enabled[i] > 0 && enabled[i] == running[i]);
        assert_eq!(
            unsafe { sys::kp_process_event_scope(p, i) },
            sys::KP_PROCESS_SCOPE_TREE as c_int
        );
    }
    unsafe {
        sys::kp_process_free(p);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn wait_reports_the_exit_code_or_the_signal() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let test = "wait_reports_the_exit_code_or_the_signal";
    let p = match spawn(s, &["task-clock"], &["sh", "-c", "exit 3"], test) {
        Some(p) => p,
        None => return unsafe { sys::kp_sampler_free(s) },
    };
    assert_eq!(wait(p), (3, 0));
    assert_eq!(wait(p), (3, 0), "a second wait gives the same");
    unsafe { sys::kp_process_free(p) };
    let p = spawn(s, &["task-clock"], &["sh", "-c", "kill -TERM $$"], test).expect("allowed above");
    assert_eq!(wait(p), (-1, 15));
    unsafe {
        sys::kp_process_free(p);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn attached_to_itself_counts_every_thread() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let names = c_strings(&["page-faults"]);
    let ptrs = pointers(&names);
    let mut p: *mut sys::kp_process_t = ptr::null_mut();
    let rc = unsafe { sys::kp_process_attach(&mut p, s, ptrs.as_ptr(), 1, 0) };
    if rc == sys::KP_EPERM {
        skip("attached_to_itself_counts_every_thread", &last_message());
        return unsafe { sys::kp_sampler_free(s) };
    }
    expect_ok(rc, "kp_process_attach(0)");
    assert_eq!(unsafe { sys::kp_process_pid(p) }, std::process::id() as i32);
    let before = read(p)[0];
    std::thread::spawn(|| assert_eq!(touch_fresh_pages(2000), 0))
        .join()
        .unwrap();
    let after = read(p)[0];
    assert!(
        after - before >= 2000,
        "{} faults counted for 2000 pages on another thread",
        after - before
    );
    expect_ok(unsafe { sys::kp_process_stop(p) }, "kp_process_stop");
    assert_eq!(unsafe { sys::kp_process_is_counting(p) }, 0);
    std::thread::spawn(|| assert_eq!(touch_fresh_pages(500), 0))
        .join()
        .unwrap();
    assert_eq!(read(p)[0], after, "counted while stopped");
    let rc = unsafe { sys::kp_process_wait(p, ptr::null_mut(), ptr::null_mut()) };
    expect_status(rc, sys::KP_ESTATE, "kp_process_wait on an attached process");
    unsafe {
        sys::kp_process_free(p);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn refusals_carry_code_and_cause() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let err = try_spawn(s, &["task-clock"], &["kpc-no-such-program-anywhere"]).unwrap_err();
    assert_eq!(err.0, sys::KP_EEXEC, "{}", err.1);
    assert!(
        err.1.contains("kpc-no-such-program-anywhere") && err.1.contains("PATH"),
        "{}",
        err.1
    );
    assert_eq!(unsafe { sys::kp_error_last_os_code() }, 2, "ENOENT");
    let names = c_strings(&["task-clock"]);
    let ptrs = pointers(&names);
    let mut p: *mut sys::kp_process_t = ptr::null_mut();
    let rc = unsafe { sys::kp_process_attach(&mut p, s, ptrs.as_ptr(), 1, -5) };
    expect_status(rc, sys::KP_EINVAL, "kp_process_attach(-5)");
    let rc = unsafe { sys::kp_process_spawn(&mut p, s, ptrs.as_ptr(), 1, ptr::null()) };
    expect_status(rc, sys::KP_EINVAL, "kp_process_spawn(argv NULL)");
    assert!(p.is_null());
    unsafe {
        assert_eq!(
            sys::kp_process_read(ptr::null_mut(), ptr::null_mut(), 0),
            sys::KP_EINVAL
        );
        assert_eq!(sys::kp_process_event_scope(ptr::null(), 0), -1);
        assert_eq!(sys::kp_process_pid(ptr::null()), -1);
        sys::kp_process_free(ptr::null_mut());
        sys::kp_sampler_free(s);
    }
}

/// kp_process_spawn_ex of `argv` with `options`; Err carries the status and the message.
fn try_spawn_ex(
    s: *mut sys::kp_sampler_t,
    events: &[&str],
    argv: &[&str],
    options: &sys::kp_process_options_t,
) -> Result<*mut sys::kp_process_t, (c_int, String)> {
    spawn_via(
        "kp_process_spawn_ex",
        events,
        argv,
        Box::new(move |out, names, n, args| unsafe {
            sys::kp_process_spawn_ex(out, s, names, n, args, options)
        }),
    )
}

fn options(flags: u32, groups: *const i32) -> sys::kp_process_options_t {
    let mut o = std::mem::MaybeUninit::<sys::kp_process_options_t>::uninit();
    expect_ok(
        unsafe { sys::kp_process_options_init(o.as_mut_ptr(), sys::KP_PROCESS_OPTIONS_VERSION) },
        "kp_process_options_init",
    );
    let mut o = unsafe { o.assume_init() };
    assert_eq!((o.flags, o.groups), (0, ptr::null()), "defaults: no flags, no groups");
    o.flags = flags;
    o.groups = groups;
    o
}

/// (status, reason) of event `index`.
fn event_status(p: *mut sys::kp_process_t, index: usize) -> (c_int, String) {
    let mut status: c_int = 12345;
    let mut reason: *const c_char = ptr::null();
    expect_ok(
        unsafe { sys::kp_process_event_status(p, index, &mut status, &mut reason) },
        "kp_process_event_status",
    );
    assert!(!reason.is_null(), "reason NULL for event {}", index);
    let reason = unsafe { std::ffi::CStr::from_ptr(reason) }
        .to_string_lossy()
        .into_owned();
    (status, reason)
}

#[test]
fn spawn_ex_partial_reports_each_event() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let test = "spawn_ex_partial_reports_each_event";
    // cycles is counted where there is a PMU and reported, not fatal, where there is none.
    let events = ["task-clock", "cycles", "page-faults"];
    let groups: [i32; 3] = [0, -1, 0]; // task-clock and page-faults as one group
    let opts = options(sys::KP_PROCESS_PARTIAL, groups.as_ptr());
    let p = match try_spawn_ex(s, &events, &["sh", "-c", "exit 4"], &opts) {
        Ok(p) => p,
        Err((rc, msg)) if rc == sys::KP_EPERM => {
            skip(test, &format!("the OS does not allow counting here: {}", msg));
            return unsafe { sys::kp_sampler_free(s) };
        }
        Err((rc, msg)) => panic!("kp_process_spawn_ex failed with {}: {}", status_name(rc), msg),
    };
    assert_eq!(wait(p), (4, 0));
    let mut values = [7u64; 3];
    let mut complete = [9u8; 3];
    expect_ok(
        unsafe {
            sys::kp_process_read_full(
                p,
                values.as_mut_ptr(),
                complete.as_mut_ptr(),
                3,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        },
        "kp_process_read_full (partial)",
    );
    for i in [0usize, 2] {
        assert_eq!(event_status(p, i), (sys::KP_OK, String::new()), "{}", events[i]);
        assert!(values[i] > 0, "{} counted 0", events[i]);
    }
    let (status, reason) = event_status(p, 1);
    eprintln!("cycles: {} {} ({})", values[1], status_name(status), reason);
    if status == sys::KP_OK {
        assert!(values[1] > 0 && reason.is_empty());
    } else {
        assert!(!reason.is_empty(), "an uncounted event says why");
        assert_eq!((values[1], complete[1]), (0, 0));
    }
    let mut st: c_int = 0;
    unsafe {
        expect_status(
            sys::kp_process_event_status(p, 3, &mut st, ptr::null_mut()),
            sys::KP_EINVAL,
            "kp_process_event_status(index out of range)",
        );
        expect_status(
            sys::kp_process_event_status(p, 0, ptr::null_mut(), ptr::null_mut()),
            sys::KP_EINVAL,
            "kp_process_event_status(status NULL)",
        );
        expect_status(
            sys::kp_process_event_status(ptr::null(), 0, &mut st, ptr::null_mut()),
            sys::KP_EINVAL,
            "kp_process_event_status(NULL)",
        );
        sys::kp_process_free(p);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn spawn_ex_refuses_bad_options() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let argv = ["true"];
    let mut bad = options(0, ptr::null());
    bad.version = 99;
    let mut o = std::mem::MaybeUninit::<sys::kp_process_options_t>::uninit();
    expect_status(
        unsafe { sys::kp_process_options_init(o.as_mut_ptr(), 99) },
        sys::KP_EINVAL,
        "kp_process_options_init(99)",
    );
    let err = try_spawn_ex(s, &["task-clock"], &argv, &bad).unwrap_err();
    assert_eq!(err.0, sys::KP_EINVAL, "{}", err.1);
    assert!(err.1.contains("KP_PROCESS_OPTIONS_VERSION"), "{}", err.1);
    let err = try_spawn_ex(s, &["task-clock"], &argv, &options(0x80, ptr::null())).unwrap_err();
    assert_eq!(err.0, sys::KP_EINVAL, "{}", err.1);
    let groups: [i32; 1] = [-2];
    let err = try_spawn_ex(s, &["task-clock"], &argv, &options(0, groups.as_ptr())).unwrap_err();
    assert_eq!(err.0, sys::KP_EINVAL, "{}", err.1);
    assert!(err.1.contains("groups[0]"), "{}", err.1);
    // Not privileged: nothing ignored.
    let note = unsafe { std::ffi::CStr::from_ptr(sys::kp_ignored_environment()) };
    assert_eq!(note.to_str().unwrap(), "");
    unsafe { sys::kp_sampler_free(s) };
}

/// kp_process_attach_ex of `pid` with `options` (NULL allowed); Err carries the status and
/// the message.
fn try_attach_ex(
    s: *mut sys::kp_sampler_t,
    events: &[&str],
    pid: i32,
    options: *const sys::kp_process_options_t,
) -> Result<*mut sys::kp_process_t, (c_int, String)> {
    let names = c_strings(events);
    let ptrs = pointers(&names);
    let mut p: *mut sys::kp_process_t = 1 as *mut _; // must be reset to NULL on failure
    let rc = unsafe { sys::kp_process_attach_ex(&mut p, s, ptrs.as_ptr(), ptrs.len(), pid, options) };
    if rc == sys::KP_OK {
        assert!(!p.is_null(), "kp_process_attach_ex returned KP_OK but no handle");
        Ok(p)
    } else {
        assert!(p.is_null(), "kp_process_attach_ex failed but left *out non-NULL");
        Err((rc, last_message()))
    }
}

#[test]
fn attach_ex_system_wide_counts_every_cpu() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let test = "attach_ex_system_wide_counts_every_cpu";
    let p = match try_attach_ex(s, &["task-clock"], sys::KP_PROCESS_SYSTEM_WIDE, ptr::null()) {
        Ok(p) => p,
        Err((rc, msg)) if rc == sys::KP_EPERM => {
            skip(test, &format!("system-wide counting is not allowed here: {}", msg));
            return unsafe { sys::kp_sampler_free(s) };
        }
        Err((rc, msg)) => panic!("kp_process_attach_ex(-1) failed with {}: {}", status_name(rc), msg),
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    let clock = read(p)[0];
    eprintln!("system-wide task-clock over 100 ms: {} ns", clock);
    assert!(clock > 50_000_000, "{} ns over 100 ms on every CPU", clock);
    unsafe {
        assert_eq!(sys::kp_process_pid(p), -1);
        assert_eq!(sys::kp_process_event_scope(p, 0), sys::KP_PROCESS_SCOPE_SYSTEM as c_int);
        assert_eq!(sys::kp_process_thread_count(p), 0);
        let mut v = [0u64; 1];
        expect_status(
            sys::kp_process_read_thread(p, 0, ptr::null_mut(), v.as_mut_ptr(), ptr::null_mut(), 1),
            sys::KP_EINVAL,
            "kp_process_read_thread(system-wide, 0)",
        );
        expect_status(
            sys::kp_process_wait(p, ptr::null_mut(), ptr::null_mut()),
            sys::KP_ESTATE,
            "kp_process_wait(system-wide)",
        );
        sys::kp_process_free(p);
        sys::kp_sampler_free(s);
    }
}

#[test]
fn attach_ex_options_and_refusals() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let test = "attach_ex_options_and_refusals";
    // PARTIAL and one group, on this process: what cannot be counted is reported per event.
    let events = ["task-clock", "cycles", "page-faults"];
    let groups: [i32; 3] = [0, -1, 0];
    let opts = options(sys::KP_PROCESS_PARTIAL, groups.as_ptr());
    let p = match try_attach_ex(s, &events, 0, &opts) {
        Ok(p) => p,
        Err((rc, msg)) if rc == sys::KP_EPERM => {
            skip(test, &format!("the OS does not allow counting here: {}", msg));
            return unsafe { sys::kp_sampler_free(s) };
        }
        Err((rc, msg)) => panic!("kp_process_attach_ex(0) failed with {}: {}", status_name(rc), msg),
    };
    assert_eq!(unsafe { sys::kp_process_pid(p) }, std::process::id() as i32);
    assert_eq!(touch_fresh_pages(500), 0);
    let values = read(p);
    assert!(values[0] > 0 && values[2] >= 500, "{:?}", values);
    assert_eq!(event_status(p, 0), (sys::KP_OK, String::new()));
    assert_eq!(event_status(p, 2), (sys::KP_OK, String::new()));
    let (status, reason) = event_status(p, 1);
    if status != sys::KP_OK {
        assert!(!reason.is_empty(), "an uncounted event says why");
        assert_eq!(values[1], 0);
    }
    unsafe { sys::kp_process_free(p) };
    // The refusals kp_process_attach_ex adds to kp_process_attach's.
    let err = try_attach_ex(s, &["task-clock"], -2, ptr::null()).unwrap_err();
    assert_eq!(err.0, sys::KP_EINVAL, "pid -2: {}", err.1);
    let mut bad = options(0, ptr::null());
    bad.version = 99;
    let err = try_attach_ex(s, &["task-clock"], 0, &bad).unwrap_err();
    assert_eq!(err.0, sys::KP_EINVAL, "version 99: {}", err.1);
    let err = try_attach_ex(s, &["task-clock"], 0, &options(0x80, ptr::null())).unwrap_err();
    assert_eq!(err.0, sys::KP_EINVAL, "flags 0x80: {}", err.1);
    let minus_two: [i32; 1] = [-2];
    let err = try_attach_ex(s, &["task-clock"], 0, &options(0, minus_two.as_ptr())).unwrap_err();
    assert_eq!(err.0, sys::KP_EINVAL, "group -2: {}", err.1);
    // kp_process_attach keeps -1 out: system-wide is only kp_process_attach_ex's.
    let names = c_strings(&["task-clock"]);
    let ptrs = pointers(&names);
    let mut q: *mut sys::kp_process_t = ptr::null_mut();
    let rc = unsafe { sys::kp_process_attach(&mut q, s, ptrs.as_ptr(), 1, -1) };
    expect_status(rc, sys::KP_EINVAL, "kp_process_attach(-1)");
    unsafe { sys::kp_sampler_free(s) };
}

#[test]
fn a_spawned_command_has_one_thread_row() {
    let _turn = one_at_a_time();
    let s = perf_event_sampler();
    let test = "a_spawned_command_has_one_thread_row";
    let p = match spawn(s, &["task-clock"], &["sh", "-c", "true"], test) {
        Some(p) => p,
        None => return unsafe { sys::kp_sampler_free(s) },
    };
    assert_eq!(wait(p), (0, 0));
    assert_eq!(unsafe { sys::kp_process_thread_count(p) }, 1);
    let (mut tid, mut v, mut complete) = (0i32, [0u64; 1], [9u8; 1]);
    expect_ok(
        unsafe { sys::kp_process_read_thread(p, 0, &mut tid, v.as_mut_ptr(), complete.as_mut_ptr(), 1) },
        "kp_process_read_thread(spawned, 0)",
    );
    assert_eq!(tid, unsafe { sys::kp_process_pid(p) }, "the first thread's tid is the pid");
    assert_eq!(v[0], read(p)[0], "the one row is the whole total");
    assert_eq!(complete[0], 1);
    unsafe {
        assert_eq!(sys::kp_process_thread_count(ptr::null()), 0);
        expect_status(
            sys::kp_process_read_thread(ptr::null_mut(), 0, ptr::null_mut(), v.as_mut_ptr(), ptr::null_mut(), 1),
            sys::KP_EINVAL,
            "kp_process_read_thread(NULL)",
        );
        sys::kp_process_free(p);
        sys::kp_sampler_free(s);
    }
}
