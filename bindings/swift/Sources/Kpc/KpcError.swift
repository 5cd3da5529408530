import CKpc

/// The status codes of libkpc (`kp_status` in `kpc/errors.h`), with the same stable `Int32`
/// values. New codes are only ever added at the end.
///
/// `description` is the library's short static text for the code (`kp_strerror`).
public enum Status: Int32, CaseIterable, Sendable, CustomStringConvertible {
    /// `KP_OK` (0): success. Never the status of a thrown ``KpcError``.
    case ok = 0
    /// `KP_ERROR` (-1): internal error not covered by another code.
    case error = -1
    /// `KP_EINVAL` (-2): invalid argument (empty or too long event list, duplicate name, ...).
    case invalidArgument = -2
    /// `KP_ENOMEM` (-3): out of memory.
    case outOfMemory = -3
    /// `KP_ELOAD` (-4): a framework or symbol could not be loaded (the message names it).
    case loadFailed = -4
    /// `KP_EPERM` (-5): permission denied: run as root (macOS) or lower
    /// `kernel.perf_event_paranoid` (Linux); the message gives the exact fix.
    case permissionDenied = -5
    /// `KP_EBUSY` (-6): the counters are held by someone else.
    case busy = -6
    /// `KP_EUNSUPPORTED` (-7): not supported here (no PMU, unknown CPU, backend not built).
    case unsupported = -7
    /// `KP_EUNKNOWN_EVENT` (-8): no event of that name; the message names it and suggests close names.
    case unknownEvent = -8
    /// `KP_EUNAVAILABLE` (-9): the event exists but cannot be counted on this machine or OS.
    case unavailable = -9
    /// `KP_ECONFLICT` (-10): the events cannot be counted together (counter constraints).
    case conflict = -10
    /// `KP_EWRONG_THREAD` (-11): a ``Counters`` was used from a thread other than its creator.
    case wrongThread = -11
    /// `KP_ESTATE` (-12): wrong state: not started yet, or the sampler was released.
    case badState = -12
    /// `KP_ELAYOUT` (-13): an Apple framework struct layout libkpc does not understand.
    case layout = -13
    /// `KP_EFRAMEWORK` (-14): Apple's kperfdata framework returned an error (code in ``KpcError/osCode``).
    case framework = -14
    /// `KP_EKERNEL` (-15): the kernel refused an operation (errno in ``KpcError/osCode``).
    case kernel = -15
    /// `KP_EBUFSIZE` (-16): a caller buffer is too small.
    case bufferTooSmall = -16
    /// `KP_EPARTIAL` (-17): the kernel multiplexed the handle's events: the values are partial
    /// (use ``Counters/sampleFull()`` for the scaling times). `sample()` and
    /// `calibrate(rounds:)` throw it.
    case partial = -17
    /// `KP_EEXEC` (-18): the command of ``CountedProcess/spawn(_:events:sampler:)`` could
    /// not be executed (not found, not executable); ``KpcError/osCode`` is the exec's errno
    /// (`ENOENT` when not found).
    case exec = -18

    /// The short static description libkpc gives this code, e.g. "permission denied".
    public var description: String { String(cString: kp_strerror(rawValue)) }
}

/// A failed libkpc call.
///
/// Every throwing API of this module throws only `KpcError`. ``message`` is libkpc's
/// detailed, thread-local message (`kp_error_last_message()`), read on the same thread
/// immediately after the failing C call and before any other libkpc call, so it always
/// belongs to this failure. It names the cause and the fix, for example
/// `"perf_event_open(cycles): hardware events are not supported on this machine ..."`.
public struct KpcError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status; ``Status/error`` if the C library returned a code this module does not know.
    public let status: Status
    /// The raw code the C function returned (equal to `status.rawValue` for known codes).
    public let code: Int32
    /// The detailed message of the failure (may be empty for codes that carry none).
    public let message: String
    /// The OS or framework code attached to the failure: an `errno` value (perf_event and
    /// kpc calls) or a kpep error code (kperfdata); 0 when there is none. ``message`` says
    /// which kind it is.
    public let osCode: Int32

    /// Creates an error value; libkpc's own failures are built from the C library's state.
    public init(status: Status, message: String, osCode: Int32 = 0) {
        self.status = status
        self.code = status.rawValue
        self.message = message
        self.osCode = osCode
    }

    /// An error for a raw libkpc code and a message obtained some other way than the
    /// thread's last error (e.g. the reason ``CountedProcess/eventStatus(_:)`` reports).
    init(code: Int32, message: String) {
        self.status = Status(rawValue: code) ?? .error
        self.code = code
        self.message = message
        self.osCode = 0
    }

    /// Reads the calling thread's last-error state. Call only right after `code` was
    /// returned by a libkpc function, on the same thread, with no libkpc call in between.
    init(failedWith code: Int32) {
        self.status = Status(rawValue: code) ?? .error
        self.code = code
        self.message = String(cString: kp_error_last_message())
        self.osCode = kp_error_last_os_code()
    }

    /// `"<message> [<status text>, code <code>]"`, or the status text when the message is empty.
    public var description: String {
        let text = message.isEmpty ? status.description : message
        return "\(text) [\(status.description), code \(code)]"
    }
}

/// Throws the calling thread's last error if `code` is not `KP_OK`. Must be called directly
/// on the result of the C call (same thread, nothing in between).
@inline(__always)
func check(_ code: Int32) throws {
    if code != 0 {
        throw KpcError(failedWith: code)
    }
}

/// Swift string of a borrowed, NUL-terminated C string; `nil` for a NULL pointer.
@inline(__always)
func optionalString(_ p: UnsafePointer<CChar>?) -> String? {
    p.map { String(cString: $0) }
}
