#!/bin/sh
# The emulated-PMU stage (issue 17 section 2; tests/pmu/README.md): cross-builds libkpc,
# kpc and the tests for aarch64, boots Debian's arm64 kernel under QEMU with -icount (an
# ARMv8 PMU whose counts are exact), runs tests/pmu's programs and check scripts plus the
# hardware tests that skip on x86, and prints "pmu-guest: N passed, N failed[, N skipped]".
# Fails loudly when it cannot run: no QEMU, no kernel, no boot.
#
# usage: scripts/ci/pmu-guest.sh [BUILD_DIR]
#   BUILD_DIR (or $KPC_PMU_BUILD_DIR): default build-pmu in the source tree; the downloaded
#   kernel and busybox are cached in BUILD_DIR/guest-cache.
#   KPC_PMU_ICOUNT_SHIFT (default 1), KPC_PMU_SMP vCPUs (default 1: exact counts), KPC_PMU_GUEST_TIMEOUT seconds (default 900),
#   KPC_PMU_NO_INSTALL=1: never apt-get install, fail if something is missing.
# $missing is a list of package names, split on purpose; the cache holds plain file names.
# shellcheck disable=SC2086,SC2012
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${KPC_PMU_BUILD_DIR:-$ROOT/build-pmu}}
mkdir -p "$BUILD" && BUILD=$(cd "$BUILD" && pwd)  # absolute: Go and the guest image need it
SHIFT=${KPC_PMU_ICOUNT_SHIFT:-1}
# One vCPU: with two, the same static loop counted 20,032,385 to 20,161,523 user instructions
# from run to run (QEMU's icount runs the vCPUs in turns); with one, 20,015,716 every time.
SMP=${KPC_PMU_SMP:-1}
TIMEOUT=${KPC_PMU_GUEST_TIMEOUT:-900}
CACHE=$BUILD/guest-cache
SYSROOT=/usr/aarch64-linux-gnu

die() { echo "pmu-guest: FAILED: $*" >&2; echo "pmu-guest: 0 passed, 1 failed (the stage could not run)"; exit 1; }
now() { date +%s; }

# --- What the host needs -------------------------------------------------------------
# rustc and cargo: Debian's (1.63), whose arm64 standard library Debian ships too
# (libstd-rust-dev:arm64, fetched below); a rustup toolchain has no arm64 std offline.
PACKAGES="qemu-system-arm qemu-user cpio g++-aarch64-linux-gnu libgtest-dev:arm64 libgmock-dev:arm64 golang-go pkg-config
  rustc cargo librust-libc-dev openjdk-17-jdk-headless swig junit5"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    [ "$(id -u)" = 0 ] || die "arm64 multiarch is not enabled: run 'dpkg --add-architecture arm64 && apt-get update' as root"
    dpkg --add-architecture arm64
    apt-get update -q || die "apt-get update failed after adding arm64"
fi
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ] || [ "${KPC_PMU_NO_INSTALL:-0}" = 1 ]; then
        die "missing packages:$missing (apt-get install$missing)"
    fi
    echo "pmu-guest: installing$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null; } ||
        die "apt-get install$missing failed"
fi
for tool in qemu-system-aarch64 cpio aarch64-linux-gnu-g++ aarch64-linux-gnu-readelf aarch64-linux-gnu-strip dpkg-deb cmake timeout go pkg-config \
    /usr/bin/rustc /usr/bin/cargo swig javac jlink jmod jimage qemu-aarch64; do
    command -v "$tool" >/dev/null || die "$tool not found"
done

# --- Kernel and busybox from Debian's arm64 archive, cached -------------------------------
mkdir -p "$CACHE"
fetch() {  # fetch PACKAGE: download once into the cache, unpack into CACHE/PACKAGE-name
    deb=$(ls "$CACHE"/"${1%%:*}"_*.deb 2>/dev/null | head -n 1)
    if [ -z "$deb" ]; then
        (cd "$CACHE" && apt-get download -q "$1" >/dev/null 2>&1) ||
            (apt-get update -q >/dev/null && cd "$CACHE" && apt-get download -q "$1") ||
            die "apt-get download $1 failed (is arm64 in 'dpkg --print-foreign-architectures'?)"
        deb=$(ls "$CACHE"/"${1%%:*}"_*.deb | head -n 1)
    fi
    dir=$CACHE/unpacked/${1%%:*}
    [ -d "$dir" ] || { mkdir -p "$dir.tmp" && dpkg-deb -x "$deb" "$dir.tmp" && mv "$dir.tmp" "$dir"; } ||
        die "cannot unpack $deb"
}
KPKG=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$KPKG" ] || die "cannot tell which kernel linux-image-arm64:arm64 depends on (apt-get update?)"
fetch "$KPKG"
fetch busybox-static:arm64
KERNEL=$(ls "$CACHE"/unpacked/"${KPKG%%:*}"/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$KERNEL" ] || die "no vmlinuz in $KPKG"
BUSYBOX=$CACHE/unpacked/busybox-static/bin/busybox
[ -x "$BUSYBOX" ] || die "no busybox in busybox-static:arm64"
# The second reference: Debian's arm64 perf and the libraries it links (its NEEDED closure).
PERF_PKGS="linux-perf libbabeltrace1 libcap2 libdw1 libelf1 liblzma5 libnuma1 libopencsd1 libperl5.36
  libpython3.11 libslang2 libunwind8 libzstd1 zlib1g libglib2.0-0 libuuid1 libbz2-1.0 libcrypt1 libexpat1
  libpcre2-8-0 libffi8 libmount1 libblkid1 libselinux1"
for p in $PERF_PKGS; do fetch "$p:arm64"; done
PERF=$CACHE/unpacked/linux-perf/usr/bin/perf
[ -x "$PERF" ] || die "no perf in linux-perf:arm64"
# Rust's arm64 standard library, of the same version as Debian's rustc (a std of another
# version does not load): rustc finds it with --sysroot.
RUSTV=$(dpkg-query -W -f='${Version}' rustc) || die "Debian's rustc is not installed (apt-get install rustc cargo)"
fetch "libstd-rust-dev:arm64=$RUSTV"
RUST_SYSROOT=$CACHE/unpacked/libstd-rust-dev/usr
[ "$(dpkg-deb -f "$(ls "$CACHE"/libstd-rust-dev_*.deb | head -n 1)" Version)" = "$RUSTV" ] ||
    die "the cached libstd-rust-dev:arm64 is not rustc's version $RUSTV: remove $CACHE/libstd-rust-dev_* and $CACHE/unpacked/libstd-rust-dev"
ls "$RUST_SYSROOT"/lib/rustlib/aarch64-unknown-linux-gnu/lib/libstd-*.rlib >/dev/null 2>&1 ||
    die "no arm64 libstd rlib in libstd-rust-dev:arm64"
# Python for the Python binding's hardware test: Debian's arm64 python3.11 (ctypes needs
# libffi8, fetched above) and pytest with what it imports (architecture "all": pure Python).
PY_PKGS="python3.11-minimal:arm64 libpython3.11-minimal:arm64 libpython3.11-stdlib:arm64
  python3-pytest python3-pluggy python3-iniconfig python3-packaging python3-attr python3-py"
for p in $PY_PKGS; do fetch "$p"; done
GUEST_PY=$CACHE/unpacked/python3.11-minimal/usr/bin/python3.11
[ -x "$GUEST_PY" ] || die "no python3.11 in python3.11-minimal:arm64"
# Byte-compiled once on the host (the same 3.11 bytecode; unchecked: no source timestamps
# compared): compiling the stdlib and pytest at every import costs minutes under emulation.
if [ ! -e "$CACHE/unpacked/python-compiled" ]; then
    [ -x /usr/bin/python3.11 ] || die "Debian's python3.11 not found on the host (apt-get install python3.11)"
    for p in $PY_PKGS; do
        d=$CACHE/unpacked/${p%%:*}/usr/lib
        [ -d "$d" ] || continue
        /usr/bin/python3.11 -m compileall -q -j 2 --invalidation-mode unchecked-hash -x '/(test|idlelib|tkinter|lib2to3)/' "$d" \
            >/dev/null || die "/usr/bin/python3.11 -m compileall $d failed"
    done
    touch "$CACHE/unpacked/python-compiled"
fi

# Java for the Java binding's hardware test (tests/pmu/guest/java_hardware.sh): Debian's
# arm64 JRE cut down to the modules the binding and JUnit load (java.management: the tests
# burn CPU time read from a ThreadMXBean). Debian ships no arm64 jmods,
# so the host's jlink links the JRE's own classes (extracted from its jimage and repacked as
# jmods; java.base's module hashes recomputed), and the JRE's native files are copied beside.
# The whole JRE is 186 MB; this one is 53 MB. Its class-data-sharing archive is dumped once
# under qemu-user: without it the JVM ran the test a third slower there (9.8 s, not 6.8 s).
JUNIT_JAR=/usr/share/java/junit-platform-console-standalone.jar
[ -f "$JUNIT_JAR" ] || die "no $JUNIT_JAR (apt-get install junit5)"
fetch openjdk-17-jre-headless:arm64
GUEST_JRE=$CACHE/java-jre
if [ ! -x "$GUEST_JRE/bin/java" ]; then
    src=$CACHE/unpacked/openjdk-17-jre-headless
    jdk=$src/usr/lib/jvm/java-17-openjdk-arm64
    etc=$src/etc/java-17-openjdk
    w=$CACHE/java-jre.tmp
    rm -rf "$w"
    mkdir -p "$w/jmods" "$w/jre/bin" "$w/jre/lib/server" "$w/jre/conf/security"
    jimage extract --dir "$w/classes" "$jdk/lib/modules" || die "jimage extract $jdk/lib/modules failed"
    for m in java.logging java.management; do
        jmod create --class-path "$w/classes/$m" "$w/jmods/$m.jmod" || die "jmod create of the arm64 $m failed"
    done
    jmod create --class-path "$w/classes/java.base" --module-path "$w/jmods" --hash-modules 'java\.(logging|management)' \
        "$w/jmods/java.base.jmod" || die "jmod create of the arm64 java.base failed"
    # generate-jli-classes: the extracted java.base already holds the classes it would add.
    jlink --module-path "$w/jmods" --add-modules java.base,java.logging,java.management --strip-debug \
        --disable-plugin generate-jli-classes --output "$w/image" || die "jlink of the arm64 JRE's modules failed"
    # The JVM, java.base's native libraries and the configuration it reads at start-up.
    cpj() { cp "$1" "$w/jre/$2" || die "copying $1 into the guest's JRE failed"; }
    cpj "$w/image/lib/modules" lib/ && cpj "$w/image/release" . && cpj "$jdk/bin/java" bin/
    cpj "$etc/jvm-arm64.cfg" lib/jvm.cfg
    # Without its symbol table (4 MB): the dynamic symbols stay.
    aarch64-linux-gnu-strip --strip-unneeded -o "$w/jre/lib/server/libjvm.so" "$jdk/lib/server/libjvm.so" ||
        die "strip of the arm64 libjvm.so failed"
    cpj "$etc/logging.properties" conf/ && cpj "$etc/net.properties" conf/
    cpj "$etc/security/java.security" conf/security/
    for f in classlist tzdb.dat jspawnhelper libjava.so libjimage.so libjli.so libjsig.so libnet.so libnio.so \
        libverify.so libzip.so libsyslookup.so libmanagement.so; do
        cp "$jdk/lib/$f" "$w/jre/lib/" || die "no lib/$f in openjdk-17-jre-headless:arm64"
    done
    QEMU_SET_ENV=LD_LIBRARY_PATH=$CACHE/unpacked/zlib1g/lib/aarch64-linux-gnu qemu-aarch64 -L "$SYSROOT" \
        "$w/jre/bin/java" -Xshare:dump >/dev/null || die "dumping the arm64 JRE's CDS archive under qemu-aarch64 failed"
    [ -s "$w/jre/lib/server/classes.jsa" ] || die "no CDS archive in $w/jre/lib/server"
    mv "$w/jre" "$GUEST_JRE" && rm -rf "$w"
fi

# --- Cross-build only what the guest runs --------------------------------------------------
t0=$(now)
# The same configuration as scripts/ci/aarch64-suite.sh, so that scripts/test.sh can hand
# both the same build directory and the guest's programs are not compiled twice.
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPC_WERROR=ON -DKPC_BUILD_TESTS=ON -DKPC_BUILD_BINDINGS=OFF \
    -DKPC_BUILD_BENCH=OFF -DKPC_WITH_LIBPFM=OFF -DKPC_INSTALL=OFF >/dev/null || die "cmake configure of $BUILD failed"
# perf_event_kernel_test holds the hardware tests that skip on x86 ("no hardware counters").
GTESTS="perf_event_kernel_test"
cmake --build "$BUILD" -j2 --target kpc_cli pmu_guest_programs kpc_test_pmu_probe $GTESTS >/dev/null ||
    die "cross-build failed (run: cmake --build $BUILD --target kpc_cli pmu_guest_programs kpc_test_pmu_probe $GTESTS)"
# The Go binding's tests, cross-built with cgo against this libkpc: its hardware test skips
# on a machine without a PMU and must count here (tests/pmu/guest/go_hardware.sh).
mkdir -p "$BUILD/go-pkgconfig"
printf 'Name: kpc\nDescription: libkpc cross-built for arm64\nVersion: 0\nCflags: -I%s/include\nLibs: -L%s/src -lkpc\n' \
    "$ROOT" "$BUILD" > "$BUILD/go-pkgconfig/kpc.pc"
(cd "$ROOT/bindings/go" && CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
    PKG_CONFIG_PATH="$BUILD/go-pkgconfig" PKG_CONFIG_LIBDIR="$BUILD/go-pkgconfig" \
    GOCACHE="$BUILD/go-cache" GOPATH="$BUILD/go-path" GOPROXY=off GOFLAGS=-mod=mod \
    go test -c -o "$BUILD/kpc_go_arm64.test" .) ||
    die "cross-building the Go binding's tests failed (see above)"
# The Rust binding's hardware test, likewise (tests/pmu/guest/rust_hardware.sh): Debian's
# rustc with the arm64 std as its sysroot (for the test only: build scripts run on the host),
# linked by the cross gcc against this libkpc.
RUST_TEST=$(cd "$ROOT/bindings/rust" && KPC_LIB_DIR="$BUILD/src" CARGO_TARGET_DIR="$BUILD/rust-target" \
    RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc CARGO_INCREMENTAL=0 \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="--sysroot=$RUST_SYSROOT" \
    /usr/bin/cargo test --offline --locked -p kpc --test hardware --no-run \
    --target aarch64-unknown-linux-gnu --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "${RUST_TEST:-}" ] || die "cross-building the Rust binding's hardware test failed (see above)"
# The Java binding's classes and tests (architecture-independent: compiled here) and its JNI
# library, cross-compiled from the same SWIG wrapper bindings/java/CMakeLists.txt generates
# (the command in bindings/swig/java/kpc_java.i); the host JDK's jni.h is arm64's too.
JAVA_OUT=$BUILD/java-guest
rm -rf "$JAVA_OUT"
mkdir -p "$JAVA_OUT/gen/org/kpc" "$JAVA_OUT/classes"
JDK_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
swig -java -package org.kpc -I"$ROOT/include" -outdir "$JAVA_OUT/gen/org/kpc" -o "$JAVA_OUT/kpc_java_wrap.c" \
    "$ROOT/bindings/swig/java/kpc_java.i" || die "swig of bindings/swig/java/kpc_java.i failed"
javac --release 17 -encoding UTF-8 -nowarn -d "$JAVA_OUT/classes" -cp "$JUNIT_JAR" "$JAVA_OUT"/gen/org/kpc/*.java \
    "$ROOT"/bindings/java/src/org/kpc/*.java "$ROOT"/bindings/java/tests/org/kpc/tests/*.java ||
    die "javac of the Java binding and its tests failed"
aarch64-linux-gnu-gcc -shared -fPIC -O2 -fvisibility=hidden -I"$ROOT/include" -I"$JDK_HOME/include" \
    -I"$JDK_HOME/include/linux" -o "$JAVA_OUT/libkpc_java.so" "$JAVA_OUT/kpc_java_wrap.c" -L"$BUILD/src" -lkpc \
    -Wl,--no-undefined || die "cross-compiling libkpc_java.so failed (jni.h in $JDK_HOME/include?)"
t1=$(now)
echo "pmu-guest: cross-build $((t1 - t0)) s"

# --- The initramfs -------------------------------------------------------------------------
GROOT=$BUILD/guest-root
rm -rf "$GROOT"
mkdir -p "$GROOT/bin" "$GROOT/lib" "$GROOT/pmu/bin" "$GROOT/pmu/lib" "$GROOT/pmu/tests" "$GROOT/pmu/checks" \
    "$GROOT/proc" "$GROOT/sys" "$GROOT/dev" "$GROOT/tmp"
cp "$BUSYBOX" "$GROOT/bin/busybox"
ln -s busybox "$GROOT/bin/sh"  # /init's interpreter, before busybox --install
cp "$ROOT/scripts/ci/pmu-guest/init.sh" "$GROOT/init"
chmod 755 "$GROOT/init"
cp "$BUILD/src/cli/kpc" "$GROOT/pmu/bin/"
cp -P "$BUILD"/src/libkpc.so* "$GROOT/pmu/lib/"
cp "$BUILD/tests/pmu/pmu_workload" "$GROOT/pmu/tests/"
for t in "$BUILD"/tests/pmu/pmu_*_test "$BUILD/tests/perf_event/perf_event_kernel_test"; do
    [ -x "$t" ] && cp "$t" "$GROOT/pmu/tests/"
done
ls "$ROOT"/tests/pmu/guest/*.sh >/dev/null 2>&1 && cp "$ROOT"/tests/pmu/guest/*.sh "$GROOT/pmu/checks/"
cp -R "$ROOT/tests/pmu/guest/lib" "$GROOT/pmu/checks/lib"  # sourced by checks, not run
# The workload also sits in /pmu/bin for the check scripts, with perf.
cp "$BUILD/tests/pmu/pmu_workload" "$GROOT/pmu/bin/"
cp "$PERF" "$GROOT/pmu/bin/perf"
cp "$BUILD/kpc_go_arm64.test" "$GROOT/pmu/bin/kpc_go.test"
cp "$BUILD/tests/pmu/pmu_sample_cost" "$GROOT/pmu/bin/"  # tests/pmu/guest/sample_cost.sh
# Java (tests/pmu/guest/java_hardware.sh): the JRE (cp -a: its CDS archive is checked against
# the files' sizes and times), the classes, JUnit, the JNI library and the PMU probe.
mkdir -p "$GROOT/pmu/java"
cp -a "$GUEST_JRE" "$GROOT/pmu/java/jre"
cp -R "$JAVA_OUT/classes" "$GROOT/pmu/java/classes"
cp "$JUNIT_JAR" "$GROOT/pmu/java/junit.jar"
cp "$JAVA_OUT/libkpc_java.so" "$GROOT/pmu/lib/"
cp "$BUILD/tests/kpc_test_pmu_probe" "$GROOT/pmu/bin/" || die "no kpc_test_pmu_probe in $BUILD/tests"
# Stripped: the debug info of Rust's std is most of its 19 MB.
aarch64-linux-gnu-strip -o "$GROOT/pmu/bin/kpc_rust_hardware.test" "$RUST_TEST" || die "strip $RUST_TEST failed"
# Python in its Debian place (/usr/bin, /usr/lib/python3.11, /usr/lib/python3/dist-packages:
# the paths its site module looks in), the binding's sources and its tests in /pmu/python.
mkdir -p "$GROOT/usr/bin" "$GROOT/usr/lib" "$GROOT/pmu/python"
cp "$GUEST_PY" "$GROOT/usr/bin/python3.11"
for p in $PY_PKGS; do
    d=$CACHE/unpacked/${p%%:*}/usr/lib
    [ -d "$d" ] && cp -R "$d/." "$GROOT/usr/lib/"
done
rm -rf "$GROOT"/usr/lib/python3.11/test "$GROOT"/usr/lib/python3.11/idlelib "$GROOT"/usr/lib/python3.11/lib2to3 \
    "$GROOT"/usr/lib/python3.11/tkinter "$GROOT"/usr/lib/python3.11/ensurepip "$GROOT"/usr/lib/python3.11/pydoc_data
cp -R "$ROOT/bindings/python/src" "$ROOT/bindings/python/tests" "$GROOT/pmu/python/"
# Every shared library the programs need, found in the cross sysroot.
needed() { aarch64-linux-gnu-readelf -d "$@" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u; }
# Of Python's extension modules only _ctypes (libffi), which the binding loads libkpc with:
# the other modules' libraries (ncurses, sqlite, OpenSSL...) are left out, so importing those
# modules fails in the guest.
libs=$(needed "$GROOT"/pmu/bin/* "$GROOT"/pmu/tests/* "$GROOT"/pmu/lib/libkpc.so "$GROOT/usr/bin/python3.11" \
    "$GROOT"/usr/lib/python3.11/lib-dynload/_ctypes.*.so "$GROOT"/pmu/lib/libkpc_java.so "$GROOT"/pmu/java/jre/bin/java \
    "$GROOT"/pmu/java/jre/lib/*.so "$GROOT"/pmu/java/jre/lib/server/libjvm.so)
seen=""
while [ -n "$libs" ]; do
    next=""
    for l in $libs; do
        case " $seen " in *" $l "*) continue ;; esac
        seen="$seen $l"
        [ -e "$GROOT/pmu/lib/$l" ] && continue
        # The JRE's own libraries, found through its RUNPATH.
        [ -e "$GROOT/pmu/java/jre/lib/$l" ] || [ -e "$GROOT/pmu/java/jre/lib/server/$l" ] && continue
        src=""
        for d in "$SYSROOT/lib" /usr/lib/aarch64-linux-gnu "$CACHE"/unpacked/*/usr/lib/aarch64-linux-gnu \
            "$CACHE"/unpacked/*/lib/aarch64-linux-gnu; do
            [ -e "$d/$l" ] && { src=$d/$l; break; }
        done
        [ -n "$src" ] || die "library $l not found in $SYSROOT/lib nor in the fetched arm64 packages"
        cp -L "$src" "$GROOT/lib/$l"
        next="$next $(needed "$GROOT/lib/$l")"
    done
    libs=$next
done
cp -L "$SYSROOT/lib/ld-linux-aarch64.so.1" "$GROOT/lib/"
# Not compressed: inflating it is emulated too. With the Java runtime in (165 MB), /init
# started after 2.2 s of guest time uncompressed, 6.7 s gzipped (63 MB).
INITRD=$BUILD/guest-root.cpio
rm -f "$INITRD.gz"  # left by older versions of this script
(cd "$GROOT" && find . | cpio -o -H newc --quiet) > "$INITRD" || die "cpio failed"

# --- Boot and read the console ---------------------------------------------------------------
LOG=$BUILD/guest-console.log
echo "pmu-guest: booting $(basename "$KERNEL") with -icount shift=$SHIFT (console: $LOG)"
set +e
# sleep=off: an idle guest's clock does not follow the host's, so a busy host cannot move
# when timer interrupts land.
timeout "$TIMEOUT" qemu-system-aarch64 -M virt -cpu max -m 2048 -smp "$SMP" -nographic -net none -no-reboot \
    -icount shift="$SHIFT",sleep=off -kernel "$KERNEL" -initrd "$INITRD" \
    -append "console=ttyAMA0 quiet panic=-1 kpc_icount_shift=$SHIFT" </dev/null >"$LOG" 2>&1
qrc=$?
set -e
t2=$(now)
tr -d '\r' < "$LOG" > "$LOG.txt"
# A short second boot with 2 vCPUs for what one cannot show: a thread moved between CPUs
# while sampling from user space (bounded counts: the vCPUs take turns). Its result lines
# join the first boot's; no PMU-DONE from it is a failure.
if [ "$SMP" = 1 ] && grep -q '^PMU-DONE' "$LOG.txt"; then
    timeout "$TIMEOUT" qemu-system-aarch64 -M virt -cpu max -m 2048 -smp 2 -nographic -net none -no-reboot \
        -icount shift="$SHIFT",sleep=off -kernel "$KERNEL" -initrd "$INITRD" -append "console=ttyAMA0 quiet \
panic=-1 kpc_icount_shift=$SHIFT kpc_only=pmu_user_read_test:UserReads.AThreadMovedBetweenCpus*" \
        </dev/null 2>&1 | tr -d '\r' > "$LOG.smp2.txt"
    grep -q '^PMU-DONE' "$LOG.smp2.txt" ||
        echo "PMU-RESULT FAIL pmu_user_read_test-only: the 2-vCPU boot did not finish (console in $LOG.smp2.txt)" >> "$LOG.txt"
    grep -e '^PMU-RESULT ' -e '^\[pmu_user_read_test-only\] ' "$LOG.smp2.txt" >> "$LOG.txt" || true
    echo "pmu-guest: 2-vCPU boot $(( $(now) - t2 )) s"
fi
echo "pmu-guest: guest ran $((t2 - t1)) s (boot to first line and tests; qemu exit $qrc)"
grep '^PMU-GUEST' "$LOG.txt" || true
grep '^PMU-TIME' "$LOG.txt" || true
grep -F '[sample_cost.sh] ' "$LOG.txt" || true  # the instructions-per-sample table (docs/performance.md)
if ! grep -q '^PMU-GUEST booted' "$LOG.txt"; then
    tail -n 30 "$LOG.txt" >&2
    [ "$qrc" = 124 ] && die "the guest did not boot within ${TIMEOUT} s"
    die "the guest did not boot (qemu exit $qrc; console in $LOG)"
fi
# Each test's output for a failure, then the result lines.
awk '/^PMU-RESULT FAIL/ { p = $3; sub(/[\/:].*/, "", p); if (!seen[p]++) print p }' "$LOG.txt" | while read -r prog; do
    echo "---- output of $prog (failed) ----"
    grep -F "[$prog] " "$LOG.txt" | tail -n 80
done
grep '^PMU-RESULT ' "$LOG.txt" | sed 's/^PMU-RESULT /  /'
pass=$(grep -c '^PMU-RESULT PASS' "$LOG.txt" || true)
fail=$(grep -c '^PMU-RESULT FAIL' "$LOG.txt" || true)
skip=$(grep -c '^PMU-RESULT SKIP' "$LOG.txt" || true)
if ! grep -q '^PMU-DONE' "$LOG.txt"; then
    echo "pmu-guest: the guest stopped before running every test (qemu exit $qrc; console in $LOG)" >&2
    fail=$((fail + 1))
fi
if [ "$pass" = 0 ]; then
    echo "pmu-guest: no test passed" >&2
    fail=$((fail + 1))
fi
if [ "$skip" != 0 ]; then
    echo "pmu-guest: $pass passed, $fail failed, $skip skipped"
else
    echo "pmu-guest: $pass passed, $fail failed"
fi
[ "$fail" = 0 ]
