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
 * <p>Made by {@link #spawn(Sampler, List, String...)} (a command, counted from its exec),
 * {@link #attach(Sampler, int, String...)} (a running process; {@link #attachSelf} counts
 * this JVM: every thread of it, including threads started later) or
 * {@link #attachSystemWide(Sampler, String...)} (every CPU). Counting runs from then on;
 * {@link #stop()} pauses and {@link #start()} resumes. Each maker also takes
 * {@link Options}: count what can be counted and report the rest per event
 * ({@link Options#withPartial}, {@link #eventStatus(int)}), and group events
 * ({@link Options#withGroups}). {@link #readThread(int)} gives per-thread totals.
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
        /** Every CPU of the machine, so everything else that ran meanwhile too (system-wide; Apple kperf). */
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

    /**
     * How to make a CountedProcess ({@code kp_process_options_t}): an immutable value; each
     * {@code with} method returns a changed copy. {@code new Options()} is the default (every
     * event must count, no groups), which is what the makers without Options use.
     */
    public static final class Options {
        private final boolean partial;
        private final int[] groups; // null: none

        /** The defaults: not partial, no groups. */
        public Options() {
            this(false, null);
        }

        private Options(boolean partial, int[] groups) {
            this.partial = partial;
            this.groups = groups;
        }

        /**
         * {@code KP_PROCESS_PARTIAL}: an event that cannot be counted (not on this machine, or
         * refused) does not fail the call; it reads 0 and {@link #eventStatus(int)} says why.
         * The call still fails when none of the events can be counted (except that a spawned
         * command whose events are all known to be unavailable here runs uncounted).
         */
        public Options withPartial(boolean partial) {
            return new Options(partial, groups);
        }

        /**
         * One group number per event (>= 0), or -1 for an event in no group; null for no
         * groups. The events of one group are scheduled on the PMU together, so they count
         * over the same time (Linux: one perf_event group; Apple never multiplexes). Copied.
         */
        public Options withGroups(int... groups) {
            return new Options(partial, groups == null ? null : groups.clone());
        }

        /** Whether {@link #withPartial} is on. */
        public boolean isPartial() {
            return partial;
        }

        /** The groups, one per event (a copy), or null for none. */
        public int[] groups() {
            return groups == null ? null : groups.clone();
        }

        /** The groups for a call with {@code eventCount} events: one per event, or null. */
        int[] groupsFor(int eventCount) {
            if (groups != null && groups.length != eventCount) {
                throw new KpcException(Status.EINVAL.code(), "CountedProcess.Options: " + groups.length
                        + " groups for " + eventCount + " events; give one per event (-1 for an event in no group)", 0);
            }
            return groups;
        }

        @Override
        public String toString() {
            return "Options[partial " + partial + ", groups " + java.util.Arrays.toString(groups) + "]";
        }
    }

    /**
     * Whether one event of a CountedProcess is counted, and if not why
     * ({@code kp_process_event_status}). An immutable value.
     */
    public static final class EventStatus {
        private final int code;
        private final String reason;

        EventStatus(int code, String reason) {
            this.code = code;
            this.reason = reason;
        }

        /** Whether the event is counted ({@link Status#OK}). */
        public boolean isCounted() {
            return code == Status.OK.code();
        }

        /** {@link Status#OK}, or what counting it failed with, e.g. {@link Status#EUNAVAILABLE}. */
        public Status status() {
            return Status.fromCode(code);
        }

        /** The raw C status value (0 when counted). */
        public int code() {
            return code;
        }

        /** "" when counted, else why not, naming the fix where there is one. */
        public String reason() {
            return reason;
        }

        /** "counted", or "EUNAVAILABLE: reason". */
        @Override
        public String toString() {
            return isCounted() ? "counted" : status().name() + ": " + reason;
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
    // Held around every read and eventStatus(): a read replaces the reason text that
    // kp_process_event_status lends, so none may run while eventStatus() copies it.
    private final Object reads = new Object();
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
     * @param events 1 to {@link Kpc#MAX_EVENTS} event names, each listed once
     * @return a new CountedProcess owned by the caller; close it
     * @throws NullPointerException if an argument or an element is null
     * @throws IllegalStateException if the sampler is closed
     * @throws KpcException {@link Status#EINVAL} (an empty command, a bad event list),
     *     {@link Status#EEXEC} (the command cannot be executed: the message names the program
     *     and the exec error, {@link KpcException#getOsCode()} its errno), {@link Status#EUNKNOWN_EVENT},
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
     * {@link #spawn(Sampler, List, String...)} with options ({@code kp_process_spawn_ex}).
     *
     * @param options partial counting and groups; see {@link Options}
     * @throws KpcException as {@link #spawn(Sampler, List, String...)}; also
     *     {@link Status#EINVAL} for groups not one per event or a group number below -1,
     *     and {@link Status#ECONFLICT} for a group member on another PMU than its group
     *     (with {@link Options#withPartial}, reported for that event instead)
     */
    public static CountedProcess spawn(Sampler sampler, List<String> command, Options options, String... events) {
        Objects.requireNonNull(sampler, "sampler");
        Objects.requireNonNull(options, "options");
        String[] argv = copyOf(Objects.requireNonNull(command, "command").toArray(new String[0]), "command");
        String[] names = copyOf(events, "events");
        return own(sampler.spawnProcess(names, argv, options.isPartial(), options.groupsFor(names.length)));
    }

    /**
     * Counts {@code events} in the running process {@code pid} from now on
     * ({@code kp_process_attach}); pid 0 is this JVM (see {@link #attachSelf}).
     *
     * @param sampler the session (kept alive by the result)
     * @param pid the process; 0 for this one
     * @param events 1 to {@link Kpc#MAX_EVENTS} event names, each listed once
     * @return a new CountedProcess owned by the caller; close it
     * @throws NullPointerException if an argument or an element is null
     * @throws IllegalStateException if the sampler is closed
     * @throws KpcException {@link Status#EINVAL} (no such process: the OS code is ESRCH; a
     *     negative pid; a bad event list), {@link Status#EPERM} (not allowed to count it: the
     *     message says what to change; Apple recount: it runs as another user),
     *     {@link Status#EUNSUPPORTED} (the backend cannot count a process, e.g. recount's
     *     cycles in a macOS VM), {@link Status#EUNKNOWN_EVENT}, {@link Status#EUNAVAILABLE},
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

    /**
     * {@link #attach(Sampler, int, String...)} with options ({@code kp_process_attach_ex}).
     * Each event of a group is one perf_event group per counted thread.
     *
     * @param pid the process, 0 for this JVM; never negative (to count every CPU use
     *     {@link #attachSystemWide(Sampler, Options, String...)})
     * @param options partial counting and groups; see {@link Options}
     * @throws KpcException as {@link #attach(Sampler, int, String...)} (a negative pid is
     *     {@link Status#EINVAL}), and as {@link #spawn(Sampler, List, Options, String...)}
     *     for the options
     */
    public static CountedProcess attach(Sampler sampler, int pid, Options options, String... events) {
        Objects.requireNonNull(sampler, "sampler");
        Objects.requireNonNull(options, "options");
        String[] names = copyOf(events, "events");
        if (pid < 0) {
            throw new KpcException(Status.EINVAL.code(), "CountedProcess.attach: pid " + pid
                    + " is negative; give a process id, 0 for this JVM, or use attachSystemWide to count every CPU", 0);
        }
        return own(sampler.attachProcess(names, pid, options.isPartial(), options.groupsFor(names.length)));
    }

    /**
     * Counts {@code events} on every CPU from now on, whatever runs there (system-wide;
     * {@code kp_process_attach_ex} with {@code KP_PROCESS_SYSTEM_WIDE}). Every event's scope
     * is {@link Scope#SYSTEM}; {@link #pid()} is -1; {@link #waitFor()} throws
     * {@link Status#ESTATE}; {@link #threadCount()} is 0.
     *
     * <p>Linux: one counter per online CPU and event (CPUs brought online later are not
     * counted); allowed to root, to a process with CAP_PERFMON, or with
     * {@code kernel.perf_event_paranoid <= 0}. Apple: the kperf backend as root; the recount
     * backend cannot ({@link Status#EUNSUPPORTED}).
     *
     * @throws KpcException {@link Status#EPERM} (not allowed: the message names the setting),
     *     {@link Status#EUNSUPPORTED} (recount), and as
     *     {@link #spawn(Sampler, List, Options, String...)} for the events and options
     */
    public static CountedProcess attachSystemWide(Sampler sampler, Options options, String... events) {
        Objects.requireNonNull(sampler, "sampler");
        Objects.requireNonNull(options, "options");
        String[] names = copyOf(events, "events");
        return own(sampler.attachSystemWide(names, options.isPartial(), options.groupsFor(names.length)));
    }

    /** {@link #attachSystemWide(Sampler, Options, String...)} with the default options. */
    public static CountedProcess attachSystemWide(Sampler sampler, String... events) {
        return attachSystemWide(sampler, new Options(), events);
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

    /** Runs a native read under the read lock and {@link #reads}. */
    private <T> T callReading(java.util.function.Function<NativeProcess, T> f) {
        return call(h -> {
            synchronized (reads) {
                return f.apply(h);
            }
        });
    }

    /**
     * The counted process's id (this JVM's own for {@link #attachSelf}; -1 system-wide).
     * Valid after close.
     */
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
     * @throws KpcException {@link Status#ESTATE} (sampler released), {@link Status#EPERM}
     *     (recount: the process now runs as another user), {@link Status#EBUSY} (Apple
     *     kperf), {@link Status#EKERNEL}
     */
    public void start() {
        call(h -> KpcNative.kp_process_start(h));
    }

    /**
     * Pauses counting in every thread and child of the process; totals stay readable.
     * Idempotent.
     *
     * @throws KpcException {@link Status#EKERNEL}; on recount {@link Status#EPERM} or
     *     {@link Status#EKERNEL} when the totals could not be read at the stop (it stops
     *     anyway, keeping the totals last read, not complete)
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
     * after it ends (they then stay as they were at its end; on Apple's recount backend, an
     * attached process that its parent reaped before its final totals were read keeps the
     * totals last read, and {@link #readFull()} reports them not complete).
     *
     * @throws KpcException {@link Status#ESTATE} (sampler released), {@link Status#EPERM}
     *     (recount: the process runs as another user, e.g. a setuid command),
     *     {@link Status#EKERNEL}
     */
    public long[] read() {
        long[] values = new long[events.size()];
        callReading(h -> h.readInto(values));
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
        callReading(h -> h.readFullInto(values, complete, enabled, running));
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

    /**
     * Whether event {@code index} is counted, and if not why ({@code kp_process_event_status}),
     * as known at creation or at the last read (some backends learn of a failure only when
     * reading). Without {@link Options#withPartial} every event is counted.
     *
     * @param index 0 to {@code events().size() - 1}
     * @throws KpcException {@link Status#EINVAL} (index out of range)
     */
    public EventStatus eventStatus(int index) {
        int[] code = new int[1];
        String reason = callReading(h -> h.eventStatus(index, code));
        return new EventStatus(code[0], reason);
    }

    /**
     * Number of per-thread rows for {@link #readThread(int)}, fixed when the handle was made
     * ({@code kp_process_thread_count}): Linux, an attached process: one per thread it had
     * then; a spawned command: 1 (its first thread, which every thread of it descends
     * from); 0 system-wide and on Apple.
     */
    public int threadCount() {
        return call(h -> (int) h.threadCount());
    }

    /**
     * The totals of per-thread row {@code index} ({@code kp_process_read_thread}): what that
     * thread counted plus the threads and processes it created while counted. A thread that
     * has ended keeps its final totals. The rows add up to {@link #read()} for events
     * counted on every thread; an event not counted ({@link Options#withPartial}) reads 0.
     *
     * @param index 0 to {@link #threadCount()} - 1
     * @throws KpcException {@link Status#EINVAL} (index out of range), {@link Status#ESTATE}
     *     (sampler released), {@link Status#EKERNEL}
     */
    public ThreadTotals readThread(int index) {
        int n = events.size();
        int[] tid = new int[1];
        long[] values = new long[n];
        boolean[] complete = new boolean[n];
        callReading(h -> h.readThreadInto(index, tid, values, complete));
        return new ThreadTotals(tid[0], values, complete);
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
