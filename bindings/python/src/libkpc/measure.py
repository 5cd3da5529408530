"""Measurement: what each event counted over one ``with`` block (Counters.measure)."""

_MASK = (1 << 64) - 1


class Measurement:
    """Counts a ``with`` block on the calling thread.

    On entry it starts the counters if needed, calibrates when ``subtract_overhead`` is set
    (each count is then less the cost of an empty region, never below 0) and samples; on a
    normal exit it samples again and sets :attr:`counts`. If the block raises, nothing is
    sampled and the exception propagates.
    """

    def __init__(self, counters, subtract_overhead=False, iterations=1):
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        self.counters = counters
        self.subtract_overhead = subtract_overhead
        self.iterations = iterations
        self.counts = None  # list in event order, set when the block ends
        self._before = None
        self._offsets = None

    def __enter__(self):
        c = self.counters
        if not c.is_running:
            c.start()
        self._offsets = c.calibrate() if self.subtract_overhead else [0] * len(c)
        self._before = c.sample()
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            return False
        after = self.counters.sample()
        self.counts = [max(((a - b) & _MASK) - o, 0)
                       for a, b, o in zip(after, self._before, self._offsets)]
        return False

    def as_dict(self):
        """{event name: count} for the whole block."""
        return dict(zip(self.counters.names, self._done()))

    def per_iteration(self):
        """{event name: count / iterations}."""
        return {name: n / self.iterations for name, n in self.as_dict().items()}

    def _done(self):
        if self.counts is None:
            raise RuntimeError("the measured block has not finished")
        return self.counts
