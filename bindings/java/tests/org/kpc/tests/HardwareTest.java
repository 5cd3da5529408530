package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.kpc.Counters;
import org.kpc.KpcException;
import org.kpc.Sampler;

/**
 * Hardware counting through the default backend. Without a usable PMU (virtual machines,
 * strict perf_event_paranoid) the test is skipped with libkpc's reason, and CTest reports
 * java_hardware as skipped, not passed.
 */
class HardwareTest {

    @Test
    void cyclesAndInstructionsGrowWithWork() {
        try (Sampler s = new Sampler()) {
            Counters c;
            try {
                s.access();
                c = s.counters("cycles", "instructions");
            } catch (KpcException e) {
                assumeTrue(false, "no usable hardware PMU here (" + e.getStatus() + "): " + e.getMessage());
                return;
            }
            try (c) {
                c.start();
                long[] before = c.sample();
                Work.burnCpu(20 * Work.MS);
                long[] after = c.sample();
                long cycles = Work.delta(before[0], after[0]);
                long instructions = Work.delta(before[1], after[1]);
                assertTrue(cycles > 1_000_000, "cycles grew by " + cycles + " over 20 ms of work");
                assertTrue(instructions > 1_000_000, "instructions grew by " + instructions);
            }
        }
    }
}
