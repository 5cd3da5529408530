package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.kpc.Backend;
import org.kpc.Counters;
import org.kpc.Event;
import org.kpc.Kpc;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/** Creating, using and closing Samplers and Counters, in every order. */
class LifecycleTest {

    @Test
    void samplerDescribesTheMachine() {
        try (Sampler s = new Sampler()) {
            assertEquals("perf_event", s.backendName(), "Linux default backend");
            assertEquals(Backend.PERF_EVENT, s.backend());
            assertFalse(s.cpuId().isEmpty(), "cpuId");
            assertNotNull(s.cpuName());
            assertFalse(s.pmuName().isEmpty(), "pmuName");
            assertTrue(s.fixedCounters() >= 0 && s.configurableCounters() >= 0);
            assertTrue(s.toString().contains("perf_event"), s.toString());
        }
    }

    @Test
    void versionOfTheLoadedLibraryMatchesTheHeaders() {
        assertEquals(Kpc.HEADER_VERSION, Kpc.version());
        String[] parts = Kpc.version().split("\\.");
        assertEquals(Integer.parseInt(parts[0]) * 10000 + Integer.parseInt(parts[1]) * 100
                + Integer.parseInt(parts[2]), Kpc.versionNumber());
    }

    @Test
    void explicitPerfEventBackendWithNullPaths() {
        try (Sampler s = new Sampler(Backend.PERF_EVENT, null, null)) {
            assertEquals(Backend.PERF_EVENT, s.backend());
        }
        try (Sampler s = new Sampler(null, null, null)) { // null backend = AUTO
            assertEquals(Backend.PERF_EVENT, s.backend());
        }
    }

    @Test
    void closeIsIdempotent() {
        Sampler s = new Sampler();
        Counters c = s.counters("task-clock");
        assertFalse(c.isClosed());
        c.close();
        c.close();
        assertTrue(c.isClosed());
        assertFalse(s.isClosed());
        s.close();
        s.close();
        assertTrue(s.isClosed());
        assertEquals("Sampler[closed]", s.toString());
    }

    @Test
    void countersKeepWorkingAfterTheSamplerIsClosed() {
        Sampler s = new Sampler();
        Counters c = s.counters("task-clock", "page-faults");
        s.close(); // before its counters: the native session stays alive for them
        assertTrue(s.isClosed());
        c.start();
        long[] before = c.sample();
        Work.burnCpu(20 * Work.MS);
        long[] after = c.sample();
        assertTrue(Work.delta(before[0], after[0]) >= 15 * Work.MS,
                "task-clock grew by " + (after[0] - before[0]) + " ns after the sampler was closed");
        assertEquals("task-clock", c.events().get(0).name());
        c.stop();
        c.close();
    }

    @Test
    void closingTheSamplerWhileCountersAreStartedOnAnotherThread() throws Exception {
        Sampler s = new Sampler();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Object started = new Object();
        boolean[] ready = {false};
        Thread worker = new Thread(() -> {
            try (Counters c = s.counters("task-clock")) {
                c.start();
                long before = c.sample()[0];
                synchronized (started) {
                    ready[0] = true;
                    started.notifyAll();
                    while (!s.isClosed()) {
                        started.wait();
                    }
                }
                Work.burnCpu(10 * Work.MS);
                assertTrue(Work.delta(before, c.sample()[0]) >= 5 * Work.MS);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        worker.start();
        synchronized (started) {
            while (!ready[0]) {
                started.wait();
            }
            s.close();
            started.notifyAll();
        }
        worker.join();
        if (failure.get() != null) {
            throw new AssertionError("worker failed", failure.get());
        }
    }

    @Test
    void samplerMethodsThrowIllegalStateAfterClose() {
        Sampler s = new Sampler();
        s.close();
        List<Executable> calls = List.of(
                s::backend, s::backendName, s::cpuId, s::cpuName, s::pmuName,
                s::fixedCounters, s::configurableCounters, s::access, s::release, s::events,
                () -> s.findEvent("task-clock"), () -> s.counters("task-clock"));
        for (Executable call : calls) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    void countersMethodsThrowIllegalStateAfterClose() {
        try (Sampler s = new Sampler()) {
            Counters c = s.counters("task-clock");
            c.start();
            c.close();
            List<Executable> calls = List.of(
                    c::start, c::stop, c::sample, () -> c.sample(new long[1]), c::sampleFull,
                    c::isRunning, c::events, c::size);
            for (Executable call : calls) {
                assertThrows(IllegalStateException.class, call);
            }
        }
    }

    @Test
    void countersMayBeClosedFromAnotherThread() throws Exception {
        try (Sampler s = new Sampler()) {
            Counters c = s.counters("task-clock");
            c.start();
            c.sample();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread closer = new Thread(() -> {
                try {
                    c.close();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            closer.start();
            closer.join();
            assertEquals(null, failure.get(), "close() on another thread");
            assertTrue(c.isClosed());
            assertThrows(IllegalStateException.class, c::sample);
        }
    }

    @Test
    void startStopAndIsRunning() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            assertFalse(c.isRunning());
            KpcException notStarted = assertThrows(KpcException.class, c::sample);
            assertEquals(Status.ESTATE, notStarted.getStatus(), notStarted.toString());
            c.start();
            c.start(); // idempotent
            assertTrue(c.isRunning());
            Work.burnCpu(5 * Work.MS);
            c.stop();
            c.stop(); // idempotent
            assertFalse(c.isRunning());
            long[] paused = c.sample(); // totals stay readable while stopped
            Work.burnCpu(10 * Work.MS);
            assertArrayEquals(paused, c.sample(), "totals moved while stopped");
            c.start();
            Work.burnCpu(10 * Work.MS);
            assertTrue(Work.delta(paused[0], c.sample()[0]) >= 5 * Work.MS, "resumed counting");
        }
    }

    @Test
    void releaseKeepsTheDatabaseButStopsCounting() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            c.start();
            c.sample();
            s.release();
            s.release(); // idempotent
            assertTrue(s.events().size() > 0, "events stay readable after release");
            assertEquals(Status.ESTATE, assertThrows(KpcException.class, c::sample).getStatus());
            assertEquals(Status.ESTATE,
                    assertThrows(KpcException.class, () -> s.counters("task-clock")).getStatus());
        }
    }

    @Test
    void eventsOutliveTheirSamplerAndCounters() {
        Event found;
        List<Event> fromCounters;
        try (Sampler s = new Sampler()) {
            found = s.findEvent("task-clock");
            try (Counters c = s.counters("task-clock", "page-faults")) {
                fromCounters = c.events();
            }
        }
        // Values copied from C: readable (and equal) after every native handle is gone.
        assertEquals("task-clock", found.name());
        assertEquals(Event.Kind.SOFTWARE, found.kind());
        assertEquals(found, fromCounters.get(0));
        assertEquals("page-faults", fromCounters.get(1).name());
        assertTrue(found.toString().contains("task-clock"));
    }

    private static long openFileDescriptors() throws Exception {
        try (java.util.stream.Stream<java.nio.file.Path> fds =
                java.nio.file.Files.list(java.nio.file.Paths.get("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void unclosedHandlesAreFreedByTheCleaner() throws Exception {
        long before = openFileDescriptors();
        final int n = 100;
        for (int i = 0; i < n; i++) {
            Sampler s = new Sampler(); // neither this nor its Counters is closed
            s.counters("task-clock").start();
        }
        long leaked = openFileDescriptors() - before;
        assertTrue(leaked >= n, "expected an open perf_event fd per Counters, saw " + leaked);
        // Unreachable now: the Cleaner frees them (kp_thread_free on its own thread).
        for (int round = 0; round < 100 && openFileDescriptors() - before > n / 10; round++) {
            System.gc();
            Thread.sleep(50);
        }
        long left = openFileDescriptors() - before;
        assertTrue(left <= n / 10, left + " of " + n + " perf_event fds still open after GC");
    }

    @Test
    void manySamplersAndCountersComeAndGo() {
        for (int i = 0; i < 200; i++) {
            Sampler s = new Sampler();
            Counters c = s.counters("task-clock", "context-switches");
            if (i % 2 == 0) {
                s.close();
            }
            c.start();
            assertDoesNotThrow(() -> c.sample());
            c.close();
            s.close();
        }
    }
}
