package org.kpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Loads the native libraries the way this JVM was started and checks that it was that way.
 * The CTest tests java_load_* (and java_install) start it with:
 * <ul>
 *   <li>{@code -Dkpc.test.expectLoad=JAR|PROPERTY|LIBRARY_PATH}: how NativeLoader must load;
 *   <li>{@code -Dkpc.test.expectDir=<dir>}: where the JNI library must come from (not JAR);
 *   <li>{@code -Dkpc.test.expectKpcDir=<dir>}: where libkpc must come from (optional).
 * </ul>
 * On Linux the check goes down to /proc/self/maps: which files the process really mapped.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NativeLoadingTest {
    private static final NativeLoader.Source BEFORE = NativeLoader.source();
    private static final long MS = 1_000_000L;

    private static String property(String name) {
        String value = System.getProperty(name);
        return value == null || value.isEmpty() ? null : value;
    }

    @Test
    @Order(1) // makes the first native call of this JVM
    void loadsTheWayTheJvmWasStarted() throws Exception {
        String expect = property("kpc.test.expectLoad");
        assertNotNull(expect, "start the JVM with -Dkpc.test.expectLoad=JAR|PROPERTY|LIBRARY_PATH");
        assertNull(BEFORE, "loaded before the first native call");

        // The first native call, made by 8 threads at once: each gets the library, loaded once
        // (the maps check below finds one copy).
        final int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<String>> versions = new java.util.ArrayList<>();
            for (int i = 0; i < threads; i++) {
                versions.add(pool.submit(() -> {
                    start.await();
                    return Kpc.version();
                }));
            }
            for (Future<String> v : versions) {
                assertEquals(Kpc.HEADER_VERSION, v.get());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(NativeLoader.Source.valueOf(expect), NativeLoader.source());
        Path jni = Paths.get(NativeLoader.location());
        assertTrue(NativeLoader.jniFileNames().contains(jni.getFileName().toString()), jni.toString());

        if (NativeLoader.source() == NativeLoader.Source.JAR) {
            Path dir = jni.getParent();
            assertTrue(dir.getFileName().toString().startsWith("kpc-native-"), jni.toString());
            assertEquals(Paths.get(System.getProperty("java.io.tmpdir")).toRealPath(),
                    dir.getParent().toRealPath(), "extracted outside java.io.tmpdir: " + jni);
            if (isLinux()) { // deleted right after loading: nothing is left behind
                assertFalse(Files.exists(jni), jni + " was not deleted");
                assertFalse(Files.exists(dir), dir + " was not deleted");
            }
        } else {
            String expectDir = property("kpc.test.expectDir");
            assertNotNull(expectDir, "start the JVM with -Dkpc.test.expectDir=<dir of the JNI library>");
            assertEquals(Paths.get(expectDir).toRealPath(), jni.getParent().toRealPath());
        }

        List<String> maps = mappedFiles();
        if (maps == null) {
            System.out.println("no /proc/self/maps here: checked NativeLoader's record only");
            return;
        }
        Set<Path> jniMapped = parents(maps, jni.getFileName().toString());
        Set<Path> kpcMapped = parents(maps, "libkpc\\.so[.0-9]*");
        assertEquals(1, jniMapped.size(), "the JNI library is mapped from " + jniMapped);
        assertEquals(1, kpcMapped.size(), "libkpc is mapped from " + kpcMapped);
        Path jniDir = jniMapped.iterator().next();
        Path kpcDir = kpcMapped.iterator().next();
        if (NativeLoader.source() == NativeLoader.Source.JAR) {
            assertEquals(jni.getParent().getFileName(), jniDir.getFileName(), "JNI library mapped from " + jniDir);
            assertEquals(jniDir, kpcDir, "libkpc is not the copy extracted with the JNI library");
        } else {
            assertEquals(Paths.get(property("kpc.test.expectDir")).toRealPath(), jniDir);
            String expectKpcDir = property("kpc.test.expectKpcDir");
            if (expectKpcDir != null) {
                assertEquals(Paths.get(expectKpcDir).toRealPath(), kpcDir);
            }
        }
    }

    @Test
    @Order(2)
    void countsTaskClock() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            c.start();
            long before = c.sample()[0];
            burnCpu(50 * MS);
            long ns = c.sample()[0] - before;
            assertTrue(ns >= 40 * MS, "50 ms of CPU work, task-clock grew by " + ns + " ns");
        }
    }

    private static boolean isLinux() {
        return NativeLoader.platform(System.getProperty("os.name"), "x").startsWith("linux-");
    }

    /** Paths of the files this process has mapped, "(deleted)" removed, or null without /proc. */
    private static List<String> mappedFiles() throws IOException {
        Path maps = Paths.get("/proc/self/maps");
        if (!Files.isReadable(maps)) {
            return null;
        }
        return Files.readAllLines(maps).stream()
                .map(line -> line.split("\\s+", 6))
                .filter(f -> f.length == 6 && f[5].startsWith("/"))
                .map(f -> f[5].replaceFirst(" \\(deleted\\)$", ""))
                .distinct()
                .collect(Collectors.toList());
    }

    /** The directories of the mapped files whose name matches {@code nameRegex}. */
    private static Set<Path> parents(List<String> mapped, String nameRegex) {
        Set<Path> dirs = new TreeSet<>();
        for (String file : mapped) {
            Path p = Paths.get(file);
            if (p.getFileName().toString().matches(nameRegex)) {
                dirs.add(p.getParent());
            }
        }
        return dirs;
    }

    /** Spins until this thread has used {@code cpuNanos} of CPU time. */
    private static void burnCpu(long cpuNanos) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        double x = 0;
        long i = 0;
        while (threads.getCurrentThreadCpuTime() - start < cpuNanos) {
            for (int k = 0; k < 20_000; k++) {
                x += Math.sqrt(++i);
            }
        }
        if (x == 42) {
            System.out.println(x);
        }
    }
}
