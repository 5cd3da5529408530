package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.kpc.CountedProcess;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/** CountedProcess.attachSystemWide on perf_event: every CPU. */
class SystemWideTest {
    /** Root here (the task's machine); an unprivileged run would get EPERM, not tested. */
    private static void assumeRoot() {
        assumeTrue("root".equals(System.getProperty("user.name")),
                "system-wide counting needs root, CAP_PERFMON or perf_event_paranoid <= 0; not asserted for another user");
    }

    @Test
    void countsEveryCpuWhileThisThreadSleeps() throws Exception {
        assumeRoot();
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.attachSystemWide(s, "task-clock")) {
            assertEquals(-1, p.pid());
            assertEquals(List.of(CountedProcess.Scope.SYSTEM), p.scopes());
            assertEquals(0, p.threadCount());
            long before = p.read()[0];
            long start = System.nanoTime();
            Thread.sleep(100);
            long slept = System.nanoTime() - start;
            long counted = Work.delta(before, p.read()[0]);
            System.out.printf("system-wide task-clock: %d ns over a %d ns sleep (%d CPUs)%n", counted, slept,
                    Runtime.getRuntime().availableProcessors());
            // Each CPU's clock runs whether this process runs or not: the sleeping caller alone
            // would count about nothing.
            assertTrue(counted > 50 * Work.MS, counted + " ns of task-clock on every CPU over a " + slept + " ns sleep");
            KpcException e = assertThrows(KpcException.class, p::waitFor);
            assertEquals(Status.ESTATE, e.getStatus());
        }
    }

    @Test
    void takesOptions() {
        assumeRoot();
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.attachSystemWide(s,
                new CountedProcess.Options().withPartial(true).withGroups(0, 0), "task-clock", "context-switches")) {
            assertTrue(p.eventStatus(0).isCounted() && p.eventStatus(1).isCounted());
            assertEquals(List.of(CountedProcess.Scope.SYSTEM, CountedProcess.Scope.SYSTEM), p.scopes());
        }
    }
}
