package org.kpc;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A set of events counted for a whole process ({@code kp_process_t}): every thread of it,
 * and on Linux the threads and processes it starts ({@link #scopes()} says what each event
 * covers). Named so as not to clash with {@link java.lang.Process}.
 *
 * <p>Made by {@link #spawn(Sampler, List, String...)} (a command, counted from its exec) or
 * {@link #attach(Sampler, int, String...)} (a running process; {@link #attachSelf} counts
 * this JVM: every thread of it, including threads started later). Counting runs from then
 * on; {@link #stop()} pauses and {@link #start()} resumes.
 *
 * <pre>{@code
 * try (Sampler s = new Sampler();
 *      CountedProcess p = CountedProcess.spawn(s, List.of("make", "-j8"), "task-clock", "page-faults")) {
 *     CountedProcess.ExitStatus exit = p.waitFor();
 *     long[] totals = p.read();
 * }
 * }</pre>
 *
 * <p><b>Threads.</b> Unlike {@link Counters}, every method may be called from any thread,
 * and one thread may {@link #waitFor()} while others read, stop or start. {@link #close()}
 * waits for calls in progress, a {@code waitFor()} included.
 *
 * <p><b>Ownership.</b> {@link #close()} frees the native handle; a spawned command that has
 * not been waited for is killed (SIGKILL) and reaped then, so no process or zombie outlives
 * it (to end one early and still read its totals, signal it, e.g. with
 * {@code ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroy)}, then
 * {@link #waitFor()}). An attached process keeps running, no longer counted. An unclosed
 * CountedProcess is freed by a {@link Cleaner} once unreachable; do not rely on that. The
 * handle keeps its Sampler's native session alive. After close() every method except
 * close(), {@link #isClosed()}, {@link #pid()}, {@link #events()} and {@link #scopes()}
 * throws {@link IllegalStateException}.
 *
 * <p>Totals are unsigned 64-bit numbers held in Java longs (see {@link Counters#sample()}).
 */
public final class CountedProcess implements AutoCloseable {
    /** What one event of a CountedProcess covers ({@code kp_process_scope_t}). */
    public enum Scope {
        /** Linux: the process, all its threads, and the threads and processes it creates while counted. */
        TREE(kp_process_scope_t.KP_PROCESS_SCOPE_TREE),
        /** Apple recount: the process and its threads, not the processes it starts. */
        PROCESS(kp_process_scope_t.KP_PROCESS_SCOPE_PROCESS),
        /** Apple kperf: every CPU of the machine, so everything else that ran meanwhile too. */
        SYSTEM(kp_process_scope_t.KP_PROCESS_SCOPE_SYSTEM);

        private final int code;

        Scope(int code) {
            this.code = code;
        }

        /** The C value of {@code kp_process_scope_t}. */
        public int code() {
            return code;
        }

        static Scope fromCode(int code) {
            for (Scope s : values()) {
                if (s.code == code) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown kp_process_scope_t " + code);
        }
    }

    /** How a spawned command ended ({@link #waitFor()}). An immutable value. */
    public static final class ExitStatus {
        private final int exitCode;
        private final int signal;

        ExitStatus(int exitCode, int signal) {
            this.exitCode = exitCode;
            this.signal = signal;
        }

        /** The exit status (0-255) if the command exited; -1 if a signal killed it. */
        public int exitCode() {
            return exitCode;
        }

        /** The signal that killed the command; 0 if it exited. */
        public int signal() {
            return signal;
        }

        /** Whether the command exited with status 0. */
        public boolean isSuccess() {
            return exitCode == 0 && signal == 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ExitStatus && ((ExitStatus) o).exitCode == exitCode
                    && ((ExitStatus) o).signal == signal;
        }

        @Override
        public int hashCode() {
            return 31 * exitCode + signal;
        }

        /** "exit status N" or "signal N". */
        @Override
        public String toString() {
            return signal != 0 ? "signal " + signal : "exit status " + exitCode;
        }
    }

    private final NativeProcess handle;
    private final Cleaner.Cleanable cleanable;
    private final List<Event> events;
    private final List<Scope> scopes;
    private final int pid;
    // Read lock: every native call (libkpc serializes them on the handle itself, and lets a
    // wait run beside the others). Write lock: close(), so no call runs on a freed handle.
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by lock

    /** Takes ownership of a new native handle. */
    private CountedProcess(NativeProcess handle) {
        long n = KpcNative.kp_process_event_count(handle);
        List<Event> list = new ArrayList<>((int) n);
        List<Scope> scopeList = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
            list.add(Event.copyOf(KpcNative.kp_process_event_at(handle, i)));
            scopeList.add(Scope.fromCode(KpcNative.kp_process_event_scope(handle, i)));
        }
        this.events = Collections.unmodifiableList(list);
        this.scopes = Collections.unmodifiableList(scopeList);
        this.pid = KpcNative.kp_process_pid(handle);
        this.handle = handle;
        this.cleanable = Cleanup.CLEANER.register(this, handle::delete);
    }

    private static CountedProcess own(NativeProcess h) {
        try {
            return new CountedProcess(h);
        } catch (RuntimeException | Error e) {
            h.delete();
            throw e;
        }
    }

    private static String[] copyOf(String[] names, String what) {
        Objects.requireNonNull(names, what);
        String[] copy = names.clone();
        for (String n : copy) {
            Objects.requireNonNull(n, what + " element");
        }
        return copy;
    }

    /**
     * Starts {@code command} (the program, looked up in PATH, then its arguments) and counts
     * {@code events} in it from its exec on ({@code kp_process_spawn}). Returns once the
     * command runs. It inherits this JVM's environment, working directory and file
     * descriptors not marked close-on-exec. Wait for it with {@link #waitFor()}.
     *
     * @param sampler the session (kept alive by the result)
     * @param command the program and its arguments; at least the program
     * @param events 1 to 32 event names, each listed once
     * @return a new CountedProcess owned by the caller; close it
     * @throws NullPointerException if an argument or an element is null
     * @throws IllegalStateException if the sampler is closed
     * @throws KpcException {@link Status#EINVAL} (an empty command, a bad event list, or a
     *     command that cannot be run: the message names the program and the exec error,
     *     {@link KpcException#getOsCode()} its errno), {@link Status#EUNKNOWN_EVENT},
     *     {@link Status#EUNAVAILABLE}, {@link Status#EPERM}, {@link Status#EBUSY},
     *     {@link Status#EUNSUPPORTED}, {@link Status#ESTATE} (sampler released),
     *     {@link Status#EKERNEL}, {@link Status#EFRAMEWORK}, {@link Status#ENOMEM}
     */
    public static CountedProcess spawn(Sampler sampler, List<String> command, String... events) {
        Objects.requireNonNull(sampler, "sampler");
        String[] argv = copyOf(Objects.requireNonNull(command, "command").toArray(new String[0]), "command");
        return own(sampler.spawnProcess(copyOf(events, "events"), argv));
    }

    /**
     * Counts {@code events} in the running process {@code pid} from now on
     * ({@code kp_process_attach}); pid 0 is this JVM (see {@link #attachSelf}).
     *
     * @param sampler the session (kept alive by the result)
     * @param pid the process; 0 for this one
     * @param events 1 to 32 event names, each listed once
     * @return a new CountedProcess owned by the caller; close it
     * @throws NullPointerException if an argument or an element is null
     * @throws IllegalStateException if the sampler is closed
     * @throws KpcException {@link Status#EINVAL} (no such process: the OS code is ESRCH; a
     *     negative pid; a bad event list), {@link Status#EPERM} (not allowed to count it: the
     *     message says what to change), {@link Status#EUNSUPPORTED} (Apple's recount
     *     backend), {@link Status#EUNKNOWN_EVENT}, {@link Status#EUNAVAILABLE},
     *     {@link Status#EBUSY}, {@link Status#ESTATE}, {@link Status#EKERNEL} (too many open
     *     files: one per thread and event), {@link Status#EFRAMEWORK}, {@link Status#ENOMEM}
     */
    public static CountedProcess attach(Sampler sampler, int pid, String... events) {
        Objects.requireNonNull(sampler, "sampler");
        return own(sampler.attachProcess(copyOf(events, "events"), pid));
    }

    /**
     * Counts {@code events} in this JVM from now on: every thread of it (application, GC and
     * compiler threads), including threads started later. {@code attach(sampler, 0, events)}.
     *
     * @throws KpcException as {@link #attach(Sampler, int, String...)}
     */
    public static CountedProcess attachSelf(Sampler sampler, String... events) {
        return attach(sampler, 0, events);
    }

    /** Runs a native call under the read lock; throws IllegalStateException once closed. */
    private <T> T call(java.util.function.Function<NativeProcess, T> f) {
        lock.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("this CountedProcess is closed");
            }
            return f.apply(handle);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The counted process's id (this JVM's own for {@link #attachSelf}). Valid after close. */
    public int pid() {
        return pid;
    }

    /** The events, in the order they were given, as values. Valid after close. */
    public List<Event> events() {
        return events;
    }

    /** What each event covers, in event order. Valid after close. */
    public List<Scope> scopes() {
        return scopes;
    }

    /**
     * Resumes counting after {@link #stop()}. Idempotent.
     *
     * @throws KpcException {@link Status#ESTATE} (sampler released),
     *     {@link Status#EUNSUPPORTED} (recount cannot pause), {@link Status#EBUSY} (Apple
     *     kperf), {@link Status#EKERNEL}
     */
    public void start() {
        call(h -> KpcNative.kp_process_start(h));
    }

    /**
     * Pauses counting in every thread and child of the process; totals stay readable.
     * Idempotent.
     *
     * @throws KpcException {@link Status#EUNSUPPORTED} (recount), {@link Status#EKERNEL}
     */
    public void stop() {
        call(h -> KpcNative.kp_process_stop(h));
    }

    /** Whether counting is on (made, and not stopped). */
    public boolean isCounting() {
        return call(h -> KpcNative.kp_process_is_counting(h) != 0);
    }

    /**
     * The running totals, one per event in order (unsigned): while the process runs, and
     * after it ends (they then stay as they were at its end).
     *
     * @throws KpcException {@link Status#ESTATE} (sampler released; recount before
     *     {@link #waitFor()}), {@link Status#EPERM} (recount: another user's process),
     *     {@link Status#EKERNEL}
     */
    public long[] read() {
        long[] values = new long[events.size()];
        call(h -> h.readInto(values));
        return values;
    }

    /**
     * {@link #read()} plus, per event, whether it was multiplexed and its enabled and
     * running times.
     *
     * @throws KpcException as {@link #read()}
     */
    public ProcessSample readFull() {
        int n = events.size();
        long[] values = new long[n];
        boolean[] complete = new boolean[n];
        long[] enabled = new long[n];
        long[] running = new long[n];
        call(h -> h.readFullInto(values, complete, enabled, running));
        return new ProcessSample(values, complete, enabled, running);
    }

    /**
     * Waits for a spawned command to end and reaps it ({@code kp_process_wait}); once it has,
     * returns the same result at once. Counting is left as it is: read the totals
     * afterwards. Other threads may read, stop and start meanwhile.
     *
     * @return how the command ended
     * @throws KpcException {@link Status#ESTATE} (an attached process, which libkpc did not
     *     start; or someone else reaped the command), {@link Status#EKERNEL}
     */
    public ExitStatus waitFor() {
        int[] exit = new int[2];
        call(h -> h.waitInto(exit));
        return new ExitStatus(exit[0], exit[1]);
    }

    /** Whether {@link #close()} was called. Any thread. */
    public boolean isClosed() {
        lock.readLock().lock();
        try {
            return closed;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Stops counting and frees the native handle ({@code kp_process_free}) once calls in
     * progress have returned; a spawned command not waited for is killed and reaped.
     * Idempotent; any thread.
     */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lock.writeLock().unlock();
        }
        cleanable.clean();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("CountedProcess[pid ").append(pid).append(": ");
        for (int i = 0; i < events.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(events.get(i).name());
        }
        return b.append(isClosed() ? "; closed]" : "]").toString();
    }
}
