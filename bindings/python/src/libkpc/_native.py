"""Finds and loads the libkpc shared library and declares the C functions the package calls.

Where libkpc comes from, in order:

1. ``KPC_LIBRARY``: the path of a libkpc shared library. When it is set, it is the only
   candidate: a bad path is an error, never a silent fallback to another copy.
2. The copy bundled in the package (``libkpc/_lib/``): ``pip install ./bindings/python``
   and the wheel build it with the repository's CMake (pyproject.toml, native/).
3. The system's library search path (``libkpc.so.0`` on Linux, ``libkpc.0.dylib`` on macOS,
   plus Homebrew's and ``/usr/local``'s lib directories on macOS).

A failure raises :class:`LibraryNotFoundError`, which names every path it tried and why
each failed.
"""
import ctypes
import os
import sys
import threading

_BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")

if sys.platform == "darwin":
    _LIBRARY_FILES = ("libkpc.0.dylib", "libkpc.dylib")
    _SYSTEM_DIRS = ("/opt/homebrew/lib", "/usr/local/lib")
else:
    _LIBRARY_FILES = ("libkpc.so.0", "libkpc.so")
    _SYSTEM_DIRS = ()


class LibraryNotFoundError(OSError):
    """libkpc's shared library could not be loaded; ``tried`` lists (path, reason) pairs."""

    def __init__(self, tried):
        self.tried = list(tried)
        lines = "\n".join(f"  {path}: {reason}" for path, reason in self.tried)
        super().__init__(
            "libkpc: could not load the libkpc shared library. Tried:\n" + lines + "\n"
            "Fix: set KPC_LIBRARY to the path of libkpc.so.0 (macOS: libkpc.0.dylib), "
            "install libkpc (cmake --install), or install this package with pip from a clone "
            "of libkpc (pip install ./bindings/python), which bundles it."
        )


def candidates(environ=None, bundled_dir=None):
    """The paths the loader tries, in order (a bare file name is left to dlopen's search)."""
    environ = os.environ if environ is None else environ
    bundled_dir = _BUNDLED_DIR if bundled_dir is None else bundled_dir
    explicit = environ.get("KPC_LIBRARY")
    if explicit:
        return [explicit]
    paths = [os.path.join(bundled_dir, name) for name in _LIBRARY_FILES]
    paths += list(_LIBRARY_FILES)  # dlopen's own search: LD_LIBRARY_PATH, ld.so.cache, ...
    paths += [os.path.join(d, name) for d in _SYSTEM_DIRS for name in _LIBRARY_FILES]
    return paths


def load(environ=None, bundled_dir=None):
    """Loads the first candidate that opens; returns (CDLL, path)."""
    tried = []
    paths = candidates(environ, bundled_dir)
    for path in paths:
        if os.sep in path and not os.path.exists(path):
            tried.append((path, "no such file"))
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append((path, str(e)))
    if len(paths) == 1:
        tried[0] = (tried[0][0], tried[0][1] + " (from KPC_LIBRARY)")
    raise LibraryNotFoundError(tried)


_c_char_p = ctypes.c_char_p
_void_p = ctypes.c_void_p
_size_t = ctypes.c_size_t
_int = ctypes.c_int
_u64p = ctypes.POINTER(ctypes.c_uint64)


class SamplerOptions(ctypes.Structure):
    """kp_sampler_options_t (kpc/sampler.h), version 1."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("backend", ctypes.c_int),
        ("kperf_path", _c_char_p),
        ("kperfdata_path", _c_char_p),
    ]


SAMPLER_OPTIONS_VERSION = 1


class ProcessOptions(ctypes.Structure):
    """kp_process_options_t (kpc/process.h), version 1."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("flags", ctypes.c_uint),
        ("groups", ctypes.POINTER(ctypes.c_int32)),
    ]


PROCESS_OPTIONS_VERSION = 1
PROCESS_PARTIAL = 0x1
PROCESS_SYSTEM_WIDE = -1

# name: (restype, argtypes)
_PROTOTYPES = {
    "kp_strerror": (_c_char_p, [_int]),
    "kp_error_last_message": (_c_char_p, []),
    "kp_error_last_status": (_int, []),
    "kp_error_last_os_code": (_int, []),
    "kp_error_clear": (None, []),
    "kp_version_string": (_c_char_p, []),
    "kp_version_number": (_int, []),
    "kp_sampler_options_init": (_int, [ctypes.POINTER(SamplerOptions), ctypes.c_uint]),
    "kp_sampler_new": (_int, [ctypes.POINTER(_void_p), ctypes.POINTER(SamplerOptions)]),
    "kp_sampler_free": (None, [_void_p]),
    "kp_sampler_release": (_int, [_void_p]),
    "kp_sampler_access": (_int, [_void_p]),
    "kp_sampler_backend": (_int, [_void_p]),
    "kp_sampler_backend_name": (_c_char_p, [_void_p]),
    "kp_sampler_backend_reason": (_c_char_p, [_void_p]),
    "kp_sampler_cpu_id": (_c_char_p, [_void_p]),
    "kp_sampler_cpu_name": (_c_char_p, [_void_p]),
    "kp_sampler_pmu_name": (_c_char_p, [_void_p]),
    "kp_sampler_counter_count": (
        _int, [ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32), _void_p]),
    "kp_sampler_event_count": (_size_t, [_void_p]),
    "kp_sampler_event_at": (_void_p, [_void_p, _size_t]),
    "kp_sampler_event_find": (_int, [ctypes.POINTER(_void_p), _void_p, _c_char_p]),
    "kp_event_name": (_c_char_p, [_void_p]),
    "kp_event_native_name": (_c_char_p, [_void_p]),
    "kp_event_description": (_c_char_p, [_void_p]),
    "kp_event_kind": (_int, [_void_p]),
    "kp_event_is_generic": (_int, [_void_p]),
    "kp_event_is_available": (_int, [_void_p]),
    "kp_event_unavailable_reason": (_c_char_p, [_void_p]),
    "kp_event_alias": (_c_char_p, [_void_p]),
    "kp_event_errata": (_c_char_p, [_void_p]),
    "kp_event_fallback": (_c_char_p, [_void_p]),
    "kp_event_counters_mask": (ctypes.c_uint32, [_void_p]),
    "kp_event_selector": (ctypes.c_uint64, [_void_p]),
    "kp_event_fixed_counter": (_int, [_void_p]),
    "kp_event_counts_kernel": (_int, [_void_p]),
    "kp_event_unit": (_int, [_void_p]),
    "kp_thread_new": (_int, [ctypes.POINTER(_void_p), _void_p, ctypes.POINTER(_c_char_p), _size_t]),
    "kp_thread_free": (None, [_void_p]),
    "kp_thread_start": (_int, [_void_p]),
    "kp_thread_stop": (_int, [_void_p]),
    "kp_thread_sample": (_int, [_void_p, _u64p, _size_t]),
    "kp_thread_sample_full": (
        _int, [_void_p, _u64p, ctypes.POINTER(ctypes.c_uint8), _size_t, _u64p, _u64p]),
    "kp_thread_calibrate": (_int, [_void_p, _u64p, _size_t, ctypes.c_uint]),
    "kp_thread_is_running": (_int, [_void_p]),
    "kp_thread_event_count": (_size_t, [_void_p]),
    "kp_thread_event_at": (_void_p, [_void_p, _size_t]),
    "kp_process_spawn": (
        _int, [ctypes.POINTER(_void_p), _void_p, ctypes.POINTER(_c_char_p), _size_t,
               ctypes.POINTER(_c_char_p)]),
    "kp_process_attach": (
        _int, [ctypes.POINTER(_void_p), _void_p, ctypes.POINTER(_c_char_p), _size_t,
               ctypes.c_int32]),
    "kp_process_options_init": (_int, [ctypes.POINTER(ProcessOptions), ctypes.c_uint]),
    "kp_process_spawn_ex": (
        _int, [ctypes.POINTER(_void_p), _void_p, ctypes.POINTER(_c_char_p), _size_t,
               ctypes.POINTER(_c_char_p), ctypes.POINTER(ProcessOptions)]),
    "kp_process_event_status": (
        _int, [_void_p, _size_t, ctypes.POINTER(_int), ctypes.POINTER(_c_char_p)]),
    "kp_process_attach_ex": (
        _int, [ctypes.POINTER(_void_p), _void_p, ctypes.POINTER(_c_char_p), _size_t,
               ctypes.c_int32, ctypes.POINTER(ProcessOptions)]),
    "kp_process_thread_count": (_size_t, [_void_p]),
    "kp_process_read_thread": (
        _int, [_void_p, _size_t, ctypes.POINTER(ctypes.c_int32), _u64p,
               ctypes.POINTER(ctypes.c_uint8), _size_t]),
    "kp_process_free": (None, [_void_p]),
    "kp_process_start": (_int, [_void_p]),
    "kp_process_stop": (_int, [_void_p]),
    "kp_process_is_counting": (_int, [_void_p]),
    "kp_process_read": (_int, [_void_p, _u64p, _size_t]),
    "kp_process_read_full": (
        _int, [_void_p, _u64p, ctypes.POINTER(ctypes.c_uint8), _size_t, _u64p, _u64p]),
    "kp_process_wait": (_int, [_void_p, ctypes.POINTER(_int), ctypes.POINTER(_int)]),
    "kp_process_pid": (ctypes.c_int32, [_void_p]),
    "kp_process_event_count": (_size_t, [_void_p]),
    "kp_process_event_at": (_void_p, [_void_p, _size_t]),
    "kp_process_event_scope": (_int, [_void_p, _size_t]),
}

_lock = threading.Lock()
_lib = None
_path = None


def lib():
    """The loaded library with every prototype declared (loaded on first use)."""
    global _lib, _path
    if _lib is None:
        with _lock:
            if _lib is None:
                handle, path = load()
                for name, (restype, argtypes) in _PROTOTYPES.items():
                    try:
                        fn = getattr(handle, name)
                    except AttributeError as e:
                        raise LibraryNotFoundError(
                            [(path, f"loaded, but it lacks {name}: an older libkpc? ({e})")]
                        ) from None
                    fn.restype = restype
                    fn.argtypes = argtypes
                _path = path
                _lib = handle
    return _lib


def library_path():
    """The path (or file name, when found by dlopen's search) libkpc was loaded from."""
    lib()
    return _path


def text(p):
    """Decodes a C string returned by libkpc (UTF-8); None stays None."""
    return None if p is None else p.decode("utf-8", "replace")
