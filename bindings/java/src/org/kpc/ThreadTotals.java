package org.kpc;

/**
 * One per-thread row of a {@link CountedProcess} ({@link CountedProcess#readThread(int)}):
 * a thread's id and what it counted, plus the threads and processes it created while
 * counted. An immutable value; accessors return copies.
 *
 * <p>Values are unsigned 64-bit numbers held in longs (see {@link Counters#sample()}).
 */
public final class ThreadTotals {
    private final int tid;
    private final long[] values;
    private final boolean[] complete;

    /** Takes ownership of the arrays (the caller made them for this reading). */
    ThreadTotals(int tid, long[] values, boolean[] complete) {
        this.tid = tid;
        this.values = values;
        this.complete = complete;
    }

    /** The thread's id (Linux gettid()). */
    public int tid() {
        return tid;
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
     * the kernel multiplexed it, or when the event is not counted.
     */
    public boolean isComplete(int index) {
        return complete[index];
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ThreadTotals[tid ").append(tid).append(": ");
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ", ").append(Long.toUnsignedString(values[i]));
            if (!complete[i]) {
                b.append(" (incomplete)");
            }
        }
        return b.append(']').toString();
    }
}
