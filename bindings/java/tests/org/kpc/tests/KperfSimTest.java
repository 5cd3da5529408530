package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kpc.Backend;
import org.kpc.Counters;
import org.kpc.Event;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/**
 * libkpc's real kperf backend against the simulated Apple frameworks of tests/kperf_sim.
 * CTest (java_kperf_sim) runs this class with KPC_BACKEND=kperf and KPC_KPERF_PATH /
 * KPC_KPERFDATA_PATH naming the simulator libraries; the simulator defaults to an M1 (a14)
 * whose caller is root. Simulated cycles and instructions grow with the thread's CPU time.
 */
class KperfSimTest {
    private static String kperfPath;
    private static String kperfdataPath;

    @BeforeAll
    static void needsTheSimulator() {
        kperfPath = System.getenv("KPC_KPERF_PATH");
        kperfdataPath = System.getenv("KPC_KPERFDATA_PATH");
        assumeTrue("kperf".equals(System.getenv("KPC_BACKEND")) && kperfPath != null && kperfdataPath != null,
                "needs KPC_BACKEND=kperf and KPC_KPERF_PATH/KPC_KPERFDATA_PATH set to the simulator; "
                        + "run it through: ctest -R java_kperf_sim");
    }

    @Test
    void theEnvironmentSelectsTheSimulatedM1() {
        try (Sampler s = new Sampler()) {
            assertEquals(Backend.KPERF, s.backend());
            assertEquals("kperf", s.backendName());
            assertEquals("a14", s.cpuId());
            assertTrue(s.cpuName().contains("M1"), s.cpuName());
            assertTrue(s.pmuName().contains("Apple"), s.pmuName());
            assertEquals(2, s.fixedCounters());
            assertTrue(s.configurableCounters() >= 5, "configurable: " + s.configurableCounters());
            s.access(); // simulated root: returns normally
        }
    }

    @Test
    void explicitOptionsReachTheSimulator() {
        try (Sampler s = new Sampler(Backend.KPERF, kperfPath, kperfdataPath)) {
            assertEquals("kperf", s.backendName());
        }
        KpcException e = assertThrows(KpcException.class,
                () -> new Sampler(Backend.KPERF, "/nonexistent/kperf.framework/kperf", kperfdataPath));
        assertEquals(Status.ELOAD, e.getStatus(), e.toString());
        assertTrue(e.getMessage().contains("/nonexistent/kperf.framework/kperf"), e.getMessage());
    }

    @Test
    void cyclesAndInstructionsGrowWithWork() {
        try (Sampler s = new Sampler(); Counters c = s.counters("cycles", "instructions")) {
            c.start();
            long[] before = c.sample();
            Work.burnCpu(20 * Work.MS);
            long[] middle = c.sample();
            Work.burnCpu(40 * Work.MS);
            long[] after = c.sample();
            long cycles1 = Work.delta(before[0], middle[0]);
            long cycles2 = Work.delta(middle[0], after[0]);
            long instructions1 = Work.delta(before[1], middle[1]);
            assertTrue(cycles1 > 1_000_000, "cycles grew by " + cycles1 + " over 20 ms of CPU time");
            assertTrue(instructions1 > 1_000_000, "instructions grew by " + instructions1);
            assertTrue(cycles2 > cycles1, "40 ms counted " + cycles2 + " cycles, 20 ms " + cycles1);
        }
    }

    @Test
    void fixedEventsDescribeAppleCounters() {
        try (Sampler s = new Sampler()) {
            Event cycles = s.findEvent("cycles");
            assertEquals(Event.Kind.FIXED, cycles.kind());
            assertEquals("FIXED_CYCLES", cycles.nativeName());
            assertEquals(0, cycles.fixedCounter());
            assertEquals("Cycles", cycles.alias());
            assertTrue(cycles.isAvailable());
            Event instructions = s.findEvent("instructions");
            assertEquals(1, instructions.fixedCounter());
        }
    }

    @Test
    void softwareEventsAreUnavailable() {
        try (Sampler s = new Sampler()) {
            Event tc = s.findEvent("task-clock");
            assertFalse(tc.isAvailable());
            assertFalse(tc.unavailableReason().isEmpty());
            KpcException e = assertThrows(KpcException.class, () -> s.counters("task-clock"));
            assertEquals(Status.EUNAVAILABLE, e.getStatus(), e.toString());
            assertTrue(e.getMessage().contains("task-clock"), e.getMessage());
        }
    }

    @Test
    void countersOutliveTheSamplerUnderKperf() {
        Sampler s = new Sampler();
        Counters c = s.counters("cycles");
        s.close();
        c.start();
        long before = c.sample()[0];
        Work.burnCpu(10 * Work.MS);
        assertTrue(Work.delta(before, c.sample()[0]) > 0);
        c.close();
        // The counters were given back: a new session can count again.
        try (Sampler again = new Sampler(); Counters c2 = again.counters("cycles", "instructions")) {
            c2.start();
            assertEquals(2, c2.sample().length);
        }
    }
}
