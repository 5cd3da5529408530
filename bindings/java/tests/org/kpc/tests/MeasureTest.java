package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.kpc.Counters;
import org.kpc.KpcException;
import org.kpc.Region;
import org.kpc.Sampler;
import org.kpc.Status;

/** Counters.calibrate, Counters.measure and Region (a measured region), on software events. */
class MeasureTest {
    private static final int PAGE = 4096;

    /** Runs body with a fresh private file mapping of the given pages (each faults once when written). */
    private interface WithMapping {
        void run(MappedByteBuffer map) throws Exception;
    }

    private static void withMapping(int pages, WithMapping body) throws Exception {
        Path file = Files.createTempFile("kpc-java-measure", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            body.run(ch.map(FileChannel.MapMode.PRIVATE, 0, (long) pages * PAGE));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void touch(MappedByteBuffer map, int firstPage, int pages) {
        for (int p = firstPage; p < firstPage + pages; p++) {
            map.put(p * PAGE, (byte) 1);
        }
    }

    @Test
    void measureCountsThePageFaultsOfTheBody() throws Exception {
        final int pages = 200;
        withMapping(pages, map -> {
            try (Sampler s = new Sampler(); Counters c = s.counters("page-faults", "task-clock")) {
                long[] counts = c.measure(() -> touch(map, 0, pages));
                assertEquals(2, counts.length);
                assertTrue(counts[0] >= pages && counts[0] < pages * 3 / 2,
                        "touched " + pages + " fresh pages, counted " + counts[0] + " faults");
                assertTrue(counts[1] > 0, "task-clock did not move");
                assertTrue(c.isRunning(), "measure starts stopped counters and leaves them on");
            }
        });
    }

    @Test
    void subtractingTheOverheadKeepsRealCounts() throws Exception {
        final int pages = 100;
        withMapping(pages, map -> {
            try (Sampler s = new Sampler(); Counters c = s.counters("page-faults")) {
                long[] counts = c.measure(true, () -> touch(map, 0, pages));
                assertTrue(counts[0] >= pages && counts[0] < pages * 3 / 2,
                        "touched " + pages + " fresh pages, counted " + counts[0] + " faults less the offset");
            }
        });
    }

    /** The empty region's task-clock: what one sample costs, which subtraction removes. */
    @Test
    void subtractingTheOverheadShrinksAnEmptyRegion() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            c.start();
            final int runs = 31;
            long[] kept = new long[runs];
            long[] subtracted = new long[runs];
            for (int i = 0; i < runs; i++) { // interleaved, so load changes hit both alike
                kept[i] = c.measure(false, () -> { })[0];
                subtracted[i] = c.measure(true, () -> { })[0];
            }
            Arrays.sort(kept);
            Arrays.sort(subtracted);
            long offset = c.calibrate()[0];
            assertTrue(offset > 0, "an empty region costs no task-clock?");
            assertTrue(subtracted[runs / 2] < kept[runs / 2],
                    "median empty region: " + subtracted[runs / 2] + " ns subtracted, " + kept[runs / 2]
                            + " ns kept (offset " + offset + " ns)");
        }
    }

    @Test
    void regionSpansTwoCallsAndGivesPerOpCounts() throws Exception {
        final int ops = 20;
        final int pagesPerOp = 16;
        withMapping(ops * pagesPerOp, map -> {
            try (Sampler s = new Sampler(); Counters c = s.counters("page-faults")) {
                Region region = c.begin(true);
                for (int i = 0; i < ops; i++) {
                    touch(map, i * pagesPerOp, pagesPerOp);
                }
                double perOp = Region.perOp(region.end(), ops)[0];
                assertTrue(perOp >= pagesPerOp && perOp < pagesPerOp * 1.2,
                        pagesPerOp + " fresh pages per op, " + perOp + " faults per op");
                IllegalStateException e = assertThrows(IllegalStateException.class, region::end);
                assertTrue(e.getMessage().contains("already ended"), e.getMessage());
            }
        });
    }

    @Test
    void perOpDividesUnsignedCounts() {
        assertArrayEquals(new double[] {2.5, 0.0}, Region.perOp(new long[] {10, 0}, 4));
        assertEquals(18446744073709551615.0, Region.perOp(new long[] {-1L}, 1)[0], 1e4);
        assertThrows(IllegalArgumentException.class, () -> Region.perOp(new long[] {1}, 0));
    }

    @Test
    void calibrateNeedsStartedCounters() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock", "page-faults")) {
            KpcException e = assertThrows(KpcException.class, c::calibrate);
            assertEquals(Status.ESTATE, e.getStatus(), e.toString());
            assertTrue(e.getMessage().contains("kp_thread_start"), e.getMessage());
            c.start();
            long[] offsets = c.calibrate(50);
            assertEquals(2, offsets.length);
            assertTrue(offsets[0] > 0 && offsets[0] < 1_000_000, "two back-to-back reads: " + offsets[0] + " ns");
            assertEquals(0, offsets[1], "an empty region faults no page");
        }
    }

    @Test
    void calibrateRejectsBadRounds() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            c.start();
            assertThrows(IllegalArgumentException.class, () -> c.calibrate(-1));
            KpcException e = assertThrows(KpcException.class, () -> c.calibrate(1_000_001));
            assertEquals(Status.EINVAL, e.getStatus(), e.toString());
            assertTrue(e.getMessage().contains("1000000"), e.getMessage());
        }
    }

    @Test
    void regionsBelongToTheOwningThread() throws Exception {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            c.start();
            Region mine = c.begin(false);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread other = new Thread(() -> {
                try {
                    mine.end();
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            other.start();
            other.join();
            assertTrue(thrown.get() instanceof KpcException, String.valueOf(thrown.get()));
            assertEquals(Status.EWRONG_THREAD, ((KpcException) thrown.get()).getStatus());
            assertTrue(mine.end()[0] > 0, "the owner can still end the region");
        }
    }
}
