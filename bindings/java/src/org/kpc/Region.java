package org.kpc;

/**
 * A measured region: what each event counted between {@link Counters#begin(boolean)} and
 * {@link #end()}, on the thread that owns the Counters. For harnesses whose "start" and
 * "stop" are two separate calls (a benchmark's per-iteration setup and teardown); for a
 * piece of code in hand, {@link Counters#measure(Runnable)} is shorter.
 *
 * <pre>{@code
 * Region region = counters.begin(true);   // true: subtract the cost of an empty region
 * for (int i = 0; i < ops; i++) work();
 * double[] perOp = Region.perOp(region.end(), ops);
 * }</pre>
 *
 * <p>Both ends take one sample each ({@code kp_thread_sample}); nothing is allocated between
 * them. With overhead subtraction, {@link Counters#calibrate()} runs once in {@code begin},
 * before the first sample, and its offsets are subtracted from each count (never below 0).
 *
 * <p><b>Threads.</b> {@code begin} and {@link #end()} must run on the Counters' owning
 * thread (else {@link KpcException} with {@link Status#EWRONG_THREAD}). A region is used
 * once: a second {@code end()} throws {@link IllegalStateException}.
 */
public final class Region {
    private final Counters counters;
    private final long[] offsets;
    private final long[] before;
    private final long[] after;
    private boolean ended;

    /** Takes the first sample; offsets holds one value per event (zeros: subtract nothing). */
    Region(Counters counters, long[] offsets) {
        this.counters = counters;
        this.offsets = offsets;
        this.after = new long[offsets.length];
        this.before = new long[offsets.length];
        counters.sample(before); // last: nothing of begin's own work falls inside the region
    }

    /**
     * Takes the second sample and returns, per event in order, what was counted since
     * {@code begin}, less the calibrated offset when subtracting (unsigned values in longs).
     *
     * @return a new array the caller owns
     * @throws IllegalStateException if the region was already ended, or the Counters closed
     * @throws KpcException as {@link Counters#sample(long[])}
     */
    public long[] end() {
        if (ended) {
            throw new IllegalStateException("this Region was already ended; begin a new one");
        }
        counters.sample(after);
        ended = true;
        for (int i = 0; i < after.length; i++) {
            long delta = after[i] - before[i];
            after[i] = Long.compareUnsigned(delta, offsets[i]) > 0 ? delta - offsets[i] : 0;
        }
        return after;
    }

    /**
     * Divides counts by a number of operations: the per-operation figure a benchmark
     * reports (JMH's ops of an iteration, Go's b.N).
     *
     * @param counts unsigned totals, e.g. from {@link #end()}
     * @param ops the operations the region ran, at least 1
     * @return a new array, {@code counts[i] / ops}
     * @throws IllegalArgumentException if ops is below 1
     */
    public static double[] perOp(long[] counts, long ops) {
        if (ops < 1) {
            throw new IllegalArgumentException("ops is " + ops + "; the region must have run at least 1 operation");
        }
        double[] result = new double[counts.length];
        for (int i = 0; i < counts.length; i++) {
            result[i] = unsignedToDouble(counts[i]) / ops;
        }
        return result;
    }

    private static double unsignedToDouble(long v) {
        return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
    }
}
