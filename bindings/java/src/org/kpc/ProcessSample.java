package org.kpc;

/**
 * One {@link CountedProcess#readFull()} reading: the running totals plus, per event, how
 * complete each is. An immutable value; accessors return copies.
 *
 * <p>Values and times are unsigned 64-bit numbers held in longs (see
 * {@link Counters#sample()}).
 */
public final class ProcessSample {
    private final long[] values;
    private final boolean[] complete;
    private final long[] timeEnabledNs;
    private final long[] timeRunningNs;

    /** Takes ownership of the arrays (the caller made them for this reading). */
    ProcessSample(long[] values, boolean[] complete, long[] timeEnabledNs, long[] timeRunningNs) {
        this.values = values;
        this.complete = complete;
        this.timeEnabledNs = timeEnabledNs;
        this.timeRunningNs = timeRunningNs;
    }

    /** Number of events. */
    public int size() {
        return values.length;
    }

    /** The totals, in the order the events were given. */
    public long[] values() {
        return values.clone();
    }

    /** The total of event {@code index}. */
    public long value(int index) {
        return values[index];
    }

    /**
     * Whether event {@code index} was on a counter the whole time it was enabled; false when
     * the kernel multiplexed it (its value then covers only {@link #timeRunningNs(int)} of
     * {@link #timeEnabledNs(int)}: scale by their ratio for an estimate).
     */
    public boolean isComplete(int index) {
        return complete[index];
    }

    /**
     * Nanoseconds event {@code index} was enabled, summed over the threads it counted (so it
     * can exceed the wall-clock time); 0 when the backend does not measure it (Apple).
     */
    public long timeEnabledNs(int index) {
        return timeEnabledNs[index];
    }

    /** Nanoseconds event {@code index} was on a counter, summed likewise; 0 likewise. */
    public long timeRunningNs(int index) {
        return timeRunningNs[index];
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ProcessSample[");
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ", ").append(Long.toUnsignedString(values[i]));
            if (!complete[i]) {
                b.append(" (multiplexed)");
            }
        }
        return b.append(']').toString();
    }
}
