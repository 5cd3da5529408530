"""libkpc's status codes and the exception every failed call raises."""
import enum

from . import _native


class Status(enum.IntEnum):
    """kp_status (kpc/errors.h), with the same stable values. ``str()`` is kp_strerror."""

    OK = 0
    ERROR = -1
    EINVAL = -2
    ENOMEM = -3
    ELOAD = -4
    EPERM = -5
    EBUSY = -6
    EUNSUPPORTED = -7
    EUNKNOWN_EVENT = -8
    EUNAVAILABLE = -9
    ECONFLICT = -10
    EWRONG_THREAD = -11
    ESTATE = -12
    ELAYOUT = -13
    EFRAMEWORK = -14
    EKERNEL = -15
    EBUFSIZE = -16
    #: The kernel multiplexed the handle's events: the values are partial (use
    #: ``sample_full()`` for the scaling times). ``sample()`` and ``calibrate()`` raise it.
    EPARTIAL = -17
    #: The command of ``Process.spawn`` could not be executed (not found, not executable);
    #: ``KpcError.os_code`` is the exec's errno (ENOENT when not found).
    EEXEC = -18

    def __str__(self):
        return _native.text(_native.lib().kp_strerror(int(self)))


class KpcError(Exception):
    """A libkpc call failed.

    Attributes: ``status`` (a :class:`Status`, or the raw int for a code this package does
    not know), ``code`` (the int the C function returned), ``message`` (libkpc's detailed
    message, ``kp_error_last_message()``, naming the cause and the fix) and ``os_code`` (the
    errno or kpep code attached to the failure, 0 if none).
    """

    def __init__(self, code, message, os_code=0):
        self.code = code
        try:
            self.status = Status(code)
        except ValueError:
            self.status = code
        self.message = message
        self.os_code = os_code
        name = self.status.name if isinstance(self.status, Status) else "unknown status"
        super().__init__(f"{message or name} [{name}, code {code}]")


def check(code):
    """Raises KpcError for a failed call. Call it directly on the C function's result:
    libkpc's message is thread-local and belongs to the last call on this OS thread."""
    if code != 0:
        lib = _native.lib()
        raise KpcError(code, _native.text(lib.kp_error_last_message()), lib.kp_error_last_os_code())
