package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.kpc.Counters;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/** Counters count their creating thread only, and refuse other threads. */
class ThreadsTest {
    private ExecutorService other;

    @BeforeEach
    void startOtherThread() {
        other = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stopOtherThread() {
        other.shutdownNow();
    }

    private <T> T onOtherThread(Callable<T> task) throws Exception {
        try {
            return other.submit(task).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw new AssertionError(e.getCause());
        }
    }

    @Test
    void workOnAnotherThreadDoesNotCountHere() throws Exception {
        try (Sampler s = new Sampler(); Counters mine = s.counters("task-clock")) {
            mine.start();
            long before = mine.sample()[0];
            long theirs = onOtherThread(() -> {
                try (Counters c = s.counters("task-clock")) {
                    c.start();
                    long b = c.sample()[0];
                    Work.burnCpu(60 * Work.MS);
                    return Work.delta(b, c.sample()[0]);
                }
            }); // this thread blocks meanwhile
            long ours = Work.delta(before, mine.sample()[0]);
            assertTrue(theirs >= 40 * Work.MS, "the busy thread counted only " + theirs + " ns");
            assertTrue(ours < theirs / 2,
                    "this thread's task-clock grew by " + ours + " ns while the other thread worked "
                            + theirs + " ns");
        }
    }

    @Test
    void countersRefuseAnotherThread() throws Exception {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            List<Executable> calls = List.of(c::start, c::stop, c::sample, () -> c.sample(new long[1]),
                    c::sampleFull);
            for (Executable call : calls) {
                KpcException e = onOtherThread(() -> assertThrows(KpcException.class, call));
                assertEquals(Status.EWRONG_THREAD, e.getStatus(), e.toString());
                assertEquals(-11, e.getCode());
            }
            // Any thread may ask these.
            assertEquals(false, onOtherThread(c::isRunning));
            assertEquals(1, onOtherThread(() -> c.events().size()));
            // The creating thread is unaffected.
            c.start();
            assertEquals(1, c.sample().length);
        }
    }

    @Test
    void countersMadeOnAnotherThreadRefuseThisOne() throws Exception {
        try (Sampler s = new Sampler()) {
            Counters theirs = onOtherThread(() -> {
                Counters c = s.counters("task-clock");
                c.start();
                return c;
            });
            try {
                assertEquals(Status.EWRONG_THREAD, assertThrows(KpcException.class, theirs::sample).getStatus());
                assertEquals(Status.EWRONG_THREAD, assertThrows(KpcException.class, theirs::stop).getStatus());
                assertTrue(theirs.isRunning());
            } finally {
                theirs.close(); // any thread
            }
        }
    }

    @Test
    void closeFromAnotherThreadWhileSampling() throws Exception {
        try (Sampler s = new Sampler()) {
            Counters c = s.counters("task-clock", "page-faults");
            c.start();
            long[] into = new long[2];
            for (int i = 0; i < 1000; i++) {
                c.sample(into); // sampling is under way when the close comes
            }
            Future<?> closer = other.submit(c::close);
            int samples = 0;
            try {
                while (true) {
                    c.sample(into);
                    samples++;
                }
            } catch (IllegalStateException expected) {
                // close() waited for the sample in progress, then later samples were refused.
            }
            closer.get();
            assertTrue(c.isClosed());
        }
    }

    @Test
    void oneSamplerServesManyThreads() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (Sampler s = new Sampler()) {
            List<Future<Long>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                results.add(pool.submit(() -> {
                    assertTrue(s.events().size() > 0);
                    try (Counters c = s.counters("task-clock", "page-faults")) {
                        c.start();
                        long b = c.sample()[0];
                        Work.burnCpu(5 * Work.MS);
                        return Work.delta(b, c.sample()[0]);
                    }
                }));
            }
            for (Future<Long> r : results) {
                assertTrue(r.get() >= 3 * Work.MS, "a thread counted " + r.get() + " ns for 5 ms of work");
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
