"""OwnedHandle: what Sampler and Counters share: one C handle, freed once."""
import threading

from . import _native


class OwnedHandle:
    """Owns a C handle freed by the C function named ``_FREE``. ``close()`` is idempotent and
    may run on any thread; ``with`` closes on exit; a finalizer frees what was not closed."""

    _FREE = None  # "kp_sampler_free" or "kp_thread_free"
    _CLOSED = "closed"  # the ValueError's message once closed

    def _own(self, handle):
        self._h = handle
        self._lock = threading.Lock()  # the free must not race another close

    def _handle(self):
        h = self._h
        if h is None:
            raise ValueError(self._CLOSED)
        return h

    def close(self):
        with self._lock:
            h, self._h = self._h, None
        if h is not None:
            getattr(_native.lib(), self._FREE)(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):  # a safety net; close() is the API
        if getattr(self, "_h", None) is not None:
            self.close()
