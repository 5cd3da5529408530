package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.kpc.CountedProcess;
import org.kpc.KpcException;
import org.kpc.ProcessSample;
import org.kpc.Sampler;
import org.kpc.Status;

/** CountedProcess on perf_event: a whole process, every thread of it. */
class ProcessTest {
    private static final int PAGE = 4096;
    /** What `workload touch N` faults besides its N pages (loader, libc): about 60 here. */
    private static final long STARTUP_FAULTS = 400;

    /** tests/cli's workload program; CTest passes its path. */
    private static String workload() {
        String w = System.getenv("KPC_TEST_WORKLOAD");
        assumeTrue(w != null && !w.isEmpty(), "KPC_TEST_WORKLOAD is not set (CTest sets it to tests/cli's workload)");
        return w;
    }

    /** Writes one byte to each of {@code pages} fresh pages of native memory. */
    private static void touchPages(int pages) {
        ByteBuffer b = ByteBuffer.allocateDirect(pages * PAGE);
        for (int p = 0; p < pages; p++) {
            b.put(p * PAGE, (byte) 1);
        }
    }

    @Test
    void spawnedCommandCountsItsPages() {
        final int pages = 2000;
        try (Sampler s = new Sampler();
             CountedProcess p = CountedProcess.spawn(s, List.of(workload(), "touch", Integer.toString(pages)),
                     "page-faults", "task-clock")) {
            assertTrue(p.pid() > 0 && p.pid() != ProcessHandle.current().pid());
            CountedProcess.ExitStatus exit = p.waitFor();
            assertTrue(exit.isSuccess(), exit.toString());
            long[] v = p.read();
            assertTrue(v[0] >= pages && v[0] <= pages + STARTUP_FAULTS,
                    v[0] + " page faults for a command touching " + pages + " pages");
            assertTrue(v[1] > 0, "task-clock 0");
            assertEquals(List.of(CountedProcess.Scope.TREE, CountedProcess.Scope.TREE), p.scopes());
            assertEquals("page-faults", p.events().get(0).name());
            ProcessSample full = p.readFull();
            for (int i = 0; i < 2; i++) {
                assertEquals(v[i], full.value(i), "the totals of an ended command stay");
                assertTrue(full.isComplete(i));
                assertTrue(full.timeEnabledNs(i) > 0 && full.timeRunningNs(i) <= full.timeEnabledNs(i));
            }
        }
    }

    @Test
    void waitForGivesTheExitCodeOrTheSignal() {
        try (Sampler s = new Sampler()) {
            try (CountedProcess p = CountedProcess.spawn(s, List.of("sh", "-c", "exit 3"), "task-clock")) {
                assertEquals(3, p.waitFor().exitCode());
                assertEquals(0, p.waitFor().signal(), "a second waitFor gives the same result");
            }
            try (CountedProcess p = CountedProcess.spawn(s, List.of("sh", "-c", "kill -KILL $$"), "task-clock")) {
                CountedProcess.ExitStatus exit = p.waitFor();
                assertEquals(-1, exit.exitCode());
                assertEquals(9, exit.signal());
                assertFalse(exit.isSuccess());
            }
        }
    }

    @Test
    void attachSelfCountsEveryThread() throws Exception {
        final int threads = 4, pages = 300;
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.attachSelf(s, "page-faults")) {
            assertEquals(ProcessHandle.current().pid(), p.pid());
            long before = p.read()[0];
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(new Thread(() -> touchPages(pages))); // started after the attach
            }
            for (Thread w : workers) {
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
            long counted = p.read()[0] - before;
            assertTrue(counted >= threads * pages, counted + " page faults for " + threads * pages + " pages");
        }
    }

    @Test
    void stopPausesAndStartResumes() {
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.attach(s, 0, "page-faults")) {
            assertTrue(p.isCounting());
            p.stop();
            assertFalse(p.isCounting());
            long paused = p.read()[0];
            touchPages(1000);
            // Only a thread created at the very moment of the stop (the JVM makes some on its
            // own) could escape it (kpc/process.h).
            long whileStopped = p.read()[0] - paused;
            assertTrue(whileStopped < 500, whileStopped + " page faults counted while stopped");
            p.start();
            touchPages(1000);
            assertTrue(p.read()[0] - paused >= 1000);
        }
    }

    @Test
    void oneThreadWaitsWhileAnotherReads() throws Exception {
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.spawn(s, List.of("sleep", "0.3"), "task-clock")) {
            CompletableFuture<CountedProcess.ExitStatus> exit = CompletableFuture.supplyAsync(p::waitFor);
            assertEquals(1, p.read().length); // not blocked by the wait in progress
            p.stop();
            p.start();
            assertTrue(exit.get().isSuccess());
        }
    }

    @Test
    void errorsCarryStatusAndMessage() {
        try (Sampler s = new Sampler()) {
            KpcException e = assertThrows(KpcException.class,
                    () -> CountedProcess.spawn(s, List.of("kpc-no-such-program"), "task-clock"));
            assertEquals(Status.EEXEC, e.getStatus());
            assertTrue(e.getMessage().contains("kpc-no-such-program"), e.getMessage());
            assertEquals(2, e.getOsCode(), "ENOENT");
            e = assertThrows(KpcException.class, () -> CountedProcess.spawn(s, List.of(), "task-clock"));
            assertEquals(Status.EINVAL, e.getStatus());
            e = assertThrows(KpcException.class, () -> CountedProcess.attachSelf(s, "no-such-event"));
            assertEquals(Status.EUNKNOWN_EVENT, e.getStatus());
            assertTrue(e.getMessage().contains("no-such-event"), e.getMessage());
            e = assertThrows(KpcException.class, () -> CountedProcess.attach(s, -5, "task-clock"));
            assertEquals(Status.EINVAL, e.getStatus());
            assertThrows(NullPointerException.class, () -> CountedProcess.spawn(s, null, "task-clock"));
            CountedProcess p = CountedProcess.attachSelf(s, "task-clock");
            e = assertThrows(KpcException.class, p::waitFor);
            assertEquals(Status.ESTATE, e.getStatus());
            assertFalse(e.getMessage().isEmpty());
            p.close();
            p.close(); // idempotent
            assertTrue(p.isClosed());
            assertThrows(IllegalStateException.class, p::read);
            assertEquals(1, p.events().size(), "copies stay readable");
            s.close();
            assertThrows(IllegalStateException.class, () -> CountedProcess.attachSelf(s, "task-clock"));
        }
    }

    @Test
    void closeKillsACommandNotWaitedFor() {
        long pid;
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.spawn(s, List.of("sleep", "30"), "task-clock")) {
            pid = p.pid();
        }
        assertFalse(ProcessHandle.of(pid).isPresent(), "pid " + pid + " outlived its CountedProcess");
    }

    @Test
    void outlivesItsSampler() {
        Sampler s = new Sampler();
        try (CountedProcess p = CountedProcess.attachSelf(s, "task-clock")) {
            s.close();
            assertTrue(p.read()[0] > 0);
        }
    }
}
