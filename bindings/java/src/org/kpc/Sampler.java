package org.kpc;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A counting session ({@code kp_sampler_t}): loads a backend, identifies the CPU, holds the
 * event database and, on Apple, the hardware counters. Create one per process and make
 * {@link Counters} from it, one per thread that counts.
 *
 * <pre>{@code
 * try (Sampler sampler = new Sampler();
 *      Counters counters = sampler.counters("task-clock", "page-faults")) {
 *     counters.start();
 *     long[] before = counters.sample();
 *     work();
 *     long[] after = counters.sample();
 * }
 * }</pre>
 *
 * <p><b>Ownership.</b> The Sampler owns its native handle and frees it in {@link #close()}.
 * Counters made from it keep the native session alive on their own, so a Sampler may be
 * closed before its Counters, which keep counting. A Sampler that is never closed is freed
 * by a {@link Cleaner} after it becomes unreachable; do not rely on that.
 *
 * <p><b>Threads.</b> Every method may be called from any thread. Calls on one Sampler are
 * serialized by a lock, and {@link #close()} waits for a call in progress.
 *
 * <p><b>Errors.</b> Methods throw {@link KpcException} when libkpc fails (the status and
 * message are listed per method) and {@link IllegalStateException} once the Sampler is
 * closed: no native call is made on a freed handle.
 */
public final class Sampler implements AutoCloseable {
    private final NativeSampler handle; // also the lock for closed and every native call
    private final Cleaner.Cleanable cleanable;
    private boolean closed;

    /**
     * Opens a session with the automatic backend: {@code KPC_BACKEND} if set, else the
     * platform's own (perf_event on Linux, kperf on macOS). Same as
     * {@code new Sampler(Backend.AUTO, null, null)}.
     *
     * @throws KpcException {@link Status#EINVAL} (bad {@code KPC_BACKEND}),
     *     {@link Status#EUNSUPPORTED} (backend not built here), {@link Status#ELOAD},
     *     {@link Status#ELAYOUT}, {@link Status#EFRAMEWORK} (Apple frameworks),
     *     {@link Status#ENOMEM}. Missing permission does not fail here; see {@link #access()}.
     */
    public Sampler() {
        this(Backend.AUTO, null, null);
    }

    /**
     * Opens a session with explicit options (built in C with {@code kp_sampler_options_init}).
     *
     * @param backend the backend, or null for {@link Backend#AUTO}
     * @param kperfPath path of Apple's kperf framework binary, or null for
     *     {@code KPC_KPERF_PATH}, then the system path (only the kperf backend uses it)
     * @param kperfdataPath path of the kperfdata framework binary, or null for
     *     {@code KPC_KPERFDATA_PATH}, then the system path
     * @throws KpcException as {@link #Sampler()}; {@link Status#ELOAD} names a missing path
     */
    public Sampler(Backend backend, String kperfPath, String kperfdataPath) {
        int code = (backend == null ? Backend.AUTO : backend).code();
        NativeSampler h = new NativeSampler(code, kperfPath, kperfdataPath);
        this.handle = h;
        this.cleanable = Cleanup.CLEANER.register(this, h::delete);
    }

    private NativeSampler open() {
        if (closed) {
            throw new IllegalStateException("this Sampler is closed");
        }
        return handle;
    }

    /** The backend in use (never {@link Backend#AUTO}). */
    public Backend backend() {
        synchronized (handle) {
            return Backend.fromCode(KpcNative.kp_sampler_backend(open()));
        }
    }

    /** Backend name: "kperf", "perf_event" or "recount". */
    public String backendName() {
        synchronized (handle) {
            return KpcNative.kp_sampler_backend_name(open());
        }
    }

    /**
     * Why this session uses its backend ({@code kp_sampler_backend_reason}), e.g. "named by
     * KPC_BACKEND" or, on macOS, why recount was chosen instead of kperf.
     */
    public String backendReason() {
        synchronized (handle) {
            return KpcNative.kp_sampler_backend_reason(open());
        }
    }

    /**
     * Machine-readable CPU / event-database identifier: the kpep database name on Apple
     * ("a14", ...), "&lt;vendor&gt;-&lt;family&gt;-&lt;model&gt;" on Linux.
     */
    public String cpuId() {
        synchronized (handle) {
            return KpcNative.kp_sampler_cpu_id(open());
        }
    }

    /** Human CPU name: "Apple M1", or the model name from /proc/cpuinfo. */
    public String cpuName() {
        synchronized (handle) {
            return KpcNative.kp_sampler_cpu_name(open());
        }
    }

    /** PMU description, e.g. "Apple PMU (a14, M1 generation)", "cpu", or "none" without a usable PMU. */
    public String pmuName() {
        synchronized (handle) {
            return KpcNative.kp_sampler_pmu_name(open());
        }
    }

    /**
     * Number of fixed-function hardware counters (0 without a PMU).
     *
     * @throws KpcException {@link Status#EUNSUPPORTED} when the OS does not tell how many
     *     there are (the message says why): the count is then unknown, not 0
     * @throws IllegalStateException after {@link #close()}
     */
    public int fixedCounters() {
        synchronized (handle) {
            return open().fixedCounters();
        }
    }

    /**
     * Number of programmable hardware counters (0 without a PMU).
     *
     * @throws KpcException as {@link #fixedCounters()}
     */
    public int configurableCounters() {
        synchronized (handle) {
            return open().configurableCounters();
        }
    }

    /**
     * Checks whether this process may count hardware events now. Returns normally if it
     * may.
     *
     * @throws KpcException the status {@link #counters(String...)} would fail with for a
     *     hardware event: {@link Status#EPERM} (not root / perf_event_paranoid too strict;
     *     the message gives the fix), {@link Status#EBUSY} (another tool holds the counters),
     *     {@link Status#EUNSUPPORTED} (no PMU), {@link Status#ESTATE} (released)
     */
    public void access() {
        synchronized (handle) {
            KpcNative.kp_sampler_access(open());
        }
    }

    /**
     * Gives the hardware counters back but keeps the event database readable: counting of
     * this session's Counters stops, and later {@link #counters(String...)},
     * {@link Counters#start()} and {@link Counters#sample()} fail with {@link Status#ESTATE}.
     * Idempotent.
     *
     * @throws KpcException {@link Status#EKERNEL} if the OS refused to restore a setting
     *     (the release still takes effect)
     */
    public void release() {
        synchronized (handle) {
            KpcNative.kp_sampler_release(open());
        }
    }

    /**
     * Every event of the database, copied into values. The database grows when
     * {@link #findEvent(String)} adds a raw event, so later calls may return more.
     *
     * @return an unmodifiable list
     */
    public List<Event> events() {
        synchronized (handle) {
            NativeSampler s = open();
            long n = KpcNative.kp_sampler_event_count(s);
            List<Event> list = new ArrayList<>((int) Math.min(n, 4096));
            for (long i = 0; i < n; i++) {
                NativeEvent e = KpcNative.kp_sampler_event_at(s, i);
                if (e == null) {
                    break;
                }
                list.add(Event.copyOf(e));
            }
            return Collections.unmodifiableList(list);
        }
    }

    /**
     * Looks an event up by generic or native name (on Linux also "r&lt;hex&gt;" raw codes).
     * Finding an event does not mean it can be counted: see {@link Event#isAvailable()}.
     *
     * @throws NullPointerException if name is null
     * @throws KpcException {@link Status#EUNKNOWN_EVENT} (no such name; the message names it
     *     and suggests close names), {@link Status#ENOMEM}
     */
    public Event findEvent(String name) {
        Objects.requireNonNull(name, "name");
        synchronized (handle) {
            return Event.copyOf(open().find(name));
        }
    }

    /**
     * Prepares counters for the calling thread ({@code kp_thread_new}). Only that thread may
     * start, stop and sample them; counting begins at {@link Counters#start()}.
     *
     * @param names 1 to {@link Kpc#MAX_EVENTS} event names (generic or native), each listed once
     * @return new Counters owned by the caller; close them
     * @throws NullPointerException if names or one of them is null
     * @throws KpcException {@link Status#EINVAL} (no names, more than {@link Kpc#MAX_EVENTS}, a duplicate),
     *     {@link Status#EUNKNOWN_EVENT}, {@link Status#EUNAVAILABLE} (for example hardware
     *     events in a virtual machine), {@link Status#ECONFLICT}, {@link Status#EPERM},
     *     {@link Status#EBUSY}, {@link Status#EUNSUPPORTED}, {@link Status#ESTATE} (released),
     *     {@link Status#EKERNEL}, {@link Status#EFRAMEWORK}, {@link Status#ENOMEM}
     */
    public Counters counters(String... names) {
        Objects.requireNonNull(names, "names");
        String[] copy = names.clone();
        for (String n : copy) {
            Objects.requireNonNull(n, "event name");
        }
        synchronized (handle) {
            NativeCounters c = open().newCounters(copy);
            try {
                return new Counters(c);
            } catch (RuntimeException | Error e) {
                c.delete();
                throw e;
            }
        }
    }

    /** kp_process_spawn for {@link CountedProcess#spawn}; the caller owns the result. */
    NativeProcess spawnProcess(String[] names, String[] command) {
        synchronized (handle) {
            return open().spawnProcess(names, command);
        }
    }

    /** kp_process_attach for {@link CountedProcess#attach}; the caller owns the result. */
    NativeProcess attachProcess(String[] names, int pid) {
        synchronized (handle) {
            return open().attachProcess(names, pid);
        }
    }

    /** kp_process_spawn_ex for {@link CountedProcess#spawn(Sampler, List, CountedProcess.Options, String...)}. */
    NativeProcess spawnProcess(String[] names, String[] command, boolean partial, int[] groups) {
        synchronized (handle) {
            return open().spawnProcessEx(names, command, partial ? 1 : 0, groups);
        }
    }

    /** kp_process_attach_ex of a process for {@link CountedProcess#attach(Sampler, int, CountedProcess.Options, String...)}. */
    NativeProcess attachProcess(String[] names, int pid, boolean partial, int[] groups) {
        synchronized (handle) {
            return open().attachProcessEx(names, pid, partial ? 1 : 0, groups);
        }
    }

    /** kp_process_attach_ex system-wide for {@link CountedProcess#attachSystemWide}. */
    NativeProcess attachSystemWide(String[] names, boolean partial, int[] groups) {
        synchronized (handle) {
            return open().attachSystemWide(names, partial ? 1 : 0, groups);
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        synchronized (handle) {
            return closed;
        }
    }

    /**
     * Frees the native session handle ({@code kp_sampler_free}). Counters made from it stay
     * usable until they are closed. Idempotent; may be called from any thread (it waits for
     * a call in progress on this Sampler).
     */
    @Override
    public void close() {
        synchronized (handle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        cleanable.clean();
    }

    @Override
    public String toString() {
        synchronized (handle) {
            if (closed) {
                return "Sampler[closed]";
            }
            return "Sampler[" + KpcNative.kp_sampler_backend_name(handle) + ", "
                    + KpcNative.kp_sampler_cpu_name(handle) + "]";
        }
    }
}
