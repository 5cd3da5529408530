package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.kpc.CountedProcess;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/** CountedProcess.Options on perf_event: partial counting with per-event status, and groups. */
class ProcessOptionsTest {
    /** A command that runs a few milliseconds of shell arithmetic. */
    private static final List<String> BUSY = List.of("sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done");
    /** A command that writes into a fresh 1 MiB buffer a few times. */
    private static final List<String> TOUCHES_MEMORY = List.of("dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=4");

    /** This machine has no hardware PMU: cycles exists but cannot be counted (kpc/process.h). */
    private static void assumeCyclesUnavailable(Sampler s) {
        assumeFalse(s.findEvent("cycles").isAvailable(), "cycles is countable here; the partial test needs an event that is not");
    }

    @Test
    void partialCountsWhatItCanAndSaysWhyNotForTheRest() {
        try (Sampler s = new Sampler()) {
            assumeCyclesUnavailable(s);
            CountedProcess.Options partial = new CountedProcess.Options().withPartial(true);
            try (CountedProcess p = CountedProcess.spawn(s, BUSY, partial, "task-clock", "cycles")) {
                assertTrue(p.waitFor().isSuccess());
                long[] v = p.read();
                assertTrue(v[0] > 0, "task-clock " + v[0]);
                assertEquals(0, v[1], "an event that is not counted reads 0");

                CountedProcess.EventStatus taskClock = p.eventStatus(0);
                assertTrue(taskClock.isCounted(), taskClock.toString());
                assertEquals(Status.OK, taskClock.status());
                assertEquals("", taskClock.reason());

                CountedProcess.EventStatus cycles = p.eventStatus(1);
                assertFalse(cycles.isCounted());
                assertEquals(Status.EUNAVAILABLE, cycles.status(), cycles.toString());
                assertEquals(Status.EUNAVAILABLE.code(), cycles.code());
                assertFalse(cycles.reason().isEmpty(), "a status without a reason");
                assertFalse(p.readFull().isComplete(1), "an event not counted is not complete");

                KpcException e = assertThrows(KpcException.class, () -> p.eventStatus(2));
                assertEquals(Status.EINVAL, e.getStatus());
                e = assertThrows(KpcException.class, () -> p.eventStatus(-1));
                assertEquals(Status.EINVAL, e.getStatus());
            }
            KpcException e = assertThrows(KpcException.class,
                    () -> CountedProcess.spawn(s, BUSY, new CountedProcess.Options(), "task-clock", "cycles"));
            assertEquals(Status.EUNAVAILABLE, e.getStatus(), "without partial the whole set fails");
            assertTrue(e.getMessage().contains("cycles"), e.getMessage());
        }
    }

    @Test
    void eventsOfOneGroupCountTogether() {
        CountedProcess.Options grouped = new CountedProcess.Options().withGroups(0, 0);
        try (Sampler s = new Sampler();
             CountedProcess p = CountedProcess.spawn(s, TOUCHES_MEMORY, grouped, "task-clock", "page-faults")) {
            assertTrue(p.waitFor().isSuccess());
            long[] v = p.read();
            assertTrue(v[0] > 0, "task-clock " + v[0]);
            assertTrue(v[1] > 0, "page-faults " + v[1]);
            assertTrue(p.eventStatus(0).isCounted() && p.eventStatus(1).isCounted());
        }
    }

    @Test
    void badGroupsAreRefused() {
        try (Sampler s = new Sampler()) {
            KpcException e = assertThrows(KpcException.class, () -> CountedProcess.spawn(s, BUSY,
                    new CountedProcess.Options().withGroups(0, -2), "task-clock", "page-faults"));
            assertEquals(Status.EINVAL, e.getStatus());
            assertTrue(e.getMessage().contains("-2"), e.getMessage());
            e = assertThrows(KpcException.class, () -> CountedProcess.attach(s, 0,
                    new CountedProcess.Options().withGroups(-2), "task-clock"));
            assertEquals(Status.EINVAL, e.getStatus());
            e = assertThrows(KpcException.class, () -> CountedProcess.spawn(s, BUSY,
                    new CountedProcess.Options().withGroups(0), "task-clock", "page-faults"));
            assertEquals(Status.EINVAL, e.getStatus(), "one group for two events");
            e = assertThrows(KpcException.class, () -> CountedProcess.attach(s, -1,
                    new CountedProcess.Options(), "task-clock"));
            assertEquals(Status.EINVAL, e.getStatus(), "a negative pid is not system-wide");
            assertTrue(e.getMessage().contains("attachSystemWide"), e.getMessage());
        }
    }
}
