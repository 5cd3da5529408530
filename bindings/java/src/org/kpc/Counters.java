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
 * <p><b>Threads.</b> {@link #start()}, {@link #stop()}, {@link #sample()} and
 * {@link #sampleFull()} must run on the Java thread that created the Counters (a platform
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
     *     started, or the sampler was released), {@link Status#EKERNEL}
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
     *     was released), {@link Status#EKERNEL}
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
     * @throws KpcException as {@link #sample()}
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
