import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.kpc.Counters;
import org.kpc.Kpc;
import org.kpc.Sampler;

/**
 * What a sample costs from Java, next to the bare C kp_thread_sample, side by side in one run
 * (docs/performance.md, "Java: the cost of a sample (issue 9)").
 *
 * <p>Each round times, back to back and in alternating order, --reads calls of
 * <pre>
 *   C               kp_thread_sample in a C loop: Counters.calibrate(reads / 2) makes reads
 *                   back-to-back kp_thread_sample calls in C (keeping a minimum, a few
 *                   instructions), so its time / reads is the bare C cost
 *   JNI             one hand-written JNI call of kp_thread_sample per sample, values copied
 *                   into a long[] (the least a JNI sample can do; its own handle, same events)
 *   sample(long[])  Counters.sample(long[]), the binding's allocation-free path
 *   sample()        Counters.sample(), which also allocates the array it returns
 *   empty JNI       a JNI call of an empty C function (the price of crossing alone)
 *   getppid         the cheapest system call in a C loop and one JNI call per call
 * </pre>
 * after two unrecorded rounds that let the JIT compile the loops. Time is the thread's CPU time
 * (ThreadMXBean, CLOCK_THREAD_CPUTIME_ID), so other processes' turns are not counted. It
 * prints the median ns per call of each method and the median over rounds of each / C (paired
 * per round, which cancels load that changes between rounds) with the interquartile range,
 * the absolute overhead per call (the binding's samples minus the bare JNI call, and the bare
 * JNI call minus C, paired per round), and the bytes the sample(long[]) loops allocated (1 byte per call or more: exits 1).
 * Nothing is asserted on time.
 *
 * <p>Run (CTest's java_sample_cost runs a short pass):
 * <pre>
 *   java -Djava.library.path=&lt;build&gt;/bench/java_sample_cost \
 *        -cp &lt;build&gt;/bindings/java/kpc.jar:&lt;build&gt;/bench/java_sample_cost/sample-cost.jar \
 *        SampleCost [--rounds 31] [--reads 10000] [--events task-clock,page-faults,context-switches]
 * </pre>
 */
public class SampleCost {
    static {
        System.loadLibrary("kpc_sample_cost");
    }

    static native long bareOpen(String events);

    static native void bareClose(long handle);

    static native int bareSample(long handle, long[] into, int count);

    static native void empty();

    static native long getppidLoop(int n);

    static native void getppid();

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** One timed loop: returns the thread CPU ns that {@code calls} calls took. */
    private interface Loop {
        long run(int calls);
    }

    private static long cpuNs() {
        return THREADS.getCurrentThreadCpuTime();
    }

    public static void main(String[] args) {
        int rounds = 31;
        int reads = 10_000;
        String events = "task-clock,page-faults,context-switches";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rounds": rounds = Integer.parseInt(args[i + 1]); break;
                case "--reads": reads = Integer.parseInt(args[i + 1]); break;
                case "--events": events = args[i + 1]; break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        reads = Math.max(2, reads / 2 * 2); // the C loop makes reads/2 pairs

        try (Sampler sampler = new Sampler(); Counters counters = sampler.counters(events.split(","))) {
            counters.start();
            long bare = bareOpen(events);
            if (bare == 0) {
                System.exit(1);
            }
            int n = counters.size();
            long[] buf = new long[n];
            long[] allocated = new long[1];

            Map<String, Loop> methods = new LinkedHashMap<>();
            methods.put("C loop of kp_thread_sample", calls -> {
                long t0 = cpuNs();
                counters.calibrate(calls / 2);
                return cpuNs() - t0;
            });
            methods.put("JNI call of kp_thread_sample", calls -> {
                long t0 = cpuNs();
                for (int i = 0; i < calls; i++) {
                    if (bareSample(bare, buf, n) != 0) {
                        throw new IllegalStateException("kp_thread_sample failed");
                    }
                }
                return cpuNs() - t0;
            });
            methods.put("Counters.sample(long[])", calls -> {
                long bytes = THREADS.getCurrentThreadAllocatedBytes();
                long t0 = cpuNs();
                for (int i = 0; i < calls; i++) {
                    counters.sample(buf);
                }
                long ns = cpuNs() - t0;
                allocated[0] += THREADS.getCurrentThreadAllocatedBytes() - bytes;
                return ns;
            });
            methods.put("Counters.sample()", calls -> {
                long t0 = cpuNs();
                for (int i = 0; i < calls; i++) {
                    buf[0] += counters.sample()[0];
                }
                return cpuNs() - t0;
            });
            methods.put("JNI call of an empty C function", calls -> {
                long t0 = cpuNs();
                for (int i = 0; i < calls; i++) {
                    empty();
                }
                return cpuNs() - t0;
            });
            methods.put("C loop of getppid()", SampleCost::getppidLoop);
            methods.put("JNI call of getppid()", calls -> {
                long t0 = cpuNs();
                for (int i = 0; i < calls; i++) {
                    getppid();
                }
                return cpuNs() - t0;
            });

            Map<String, double[]> perCall = new LinkedHashMap<>();
            for (String m : methods.keySet()) {
                perCall.put(m, new double[rounds]);
            }
            List<String> order = new ArrayList<>(methods.keySet());
            for (int r = -2; r < rounds; r++) { // rounds -2 and -1 warm up the JIT
                Collections.reverse(order);
                if (r == 0) {
                    allocated[0] = 0;
                }
                for (String m : order) {
                    double ns = (double) methods.get(m).run(reads) / reads;
                    if (r >= 0) {
                        perCall.get(m)[r] = ns;
                    }
                }
            }
            bareClose(bare);

            System.out.printf("libkpc %s, %s backend, events %s; Java %s; %d rounds x %d reads per method%n",
                    Kpc.version(), sampler.backendName(), events, System.getProperty("java.version"),
                    rounds, reads);
            System.out.printf("%-34s %9s %7s  %s%n", "method", "ns/call", "/ C", "round ratios");
            double[] c = perCall.get("C loop of kp_thread_sample");
            double[] cGetppid = perCall.get("C loop of getppid()");
            for (Map.Entry<String, double[]> e : perCall.entrySet()) {
                String m = e.getKey();
                double[] base = m.contains("getppid") ? cGetppid : m.contains("empty") ? null : c;
                String ratio = "";
                if (base != null && base != e.getValue()) {
                    double[] ratios = new double[rounds];
                    for (int r = 0; r < rounds; r++) {
                        ratios[r] = e.getValue()[r] / base[r];
                    }
                    Arrays.sort(ratios);
                    ratio = String.format("%7.3f  %.3f-%.3f%s", median(ratios), ratios[rounds / 4],
                            ratios[(3 * rounds) / 4], base == cGetppid ? "  (/ C loop of getppid)" : "");
                }
                double[] sorted = e.getValue().clone();
                Arrays.sort(sorted);
                System.out.printf("%-34s %9.1f %s%n", m, median(sorted), ratio);
            }
            // Absolute costs, paired within each round: they stay meaningful when the C sample
            // gets cheap and every ratio to it grows.
            double[] cSorted = c.clone();
            Arrays.sort(cSorted);
            System.out.printf("absolute overhead per call, ns (median over rounds of the paired difference;"
                    + " C sample %.1f ns):%n", median(cSorted));
            String jni = "JNI call of kp_thread_sample";
            String[][] pairs = {{"Counters.sample(long[])", jni}, {"Counters.sample()", jni},
                {jni, "C loop of kp_thread_sample"}};
            for (String[] p : pairs) {
                double[] a = perCall.get(p[0]), b = perCall.get(p[1]);
                double[] d = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    d[r] = a[r] - b[r];
                }
                Arrays.sort(d);
                System.out.printf("%-58s %8.1f %8.1f to %.1f%n", p[0] + " - " + p[1], median(d), d[rounds / 4],
                        d[(3 * rounds) / 4]);
            }
            long calls = (long) rounds * reads;
            System.out.printf("bytes allocated in %d Counters.sample(long[]) calls: %d%n", calls, allocated[0]);
            if (allocated[0] >= calls) {
                System.err.println("Counters.sample(long[]) allocates: at least 1 byte per call");
                System.exit(1);
            }
        }
    }

    private static double median(double[] sorted) {
        int k = sorted.length;
        return k % 2 == 1 ? sorted[k / 2] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
    }
}
