package org.kpc.tests;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** Deterministic amounts of work for the tests, measured in CPU time (not wall time). */
final class Work {
    static final long MS = 1_000_000L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static volatile double sink;

    private Work() {}

    /** CPU time the calling thread has used, in ns. */
    static long cpuTimeNs() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /**
     * Spins until the calling thread has used at least {@code cpuNanos} of CPU time, however
     * busy the machine is (a loaded machine only makes it take longer).
     */
    static void burnCpu(long cpuNanos) {
        long start = cpuTimeNs();
        double x = 0;
        long i = 0;
        while (cpuTimeNs() - start < cpuNanos) {
            for (int k = 0; k < 20_000; k++) {
                x += Math.sqrt(++i);
            }
        }
        sink = x;
    }

    /** Difference of two unsigned totals, checking that the later one is not smaller. */
    static long delta(long before, long after) {
        if (Long.compareUnsigned(after, before) < 0) {
            throw new AssertionError("a total decreased: " + Long.toUnsignedString(before)
                    + " -> " + Long.toUnsignedString(after));
        }
        return after - before;
    }
}
