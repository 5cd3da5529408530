package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.kpc.CountedProcess;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;
import org.kpc.ThreadTotals;

/** CountedProcess.readThread on perf_event: per-thread rows of an attached process. */
class ProcessThreadsTest {
    @Test
    void rowsOfThisJvmAddUpToItsTotal() throws Exception {
        final int burners = 2;
        CountDownLatch attached = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < burners; t++) {
            threads.add(new Thread(() -> {
                try {
                    attached.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                Work.burnCpu(50 * Work.MS);
            }, "burner-" + t));
        }
        for (Thread t : threads) {
            t.start(); // before the attach: each gets a row of its own
        }
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.attachSelf(s, "task-clock", "context-switches")) {
            attached.countDown();
            for (Thread t : threads) {
                t.join();
            }
            p.stop();
            int rows = p.threadCount();
            assertTrue(rows >= 1 + burners, rows + " rows for this JVM with " + burners + " extra threads");
            long total = p.read()[0];
            long sum = 0;
            Set<Integer> tids = new HashSet<>();
            long busiest = 0;
            for (int i = 0; i < rows; i++) {
                ThreadTotals row = p.readThread(i);
                assertTrue(row.tid() > 0, "tid " + row.tid());
                assertTrue(tids.add(row.tid()), "tid " + row.tid() + " in two rows");
                assertEquals(2, row.size());
                sum += row.value(0);
                busiest = Math.max(busiest, row.value(0));
            }
            System.out.printf("%d rows, task-clock total %d ns, busiest row %d ns%n", rows, total, busiest);
            assertEquals(total, sum, "task-clock: the rows add up to the process total");
            // task-clock leaves out the scheduler's switch path that the thread CPU clock
            // of burnCpu includes: under load it reads a little less (0.06% measured).
            assertTrue(busiest >= 45 * Work.MS, "no row has a burner's 50 ms: busiest " + busiest + " ns");
            KpcException e = assertThrows(KpcException.class, () -> p.readThread(rows));
            assertEquals(Status.EINVAL, e.getStatus());
            e = assertThrows(KpcException.class, () -> p.readThread(-1));
            assertEquals(Status.EINVAL, e.getStatus());
        }
    }

    @Test
    void aSpawnedCommandHasOneRow() {
        try (Sampler s = new Sampler(); CountedProcess p = CountedProcess.spawn(s, List.of("true"), "task-clock")) {
            assertTrue(p.waitFor().isSuccess());
            assertEquals(1, p.threadCount());
            ThreadTotals row = p.readThread(0);
            assertEquals(p.pid(), row.tid(), "a command's first thread has its pid");
            assertEquals(p.read()[0], row.value(0));
        }
    }
}
