package org.kpc;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A set of events counted on the thread that created it ({@code kp_thread_t}); made by
 * {@link Sampler#counters(String...)}.
 *
 * <p>Values are running totals of what the creating thread did while started: they never
 * decrease; {@link #stop()} pauses them and {@link #start()} resumes. Take differences
 * between two samples. Totals are unsigned 64-bit numbers held in Java longs: they stay
 * below 2^63 in practice, but compare them with {@link Long#compareUnsigned(long, long)}
 * and print them with {@link Long#toUnsignedString(long)} to be exact.
 *
 * <p><b>Threads.</b> {@link #start()}, {@link #stop()}, {@link #sample()},
 * {@link #sampleFull()}, {@link #calibrate()}, {@link #begin(boolean)} and
 * {@link #measure(Runnable)} must run on the Java thread that created the Counters (a platform
 * thread is one OS thread; do not use virtual threads, which move between OS threads);
 * from any other thread they throw {@link KpcException} with {@link Status#EWRONG_THREAD}.
 * {@link #events()}, {@link #isRunning()} and {@link #close()} may be called from any
 * thread. Calls are serialized by a lock, so close() waits for a sample in progress.
 *
 * <p><b>Ownership.</b> The Counters own their native handle and keep the Sampler's native
 * session alive: they keep working after the Sampler is closed. {@link #close()} frees the
 * handle (and stops counting); an unclosed Counters is freed by a {@link Cleaner} after it
 * becomes unreachable. After close() every method except close() and {@link #isClosed()}
 * throws {@link IllegalStateException}.
 */
public final class Counters implements AutoCloseable {
    private final NativeCounters handle; // also the lock for closed and every native call
    private final Cleaner.Cleanable cleanable;
    private final List<Event> events;
    private boolean closed;

    /** Takes ownership of a new native handle; called with the Sampler's lock held. */
    Counters(NativeCounters handle) {
        long n = KpcNative.kp_thread_event_count(handle);
        List<Event> list = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
            list.add(Event.copyOf(KpcNative.kp_thread_event_at(handle, i)));
        }
        this.events = Collections.unmodifiableList(list);
        this.handle = handle;
        this.cleanable = Cleanup.CLEANER.register(this, handle::delete);
    }

    private NativeCounters open() {
        if (closed) {
            throw new IllegalStateException("these Counters are closed");
        }
        return handle;
    }

    /**
     * The events, in the order they were given, as values.
     *
     * @return an unmodifiable list
     */
    public List<Event> events() {
        synchronized (handle) {
            open();
            return events;
        }
    }

    /** Number of events (the length {@link #sample()} returns). */
    public int size() {
        synchronized (handle) {
            open();
            return events.size();
        }
    }

    /**
     * Starts (or resumes) counting. Idempotent. Creating thread only.
     *
     * @throws KpcException {@link Status#EWRONG_THREAD}, {@link Status#ESTATE} (sampler
     *     released), {@link Status#EBUSY} / {@link Status#EUNAVAILABLE} (Apple),
     *     {@link Status#EPERM}, {@link Status#EKERNEL}
     */
    public void start() {
        synchronized (handle) {
            KpcNative.kp_thread_start(open());
        }
    }

    /**
     * Stops (pauses) counting; totals stay readable. Idempotent. Creating thread only.
     *
     * @throws KpcException {@link Status#EWRONG_THREAD}, {@link Status#EKERNEL}
     */
    public void stop() {
        synchronized (handle) {
            KpcNative.kp_thread_stop(open());
        }
    }

    /** Whether the counters are started. Any thread. */
    public boolean isRunning() {
        synchronized (handle) {
            return KpcNative.kp_thread_is_running(open()) != 0;
        }
    }

    /**
     * Reads the running totals into a new array, one value per event in order (unsigned).
     * Creating thread only; see {@link #sample(long[])} for an allocation-free form.
     *
     * @throws KpcException {@link Status#EWRONG_THREAD}, {@link Status#ESTATE} (never
     *     started, or the sampler was released), {@link Status#EKERNEL},
     *     {@link Status#EPARTIAL} (the kernel multiplexed the handle's events: the values
     *     are partial; use {@link #sampleFull()} for the scaling times)
     */
    public long[] sample() {
        long[] values = new long[size()];
        sample(values);
        return values;
    }

    /**
     * Reads the running totals into {@code into[0 .. size()-1]} without allocating on the
     * Java heap; elements after those are left unchanged. Creating thread only.
     *
     * @param into an array of at least {@link #size()} elements
     * @throws NullPointerException if into is null
     * @throws KpcException {@link Status#EBUFSIZE} (into too short),
     *     {@link Status#EWRONG_THREAD}, {@link Status#ESTATE} (never started, or the sampler
     *     was released), {@link Status#EKERNEL}, {@link Status#EPARTIAL} (as {@link #sample()})
     */
    public void sample(long[] into) {
        Objects.requireNonNull(into, "into");
        synchronized (handle) {
            open().sampleInto(into);
        }
    }

    /**
     * Like {@link #sample()}, plus per event whether it ran the whole time and the enabled /
     * running times (perf_event multiplexing). Creating thread only.
     *
     * @throws KpcException as {@link #sample()}, except {@link Status#EPARTIAL}: multiplexed
     *     events are reported here in the complete flags and times
     */
    public Sample sampleFull() {
        int n = size();
        long[] values = new long[n];
        boolean[] complete = new boolean[n];
        long[] times = new long[2];
        synchronized (handle) {
            open().sampleFullInto(values, complete, times);
        }
        return new Sample(values, complete, times[0], times[1]);
    }

    /**
     * What an empty measured region costs each event on this thread
     * ({@code kp_thread_calibrate}): the smallest difference over 100 pairs of back-to-back
     * samples. See {@link #calibrate(int)}.
     *
     * @return one offset per event, in order
     * @throws KpcException as {@link #calibrate(int)}
     */
    public long[] calibrate() {
        return calibrate(0);
    }

    /**
     * What an empty measured region costs each event on this thread
     * ({@code kp_thread_calibrate}): the smallest difference over {@code rounds} pairs of
     * back-to-back samples (0 means 100). On Apple the fixed counters include each read's
     * kernel work, which this captures; {@link #begin(boolean)} and
     * {@link #measure(boolean, Runnable)} subtract it when asked. Creating thread only.
     *
     * @param rounds pairs of samples, 0 to 1,000,000 (0: 100)
     * @return one offset per event, in order
     * @throws IllegalArgumentException if rounds is negative
     * @throws KpcException {@link Status#ESTATE} (not started: a stopped handle's totals do
     *     not move), {@link Status#EINVAL} (more than 1,000,000 rounds),
     *     {@link Status#EWRONG_THREAD}, {@link Status#EKERNEL}, {@link Status#EPARTIAL} (the
     *     events were multiplexed: no offset is meaningful)
     */
    public long[] calibrate(int rounds) {
        if (rounds < 0) {
            throw new IllegalArgumentException("rounds is " + rounds + "; use 0 (100 rounds) to 1000000");
        }
        synchronized (handle) {
            long[] offsets = new long[events.size()];
            open().calibrateInto(offsets, rounds);
            return offsets;
        }
    }

    /**
     * Begins a measured region on this thread: starts the counters if they are stopped (and
     * leaves them started), calibrates when {@code subtractOverhead}, then takes the first
     * sample. {@link Region#end()} returns what each event counted. Creating thread only.
     *
     * @param subtractOverhead subtract the cost of an empty region ({@link #calibrate()})
     *     from each count
     * @return the region, to end on this thread
     * @throws KpcException what {@link #start()}, {@link #calibrate()} and
     *     {@link #sample(long[])} throw
     */
    public Region begin(boolean subtractOverhead) {
        if (!isRunning()) {
            start();
        }
        long[] offsets = subtractOverhead ? calibrate() : new long[size()];
        return new Region(this, offsets);
    }

    /**
     * Runs {@code body} between two samples on this thread and returns what each event
     * counted, in event order; {@link #measure(boolean, Runnable)} without subtraction.
     *
     * @param body the code to count
     * @return a new array, one unsigned count per event
     * @throws KpcException as {@link #begin(boolean)}
     */
    public long[] measure(Runnable body) {
        return measure(false, body);
    }

    /**
     * Runs {@code body} between two samples on this thread and returns what each event
     * counted, in event order, less the cost of an empty region when
     * {@code subtractOverhead} (never below 0). Counts only this thread: work {@code body}
     * hands to other threads is not counted. If {@code body} throws, the exception
     * propagates and nothing is returned (the counters stay started).
     *
     * <pre>{@code
     * long[] counts = counters.measure(true, () -> parse(input));
     * }</pre>
     *
     * @param subtractOverhead subtract {@link #calibrate()}'s offsets
     * @param body the code to count
     * @return a new array, one unsigned count per event
     * @throws KpcException as {@link #begin(boolean)}
     */
    public long[] measure(boolean subtractOverhead, Runnable body) {
        Objects.requireNonNull(body, "body");
        Region region = begin(subtractOverhead);
        body.run();
        return region.end();
    }

    /** Whether {@link #close()} was called. Any thread. */
    public boolean isClosed() {
        synchronized (handle) {
            return closed;
        }
    }

    /**
     * Stops counting and frees the native handle ({@code kp_thread_free}). Idempotent; may be
     * called from any thread (it waits for a call in progress on these Counters).
     */
    @Override
    public void close() {
        synchronized (handle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        cleanable.clean();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Counters[");
        for (int i = 0; i < events.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(events.get(i).name());
        }
        return b.append(isClosed() ? "; closed]" : "]").toString();
    }
}
