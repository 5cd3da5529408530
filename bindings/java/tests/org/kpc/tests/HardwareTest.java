package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.kpc.Counters;
import org.kpc.KpcException;
import org.kpc.Sampler;

/**
 * Hardware counting through the default backend. On Linux, whether this machine can count is
 * decided without libkpc: CTest passes KPC_TEST_PMU_PROBE, a program that opens the
 * instructions event with perf_event_open itself (tests/common/pmu_probe.c). Where it
 * cannot (virtual machines, strict perf_event_paranoid) the test is skipped with the kernel's
 * reason; where it can, a KpcException is a failure.
 */
class HardwareTest {

    /** null when the probe counts instructions, else the kernel's reason it cannot. */
    private static String probeCannotCount() throws IOException, InterruptedException {
        String probe = System.getenv("KPC_TEST_PMU_PROBE");
        if (probe == null || probe.isEmpty())
            fail("KPC_TEST_PMU_PROBE is not set: run this test through CTest (ctest -R java_hardware), "
                    + "which builds tests/common/pmu_probe.c and names it");
        Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        int code = p.waitFor();
        if (code == 0) return null;
        if (code == 1) return out;
        fail("the PMU probe " + probe + " exited with " + code + ": " + out);
        return out;
    }

    @Test
    void cyclesAndInstructionsGrowWithWork() throws Exception {
        boolean linux = System.getProperty("os.name").startsWith("Linux");
        if (linux) {
            String why = probeCannotCount();
            assumeTrue(why == null, "this machine cannot count hardware instructions: " + why);
        }
        try (Sampler s = new Sampler()) {
            Counters c;
            try {
                s.access();
                c = s.counters("cycles", "instructions");
            } catch (KpcException e) {
                // Elsewhere there is no probe yet: libkpc's own refusal is the reason.
                assumeTrue(linux, "no usable hardware PMU here (" + e.getStatus() + "): " + e.getMessage());
                throw new AssertionError("perf_event_open counts instructions here, yet libkpc failed ("
                        + e.getStatus() + "): " + e.getMessage(), e);
            }
            try (c) {
                c.start();
                long[] before = c.sample();
                Work.burnCpu(20 * Work.MS);
                long[] after = c.sample();
                long cycles = Work.delta(before[0], after[0]);
                long instructions = Work.delta(before[1], after[1]);
                // Read by tests/pmu/guest/java_hardware.sh: on the emulated PMU cycles are
                // exactly 2^N x instructions.
                System.out.println("counted: " + instructions + " instructions, " + cycles + " cycles");
                assertTrue(cycles > 1_000_000, "cycles grew by " + cycles + " over 20 ms of work");
                assertTrue(instructions > 1_000_000, "instructions grew by " + instructions);
            }
        }
    }
}
