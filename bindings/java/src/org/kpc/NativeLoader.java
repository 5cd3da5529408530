package org.kpc;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Loads the JNI library ({@code libkpc_java.so}) and libkpc's shared library once per class
 * loader; called by the static initializer of the generated JNI class, so nothing else in
 * the binding has to think about it. In this order:
 *
 * <ol>
 *   <li>{@code -Dorg.kpc.library.path=<dir>}: {@link System#load} of the JNI library in that
 *       directory; its RPATH ({@code $ORIGIN} when installed) or {@code LD_LIBRARY_PATH}
 *       finds libkpc. Nothing else is tried when the property is set.
 *   <li>A JNI library on {@code java.library.path} (the JVM's default directories count):
 *       {@link System#loadLibrary}, as before this loader existed.
 *   <li>The copies inside kpc.jar under {@code org/kpc/native/<os>-<arch>/}: the build puts
 *       the libraries of the platform it ran on there, with {@code libraries.txt} listing
 *       them in load order (libkpc first, then the JNI library). They are copied into a new
 *       directory made by {@link Files#createTempDirectory} under {@code java.io.tmpdir},
 *       readable by the owner only, and loaded by absolute path. libkpc is loaded first, so
 *       the JNI library's dependency on its SONAME is already satisfied (its RPATH is
 *       {@code $ORIGIN} too). On Linux the files are deleted as soon as they are loaded
 *       (the mappings stay valid), so nothing is left behind even if the JVM is killed;
 *       elsewhere they are deleted when the JVM exits ({@link File#deleteOnExit}).
 * </ol>
 *
 * <p>Every failure is an {@link UnsatisfiedLinkError} saying what was tried and what to do.
 *
 * <p>Thread-safe: {@link #load()} is synchronized and does its work once. Package-private:
 * the tests in package {@code org.kpc} call the helpers directly.
 */
final class NativeLoader {
    /** System property naming the directory that holds the JNI library (an explicit override). */
    static final String PATH_PROPERTY = "org.kpc.library.path";
    /** Library name for {@link System#loadLibrary}: libkpc_java.so, libkpc_java.dylib. */
    static final String JNI_LIBRARY = "kpc_java";
    /** Where the build puts each platform's libraries in the jar: {@code <dir><platform>/}. */
    static final String RESOURCE_DIR = "org/kpc/native/";
    /** Per platform: the library file names, one per line, in load order. */
    static final String INDEX = "libraries.txt";
    /** In {@link #RESOURCE_DIR}: the platforms this jar carries, one per line. */
    static final String PLATFORMS = "platforms.txt";

    /** How the libraries were found. */
    enum Source {
        /** {@code -Dorg.kpc.library.path}. */
        PROPERTY,
        /** {@code java.library.path} through {@link System#loadLibrary}. */
        LIBRARY_PATH,
        /** Extracted from kpc.jar. */
        JAR
    }

    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9_+-][A-Za-z0-9._+-]*");

    // Guarded by NativeLoader.class.
    private static Source source;
    private static String location;

    private NativeLoader() {}

    /**
     * Loads the native libraries unless this class loader already has them.
     *
     * @throws UnsatisfiedLinkError when no strategy works; the message names what was tried
     */
    static synchronized void load() {
        if (source != null) {
            return;
        }
        String override = System.getProperty(PATH_PROPERTY);
        if (override != null && !override.isEmpty()) {
            location = loadFromDirectory(override);
            source = Source.PROPERTY;
            return;
        }
        Path onPath = findOnLibraryPath();
        if (onPath != null) {
            try {
                System.loadLibrary(JNI_LIBRARY);
            } catch (UnsatisfiedLinkError e) {
                throw linkError("org.kpc: found " + onPath + " on java.library.path but cannot load it: "
                        + e.getMessage() + ". libkpc's shared library must be where its RPATH points (next to it"
                        + " when installed) or on LD_LIBRARY_PATH. Or take " + onPath.getParent()
                        + " off java.library.path to use the libraries inside kpc.jar.", e);
            }
            location = onPath.toString();
            source = Source.LIBRARY_PATH;
            return;
        }
        location = loadFromJar(platform(System.getProperty("os.name", ""), System.getProperty("os.arch", "")));
        source = Source.JAR;
    }

    /** How the libraries were loaded, or null before {@link #load()} succeeded. */
    static synchronized Source source() {
        return source;
    }

    /** The JNI library that was loaded (for a jar: the extracted path, maybe deleted since). */
    static synchronized String location() {
        return location;
    }

    /**
     * The platform directory name for a JVM's {@code os.name} and {@code os.arch}, normalized
     * as bindings/java/CMakeLists.txt does for the build's CMAKE_SYSTEM_NAME and
     * CMAKE_SYSTEM_PROCESSOR: "linux-x86_64", "linux-aarch64", "macos-aarch64", ...
     */
    static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT).trim();
        if (os.startsWith("linux")) {
            os = "linux";
        } else if (os.startsWith("mac") || os.startsWith("darwin")) {
            os = "macos";
        } else {
            os = os.split("[^a-z0-9]+", 2)[0]; // "windows 11" -> "windows", "freebsd"
        }
        String arch = osArch.toLowerCase(Locale.ROOT).trim();
        switch (arch) {
            case "amd64":
            case "x86_64":
            case "x64":
                arch = "x86_64";
                break;
            case "aarch64":
            case "arm64":
                arch = "aarch64";
                break;
            case "x86":
            case "i386":
            case "i486":
            case "i586":
            case "i686":
                arch = "x86";
                break;
            default:
                if (arch.equals("arm") || arch.startsWith("armv")) {
                    arch = "arm";
                } else {
                    arch = arch.replaceAll("[^a-z0-9_]", "");
                }
        }
        return os + "-" + arch;
    }

    /** File names a JNI library called {@link #JNI_LIBRARY} may have on this OS. */
    static List<String> jniFileNames() {
        List<String> names = new ArrayList<>();
        names.add(System.mapLibraryName(JNI_LIBRARY));
        if (names.get(0).endsWith(".dylib")) {
            names.add("lib" + JNI_LIBRARY + ".jnilib"); // what CMake's UseSWIG names it on macOS
        }
        return names;
    }

    /** Loads the JNI library from {@code -Dorg.kpc.library.path}; returns its path. */
    static String loadFromDirectory(String value) {
        List<String> names = jniFileNames();
        String fix = " Point -D" + PATH_PROPERTY + " at the directory holding " + String.join(" or ", names)
                + " (<build>/bindings/java, or <prefix>/lib of an installation), or remove it to use the"
                + " libraries inside kpc.jar.";
        Path dir;
        try {
            dir = Paths.get(value);
        } catch (InvalidPathException e) {
            throw linkError("org.kpc: -D" + PATH_PROPERTY + "=" + value + " is not a valid path (" + e.getMessage()
                    + ")." + fix, e);
        }
        Path jni = null;
        for (String name : names) {
            Path candidate = dir.resolve(name);
            if (Files.isRegularFile(candidate)) {
                jni = candidate.toAbsolutePath();
                break;
            }
        }
        if (jni == null) {
            throw linkError("org.kpc: -D" + PATH_PROPERTY + "=" + value + ": "
                    + (Files.isDirectory(dir) ? "no " + String.join(" or ", names) + " in that directory."
                                              : "no such directory.")
                    + fix, null);
        }
        try {
            System.load(jni.toString());
        } catch (UnsatisfiedLinkError e) {
            throw linkError("org.kpc: cannot load " + jni + " (from -D" + PATH_PROPERTY + "): " + e.getMessage()
                    + ". libkpc's shared library must be next to it (its RPATH is $ORIGIN when installed) or on"
                    + " LD_LIBRARY_PATH.", e);
        }
        return jni.toString();
    }

    /** The JNI library's file in a {@code java.library.path} directory, or null. */
    private static Path findOnLibraryPath() {
        String path = System.getProperty("java.library.path", "");
        for (String entry : path.split(Pattern.quote(File.pathSeparator))) {
            for (String name : jniFileNames()) {
                try {
                    // An empty entry is the working directory for System.loadLibrary too.
                    Path candidate = Paths.get(entry.isEmpty() ? "." : entry, name);
                    if (Files.isRegularFile(candidate)) {
                        return candidate.toAbsolutePath();
                    }
                } catch (InvalidPathException e) {
                    // not a usable directory: System.loadLibrary would skip it as well
                }
            }
        }
        return null;
    }

    /** Extracts and loads the jar's libraries for {@code platform}; returns the JNI library's path. */
    private static String loadFromJar(String platform) {
        List<Path> files = extract(platform);
        Path dir = files.get(0).getParent();
        boolean ok = false;
        try {
            for (Path file : files) {
                try {
                    System.load(file.toString());
                } catch (UnsatisfiedLinkError e) {
                    throw linkError("org.kpc: cannot load " + file.getFileName() + " extracted from kpc.jar ("
                            + platform + ") into " + dir + ": " + e.getMessage() + ". libkpc's own dependencies"
                            + " (the C++ runtime, libpfm4 if libkpc was built with it) must be installed; if "
                            + dir.getParent() + " is mounted noexec, start java with -Djava.io.tmpdir=<another"
                            + " directory>; or pass -D" + PATH_PROPERTY + "=<directory holding "
                            + jniFileNames().get(0) + ">.", e);
                }
            }
            ok = true;
        } finally {
            if (!ok || platform.startsWith("linux-")) {
                // Linux keeps a loaded library mapped after its file is unlinked.
                delete(files, dir);
            } else {
                dir.toFile().deleteOnExit(); // registered first, so deleted after the files
                for (Path file : files) {
                    file.toFile().deleteOnExit();
                }
            }
        }
        return files.get(files.size() - 1).toString();
    }

    /**
     * Copies the jar's libraries for {@code platform} into a new directory that only the
     * current user can read (mode 0700, files 0600 where the file system has POSIX
     * permissions). Loads nothing.
     *
     * @return the extracted files in load order, all in one new directory
     * @throws UnsatisfiedLinkError when the jar has no libraries for {@code platform}, its
     *     index is damaged, or the files cannot be written
     */
    static List<Path> extract(String platform) {
        String base = RESOURCE_DIR + platform + "/";
        String index = readResource(base + INDEX);
        if (index == null) {
            throw linkError(missingPlatformMessage(platform), null);
        }
        List<String> names = parseIndex(index, base + INDEX);
        Path dir;
        try {
            dir = createPrivateDirectory().toAbsolutePath(); // System.load wants absolute paths
        } catch (IOException | RuntimeException e) {
            throw linkError("org.kpc: cannot create a directory for the native libraries in "
                    + System.getProperty("java.io.tmpdir") + " (" + e + "). Start java with"
                    + " -Djava.io.tmpdir=<a writable directory>, or pass -D" + PATH_PROPERTY
                    + "=<directory holding " + jniFileNames().get(0) + ">.", e);
        }
        List<Path> files = new ArrayList<>();
        try {
            for (String name : names) {
                Path file = dir.resolve(name);
                try (InputStream in = NativeLoader.class.getResourceAsStream("/" + base + name)) {
                    if (in == null) {
                        throw linkError("org.kpc: kpc.jar is damaged: " + base + INDEX + " lists " + name
                                + " but the jar has no " + base + name + ". Rebuild kpc.jar.", null);
                    }
                    files.add(file);
                    try (OutputStream out = newPrivateFile(file)) {
                        in.transferTo(out);
                    }
                }
            }
        } catch (IOException e) {
            delete(files, dir);
            throw linkError("org.kpc: cannot extract the native libraries from kpc.jar into " + dir + " (" + e
                    + "). Start java with -Djava.io.tmpdir=<a writable directory>, or pass -D" + PATH_PROPERTY
                    + "=<directory holding " + jniFileNames().get(0) + ">.", e);
        } catch (RuntimeException | Error e) {
            delete(files, dir);
            throw e;
        }
        return Collections.unmodifiableList(files);
    }

    /** The error for a jar without libraries for {@code platform}. */
    static String missingPlatformMessage(String platform) {
        String has = readResource(RESOURCE_DIR + PLATFORMS);
        String inJar = has == null ? "it carries none" : "it has " + String.join(", ", parseLines(has));
        return "org.kpc: no native libkpc for " + platform + " in kpc.jar (" + inJar + "; " + jarLocation()
                + "), and no " + String.join(" or ", jniFileNames()) + " on java.library.path ("
                + System.getProperty("java.library.path", "") + "). Build libkpc for this platform (its build"
                + " makes a kpc.jar that carries the libraries), or start java with -D" + PATH_PROPERTY
                + "=<directory holding " + jniFileNames().get(0) + ">.";
    }

    /**
     * The library file names of an index, in order: one per line, blank lines and lines
     * starting with '#' skipped. Names must be plain file names (no directories, no "..").
     *
     * @throws UnsatisfiedLinkError for an empty index or an unsafe name
     */
    static List<String> parseIndex(String text, String what) {
        List<String> names = parseLines(text);
        if (names.isEmpty()) {
            throw linkError("org.kpc: kpc.jar is damaged: " + what + " lists no library. Rebuild kpc.jar.", null);
        }
        for (String name : names) {
            if (!SAFE_NAME.matcher(name).matches()) {
                throw linkError("org.kpc: kpc.jar is damaged: " + what + " lists '" + name
                        + "', which is not a plain file name. Rebuild kpc.jar.", null);
            }
        }
        return names;
    }

    private static List<String> parseLines(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\r?\n")) {
            String trimmed = line.trim();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                lines.add(trimmed);
            }
        }
        return lines;
    }

    /** A resource of this jar as UTF-8 text, or null if it does not exist or cannot be read. */
    private static String readResource(String name) {
        try (InputStream in = NativeLoader.class.getResourceAsStream("/" + name)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    private static String jarLocation() {
        try {
            return String.valueOf(NativeLoader.class.getProtectionDomain().getCodeSource().getLocation());
        } catch (RuntimeException e) { // no code source, or a security manager said no
            return "location unknown";
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /** A new directory under java.io.tmpdir that only the owner can enter. */
    private static Path createPrivateDirectory() throws IOException {
        if (posix()) {
            Path dir = Files.createTempDirectory("kpc-native-", PosixFilePermissions.asFileAttribute(OWNER_DIR));
            // mkdir applied the umask, which can only have removed bits; make it exactly 0700.
            Files.setPosixFilePermissions(dir, OWNER_DIR);
            return dir;
        }
        Path dir = Files.createTempDirectory("kpc-native-");
        File f = dir.toFile();
        boolean ok = f.setReadable(false, false) & f.setReadable(true, true)
                & f.setWritable(false, false) & f.setWritable(true, true)
                & f.setExecutable(false, false) & f.setExecutable(true, true);
        if (!ok) {
            Files.deleteIfExists(dir);
            throw new IOException("cannot make " + dir + " private to its owner");
        }
        return dir;
    }

    /** Creates {@code file} (which must not exist) for writing, readable by the owner only. */
    private static OutputStream newPrivateFile(Path file) throws IOException {
        Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        FileAttribute<?>[] attributes = posix()
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_FILE)}
                : new FileAttribute<?>[0];
        return Channels.newOutputStream(Files.newByteChannel(file, options, attributes));
    }

    /** Deletes the extracted files and their directory, ignoring failures. */
    static void delete(List<Path> files, Path dir) {
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException | RuntimeException e) {
                file.toFile().deleteOnExit();
            }
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException | RuntimeException e) {
            dir.toFile().deleteOnExit();
        }
    }

    private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError(message);
        if (cause != null) {
            error.initCause(cause);
        }
        return error;
    }
}
