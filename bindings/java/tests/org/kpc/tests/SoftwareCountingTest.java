package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.kpc.Counters;
import org.kpc.Sample;
import org.kpc.Sampler;

/** What the software events count, through the Java API (these work in any VM). */
class SoftwareCountingTest {
    private static final int PAGE = 4096;

    @Test
    void pageFaultsCountTouchedPages() throws Exception {
        final int pages = 512;
        // A fresh shared file mapping: the first write to each page faults exactly once (no
        // fault-around for writes, no transparent huge pages, no recycled malloc memory).
        Path file = Files.createTempFile("kpc-java-faults", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Sampler s = new Sampler();
             Counters c = s.counters("page-faults")) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, (long) pages * PAGE);
            c.start();
            long before = c.sample()[0];
            for (int p = 0; p < pages; p++) {
                map.put(p * PAGE, (byte) 1);
            }
            long faults = Work.delta(before, c.sample()[0]);
            assertTrue(faults >= pages, "touched " + pages + " pages, counted " + faults + " faults");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void taskClockGrowsWithBusyWork() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            c.start();
            long before = c.sample()[0];
            Work.burnCpu(50 * Work.MS);
            long ns = Work.delta(before, c.sample()[0]);
            assertTrue(ns >= 40 * Work.MS, "50 ms of CPU work, task-clock grew by " + ns + " ns");
        }
    }

    @Test
    void totalsNeverDecrease() {
        try (Sampler s = new Sampler();
             Counters c = s.counters("task-clock", "page-faults", "context-switches", "cpu-clock")) {
            c.start();
            long[] previous = c.sample();
            long[] current = new long[previous.length];
            for (int i = 0; i < 300; i++) {
                if (i % 50 == 0) {
                    Thread.yield();
                    byte[] garbage = new byte[64 * 1024]; // some faults and allocation
                    garbage[i] = 1;
                }
                Work.burnCpu(20_000);
                c.sample(current);
                for (int k = 0; k < current.length; k++) {
                    Work.delta(previous[k], current[k]); // throws if a total went down
                }
                System.arraycopy(current, 0, previous, 0, current.length);
            }
            assertTrue(current[0] > 0, "task-clock never moved");
        }
    }

    @Test
    void sampleIntoAllocatesNothing() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean,
                "this JVM cannot measure per-thread allocation");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
                "per-thread allocation accounting is off in this JVM");
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock", "page-faults")) {
            c.start();
            long[] into = new long[2];
            for (int i = 0; i < 20_000; i++) { // warm up (JIT)
                c.sample(into);
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 10_000; i++) {
                c.sample(into);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            // The measurement itself may allocate a little; one object per call would be >= 160 kB.
            assertTrue(allocated < 4096, "10000 sample(long[]) calls allocated " + allocated + " bytes");
        }
    }

    @Test
    void sampleWritesOnlyTheEventCount() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock", "page-faults")) {
            c.start();
            long[] into = new long[5];
            Arrays.fill(into, -7);
            c.sample(into);
            assertTrue(into[0] != -7 && into[0] >= 0, Arrays.toString(into));
            assertEquals(-7, into[2], "element past the events was written");
            assertEquals(-7, into[3]);
            assertEquals(-7, into[4]);
        }
    }

    @Test
    void sampleFullReportsCompleteSoftwareCounts() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock", "page-faults")) {
            c.start();
            long[] plain = c.sample();
            Work.burnCpu(5 * Work.MS);
            Sample full = c.sampleFull();
            assertEquals(2, full.size());
            assertTrue(Long.compareUnsigned(full.value(0), plain[0]) >= 0, full.toString());
            assertTrue(Long.compareUnsigned(full.value(1), plain[1]) >= 0, full.toString());
            // Software events are never multiplexed: counted the whole time they were enabled.
            assertTrue(full.isComplete(0) && full.isComplete(1), full.toString());
            assertTrue(full.timeEnabledNs() > 0, full.toString());
            assertEquals(full.timeEnabledNs(), full.timeRunningNs(), full.toString());
            // The value object is immutable.
            full.values()[0] = -1;
            full.complete()[0] = false;
            assertTrue(full.value(0) != -1 && full.isComplete(0));
        }
    }
}
