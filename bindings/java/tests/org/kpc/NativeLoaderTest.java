package org.kpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * NativeLoader's parts, without loading anything: platform names, extraction from kpc.jar
 * (which must carry this platform's libraries), the index, and the error messages. In package
 * org.kpc to reach the package-private loader. Run with kpc.jar on the class path and no
 * library path (CTest java_native_loader).
 */
class NativeLoaderTest {
    private static final String THIS_PLATFORM =
            NativeLoader.platform(System.getProperty("os.name"), System.getProperty("os.arch"));

    @AfterAll
    static void nothingWasLoaded() {
        // Extraction and the error paths must not load a library as a side effect.
        assertNull(NativeLoader.source(), "a test loaded the native library");
    }

    @Test
    void platformNamesMatchTheBuild() {
        assertEquals("linux-x86_64", NativeLoader.platform("Linux", "amd64"));
        assertEquals("linux-x86_64", NativeLoader.platform("Linux", "x86_64"));
        assertEquals("linux-aarch64", NativeLoader.platform("Linux", "aarch64"));
        assertEquals("macos-aarch64", NativeLoader.platform("Mac OS X", "aarch64"));
        assertEquals("macos-aarch64", NativeLoader.platform("Darwin", "arm64"));
        assertEquals("macos-x86_64", NativeLoader.platform("Mac OS X", "x86_64"));
        assertEquals("linux-x86", NativeLoader.platform("Linux", "i386"));
        assertEquals("linux-arm", NativeLoader.platform("Linux", "arm"));
        assertEquals("linux-arm", NativeLoader.platform("Linux", "armv7l"));
        assertEquals("linux-riscv64", NativeLoader.platform("Linux", "riscv64"));
        assertEquals("linux-ppc64le", NativeLoader.platform("Linux", "ppc64le"));
        assertEquals("windows-x86_64", NativeLoader.platform("Windows 11", "amd64"));
        assertEquals("freebsd-x86_64", NativeLoader.platform("FreeBSD", "amd64"));
    }

    @Test
    void jarCarriesThisPlatform() throws Exception {
        try (InputStream in = NativeLoader.class.getResourceAsStream(
                "/" + NativeLoader.RESOURCE_DIR + NativeLoader.PLATFORMS)) {
            assertTrue(in != null, "kpc.jar has no " + NativeLoader.RESOURCE_DIR + NativeLoader.PLATFORMS);
            String platforms = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(Arrays.asList(platforms.split("\n")).contains(THIS_PLATFORM),
                    "kpc.jar was built for " + platforms.trim() + ", this JVM is " + THIS_PLATFORM);
        }
    }

    @Test
    void extractsIntoAFreshOwnerOnlyDirectory() throws Exception {
        List<Path> files = NativeLoader.extract(THIS_PLATFORM);
        Path dir = files.get(0).getParent();
        try {
            // libkpc first, the JNI library last, all in one new directory under java.io.tmpdir.
            assertEquals(2, files.size(), files.toString());
            assertTrue(files.get(0).getFileName().toString().matches("libkpc[.0-9]*\\.(so[.0-9]*|dylib)"),
                    "first file: " + files.get(0));
            assertTrue(NativeLoader.jniFileNames().contains(files.get(1).getFileName().toString()),
                    "last file: " + files.get(1));
            for (Path f : files) {
                assertEquals(dir, f.getParent());
            }
            Path tmp = Paths.get(System.getProperty("java.io.tmpdir")).toRealPath();
            assertEquals(tmp, dir.toRealPath().getParent(), "not directly under java.io.tmpdir");
            assertTrue(dir.getFileName().toString().startsWith("kpc-native-"), dir.toString());

            // Same bytes as in the jar.
            for (Path f : files) {
                try (InputStream in = NativeLoader.class.getResourceAsStream(
                        "/" + NativeLoader.RESOURCE_DIR + THIS_PLATFORM + "/" + f.getFileName())) {
                    byte[] expected = in.readAllBytes();
                    assertTrue(expected.length > 1000, f + " is suspiciously small");
                    assertArrayEquals(expected, Files.readAllBytes(f), f + " differs from the jar's copy");
                }
            }

            // Nobody but the owner can list, replace or read the libraries before they are loaded.
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(dir),
                        "directory " + dir);
                assertEquals(System.getProperty("user.name"), Files.getOwner(dir).getName(), "owner of " + dir);
                for (Path f : files) {
                    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(f);
                    for (PosixFilePermission p : perms) {
                        assertTrue(p.name().startsWith("OWNER_"), f + " is " + PosixFilePermissions.toString(perms));
                    }
                    assertTrue(perms.contains(PosixFilePermission.OWNER_READ), f + " is not readable");
                }
            }
        } finally {
            NativeLoader.delete(files, dir);
        }
        assertFalse(Files.exists(dir), dir + " was not deleted");
    }

    @Test
    void everyExtractionGetsItsOwnDirectory() {
        List<Path> a = NativeLoader.extract(THIS_PLATFORM);
        List<Path> b = NativeLoader.extract(THIS_PLATFORM);
        try {
            assertNotEquals(a.get(0).getParent(), b.get(0).getParent());
        } finally {
            NativeLoader.delete(a, a.get(0).getParent());
            NativeLoader.delete(b, b.get(0).getParent());
        }
    }

    @Test
    void missingPlatformSaysWhatToDo() {
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLoader.extract("nosuchos-nosucharch"));
        String m = e.getMessage();
        assertTrue(m.contains("no native libkpc for nosuchos-nosucharch in kpc.jar"), m);
        assertTrue(m.contains("it has " + THIS_PLATFORM), m);
        assertTrue(m.contains("Build libkpc for this platform"), m);
        assertTrue(m.contains("-Dorg.kpc.library.path=<directory holding " + NativeLoader.jniFileNames().get(0)), m);
    }

    @Test
    void overrideWithoutTheLibraryFailsBeforeLoading() throws Exception {
        Path empty = Files.createTempDirectory("kpc-java-empty");
        try {
            UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                    () -> NativeLoader.loadFromDirectory(empty.toString()));
            assertTrue(e.getMessage().contains("-Dorg.kpc.library.path=" + empty + ": no "
                    + NativeLoader.jniFileNames().get(0)), e.getMessage());
            assertTrue(e.getMessage().contains("remove it to use the libraries inside kpc.jar"), e.getMessage());

            Path missing = empty.resolve("missing");
            e = assertThrows(UnsatisfiedLinkError.class, () -> NativeLoader.loadFromDirectory(missing.toString()));
            assertTrue(e.getMessage().contains(missing + ": no such directory."), e.getMessage());
        } finally {
            Files.deleteIfExists(empty);
        }
    }

    @Test
    void indexHoldsPlainFileNamesInOrder() {
        assertEquals(List.of("libkpc.so.0", "libkpc_java.so"),
                NativeLoader.parseIndex("# comment\nlibkpc.so.0\r\n\n  libkpc_java.so  \n", "index"));
        for (String bad : new String[] {"../libkpc.so.0", "sub/libkpc.so", "/abs/libkpc.so", ".hidden", "a b"}) {
            UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class,
                    () -> NativeLoader.parseIndex("libkpc.so.0\n" + bad + "\n", "index"), bad);
            assertTrue(e.getMessage().contains("kpc.jar is damaged"), e.getMessage());
        }
        assertThrows(UnsatisfiedLinkError.class, () -> NativeLoader.parseIndex("# nothing\n\n", "index"));
    }
}
