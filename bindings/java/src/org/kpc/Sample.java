package org.kpc;

import java.util.Arrays;

/**
 * One {@link Counters#sampleFull()} reading: the running totals plus whether each event was
 * on a hardware counter the whole time. An immutable value; accessors return copies.
 *
 * <p>Values are unsigned 64-bit totals held in longs (see {@link Counters#sample()}).
 */
public final class Sample {
    private final long[] values;
    private final boolean[] complete;
    private final long timeEnabledNs;
    private final long timeRunningNs;

    /** Takes ownership of the arrays (the caller made them for this sample). */
    Sample(long[] values, boolean[] complete, long timeEnabledNs, long timeRunningNs) {
        this.values = values;
        this.complete = complete;
        this.timeEnabledNs = timeEnabledNs;
        this.timeRunningNs = timeRunningNs;
    }

    /** Number of events (the size of {@link #values()}). */
    public int size() {
        return values.length;
    }

    /** The totals, in the order the events were given to {@link Sampler#counters(String...)}. */
    public long[] values() {
        return values.clone();
    }

    /** The total of event {@code index}. */
    public long value(int index) {
        return values[index];
    }

    /**
     * Per event: true when it was on a counter the whole time it was enabled, false when the
     * kernel multiplexed it (its value then covers only {@link #timeRunningNs()} of
     * {@link #timeEnabledNs()}).
     */
    public boolean[] complete() {
        return complete.clone();
    }

    /** Whether event {@code index} was counted the whole time. */
    public boolean isComplete(int index) {
        return complete[index];
    }

    /** Nanoseconds the events were enabled; 0 when the backend does not measure it (Apple). Unsigned. */
    public long timeEnabledNs() {
        return timeEnabledNs;
    }

    /** Nanoseconds the events were on a counter; 0 when the backend does not measure it. Unsigned. */
    public long timeRunningNs() {
        return timeRunningNs;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Sample)) {
            return false;
        }
        Sample s = (Sample) o;
        return timeEnabledNs == s.timeEnabledNs && timeRunningNs == s.timeRunningNs
                && Arrays.equals(values, s.values) && Arrays.equals(complete, s.complete);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(values) + Arrays.hashCode(complete);
    }

    @Override
    public String toString() {
        return "Sample[values=" + Arrays.toString(values) + ", complete=" + Arrays.toString(complete)
                + ", enabled=" + Long.toUnsignedString(timeEnabledNs) + "ns, running="
                + Long.toUnsignedString(timeRunningNs) + "ns]";
    }
}
