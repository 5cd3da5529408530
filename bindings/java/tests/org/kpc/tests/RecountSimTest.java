package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kpc.Backend;
import org.kpc.Counters;
import org.kpc.Event;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/**
 * libkpc's recount backend (macOS without root) against the simulated libSystem of
 * tests/recount_sim. CTest (java_recount_sim) runs this class with KPC_BACKEND=recount,
 * KPC_LIBSYSTEM_PATH naming librecount_sim.so and KPC_TEST_RCSIM_NOSELFCOUNTS naming the
 * variant without thread_selfcounts.
 *
 * <p>The simulator's model (tests/recount_sim/README.md): cycles = the thread's CPU ns x 3,
 * instructions = cycles x 2, a share RCSIM_P_SHARE (default 0.75) of both on P cores. Its
 * RCSIM_* knobs are read when it is loaded and Java cannot change its own environment, so
 * another simulated machine is a child JVM running {@link #main} with the knob set.
 */
class RecountSimTest {
    private static final long CYCLES_PER_NS = 3;
    private static final long INSTRUCTIONS_PER_CYCLE = 2;

    @BeforeAll
    static void needsTheSimulator() {
        assumeTrue("recount".equals(System.getenv("KPC_BACKEND")) && System.getenv("KPC_LIBSYSTEM_PATH") != null,
                "needs KPC_BACKEND=recount and KPC_LIBSYSTEM_PATH set to librecount_sim.so; "
                        + "run it through: ctest -R java_recount_sim");
    }

    @Test
    void theEnvironmentSelectsRecountAndSaysWhy() {
        try (Sampler s = new Sampler()) {
            assertEquals(Backend.RECOUNT, s.backend());
            assertEquals(3, s.backend().code());
            assertEquals("recount", s.backendName());
            assertEquals("named by KPC_BACKEND=recount", s.backendReason());
            s.access(); // no root needed: returns normally
        }
        try (Sampler s = new Sampler(Backend.PERF_EVENT, null, null)) {
            assertTrue(s.backendReason().contains("named by the caller"), s.backendReason());
        }
    }

    @Test
    void cyclesAreThreeTimesTheThreadsCpuTime() {
        try (Sampler s = new Sampler(); Counters c = s.counters("cycles", "instructions")) {
            c.start();
            long cpu0 = Work.cpuTimeNs();
            long[] before = c.sample();
            Work.burnCpu(30 * Work.MS);
            long[] after = c.sample();
            long cpu = Work.cpuTimeNs() - cpu0;
            for (long[] v : new long[][] {before, after}) {
                assertEquals(INSTRUCTIONS_PER_CYCLE * v[0], v[1], "instructions = 2 x cycles in one sample");
            }
            double cycles = Work.delta(before[0], after[0]);
            double expected = CYCLES_PER_NS * (double) cpu;
            // The samples lie inside the measured interval: a little less, never more.
            // (ThreadMXBean's CPU time is the same clock the simulator reads.)
            assertTrue(cycles <= expected * 1.001 && cycles >= expected * 0.95,
                    cycles + " cycles over " + cpu + " ns of CPU time; the model says " + expected);
        }
    }

    @Test
    void performanceAndEfficiencyAddUpToTheTotal() {
        String env = System.getenv("RCSIM_P_SHARE");
        double share = env == null ? 0.75 : Double.parseDouble(env);
        try (Sampler s = new Sampler();
                Counters c = s.counters("cycles", "p-cycles", "e-cycles", "instructions", "p-instructions",
                        "e-instructions")) {
            c.start();
            Work.burnCpu(20 * Work.MS);
            long[] v = c.sample();
            assertEquals(v[0], v[1] + v[2], "p-cycles + e-cycles = cycles");
            assertEquals(v[3], v[4] + v[5], "p-instructions + e-instructions = instructions");
            assertEquals(share, (double) v[1] / v[0], 0.01, "P share of cycles");
            assertEquals(share, (double) v[4] / v[3], 0.01, "P share of instructions");
        }
    }

    @Test
    void otherEventsNeedRootAndKperf() {
        try (Sampler s = new Sampler()) {
            assertFalse(s.findEvent("branches").isAvailable());
            KpcException e = assertThrows(KpcException.class, () -> s.counters("cycles", "branches"));
            assertEquals(Status.EUNAVAILABLE, e.getStatus(), e.toString());
            assertEquals(-9, e.getStatus().code());
            assertTrue(e.getMessage().contains("root") && e.getMessage().contains("kperf"), e.getMessage());
        }
    }

    @Test
    void threadsCountInIsolation() throws InterruptedException {
        try (Sampler s = new Sampler(); Counters mine = s.counters("cycles")) {
            mine.start();
            AtomicLong busyCycles = new AtomicLong();
            AtomicLong busyCpu = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long before = mine.sample()[0];
            Thread busy = new Thread(() -> {
                try (Counters c = s.counters("cycles")) {
                    c.start();
                    long a = c.sample()[0];
                    long cpu0 = Work.cpuTimeNs();
                    Work.burnCpu(40 * Work.MS);
                    busyCpu.set(Work.cpuTimeNs() - cpu0);
                    busyCycles.set(Work.delta(a, c.sample()[0]));
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            busy.start();
            busy.join(); // this thread waits meanwhile
            long idle = Work.delta(before, mine.sample()[0]);
            if (failure.get() != null) {
                throw new AssertionError("the busy thread failed", failure.get());
            }
            assertTrue(busyCycles.get() >= CYCLES_PER_NS * busyCpu.get() * 9 / 10,
                    busyCycles + " cycles for " + busyCpu + " ns of CPU time");
            assertTrue(idle < busyCycles.get() / 10,
                    "the waiting thread counted " + idle + " cycles, the busy one " + busyCycles);
        }
    }

    @Test
    void onePerfLevelPutsEverythingOnP() throws Exception {
        runVariant("onePerfLevel", "RCSIM_PERF_LEVELS=1");
    }

    @Test
    void aVirtualMachineIsUnsupportedAndSaysWhy() throws Exception {
        runVariant("virtualMachine", "RCSIM_VM=1");
    }

    @Test
    void macos12HasTotalsOnly() throws Exception {
        runVariant("macos12", "RCSIM_MACOS=12.6");
    }

    @Test
    void aLibSystemWithoutThreadSelfcountsIsUnsupported() throws Exception {
        String path = System.getenv("KPC_TEST_RCSIM_NOSELFCOUNTS");
        assumeTrue(path != null, "KPC_TEST_RCSIM_NOSELFCOUNTS does not name librecount_sim_noselfcounts.so");
        runVariant("noSelfcounts", "KPC_LIBSYSTEM_PATH=" + path);
    }

    /** Runs {@link #main} with {@code variant} in a child JVM whose environment adds {@code setting}. */
    private static void runVariant(String variant, String setting) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("-ea");
        cmd.add("-Djava.library.path=" + System.getProperty("java.library.path"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(RecountSimTest.class.getName());
        cmd.add(variant);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        String[] kv = setting.split("=", 2);
        pb.environment().put(kv[0], kv[1]);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        System.out.print(out);
        assertEquals(0, rc, variant + " with " + setting + " failed:\n" + out);
        assertTrue(out.contains("variant " + variant + " passed"), out);
    }

    /** A test on another simulated machine, in a child JVM (see {@link #runVariant}). */
    public static void main(String[] args) {
        String variant = args[0];
        try (Sampler s = new Sampler()) {
            assertEquals(Backend.RECOUNT, s.backend());
            switch (variant) {
                case "onePerfLevel":
                    try (Counters c = s.counters("cycles", "p-cycles", "e-cycles", "e-instructions")) {
                        c.start();
                        Work.burnCpu(10 * Work.MS);
                        long[] v = c.sample();
                        assertTrue(v[0] > 0, "cycles counted");
                        assertEquals(v[0], v[1], "p-cycles = cycles");
                        assertEquals(0, v[2], "e-cycles");
                        assertEquals(0, v[3], "e-instructions");
                    }
                    break;
                case "virtualMachine": {
                    KpcException e = assertThrows(KpcException.class, s::access);
                    assertEquals(Status.EUNSUPPORTED, e.getStatus(), e.toString());
                    assertEquals(-7, e.getStatus().code());
                    assertTrue(e.getMessage().contains("virtual machine"), e.getMessage());
                    e = assertThrows(KpcException.class, () -> s.counters("cycles"));
                    assertEquals(Status.EUNSUPPORTED, e.getStatus(), e.toString());
                    break;
                }
                case "noSelfcounts": {
                    KpcException e = assertThrows(KpcException.class, s::access);
                    assertEquals(Status.EUNSUPPORTED, e.getStatus(), e.toString());
                    assertTrue(e.getMessage().contains("thread_selfcounts"), e.getMessage());
                    break;
                }
                case "macos12": {
                    for (String name : new String[] {"p-cycles", "e-instructions"}) {
                        Event ev = s.findEvent(name);
                        assertFalse(ev.isAvailable(), name);
                        assertTrue(ev.unavailableReason().contains("13.0"), ev.unavailableReason());
                    }
                    try (Counters c = s.counters("cycles", "instructions")) {
                        c.start();
                        Work.burnCpu(5 * Work.MS);
                        long[] v = c.sample();
                        assertTrue(v[0] > 0, "cycles counted");
                        assertEquals(INSTRUCTIONS_PER_CYCLE * v[0], v[1], "instructions = 2 x cycles");
                    }
                    KpcException e = assertThrows(KpcException.class, () -> s.counters("cycles", "p-cycles"));
                    assertEquals(Status.EUNAVAILABLE, e.getStatus(), e.toString());
                    assertTrue(e.getMessage().contains("13.0"), e.getMessage());
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown variant " + variant);
            }
        }
        System.out.println("variant " + variant + " passed");
    }
}
