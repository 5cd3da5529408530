package org.kpc;

import java.util.Objects;

/**
 * Read-only description of one countable event: a plain immutable value.
 *
 * <p>Every field is copied out of libkpc when the Event is made ({@link Sampler#events()},
 * {@link Sampler#findEvent(String)}, {@link Counters#events()}), so an Event stays valid
 * after its Sampler or Counters is closed, may be shared between threads, and holds no
 * native resource. Two Events are equal when all their fields are.
 *
 * <p>Availability is what the hardware and OS offer; permission is separate (see
 * {@link Sampler#access()}).
 */
public final class Event {
    /** Which kind of counter an event needs ({@code kp_event_kind_t}). */
    public enum Kind {
        /** A fixed-function hardware counter (Apple: cycles, instructions). */
        FIXED(kp_event_kind_t.KP_EVENT_FIXED),
        /** A programmable hardware counter. */
        CONFIGURABLE(kp_event_kind_t.KP_EVENT_CONFIGURABLE),
        /** Counted by the OS kernel (task-clock, page-faults, ...). */
        SOFTWARE(kp_event_kind_t.KP_EVENT_SOFTWARE);

        private final int code;

        Kind(int code) {
            this.code = code;
        }

        /** The C value. */
        public int code() {
            return code;
        }

        /**
         * The constant for a C {@code kp_event_kind_t} value.
         *
         * @throws IllegalArgumentException for a value this binding does not know
         */
        public static Kind fromCode(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new IllegalArgumentException(
                    "libkpc reported event kind " + code + ", unknown to this kpc.jar; use the "
                            + "kpc.jar built with the libkpc in use");
        }
    }

    /** The unit of an event's count ({@code kp_event_unit_t}). */
    public enum Unit {
        /** A number of occurrences (cycles, page-faults, ...). */
        COUNT(kp_event_unit_t.KP_EVENT_UNIT_COUNT),
        /** Time in nanoseconds: task-clock, cpu-clock, recount's user-time and system-time. */
        NANOSECONDS(kp_event_unit_t.KP_EVENT_UNIT_NANOSECONDS);

        private final int code;

        Unit(int code) {
            this.code = code;
        }

        /** The C value. */
        public int code() {
            return code;
        }

        /**
         * The constant for a C {@code kp_event_unit_t} value.
         *
         * @throws IllegalArgumentException for a value this binding does not know
         */
        public static Unit fromCode(int code) {
            for (Unit u : values()) {
                if (u.code == code) {
                    return u;
                }
            }
            throw new IllegalArgumentException(
                    "libkpc reported event unit " + code + ", unknown to this kpc.jar; use the "
                            + "kpc.jar built with the libkpc in use");
        }
    }

    private final String name;
    private final String nativeName;
    private final String description;
    private final Kind kind;
    private final Unit unit;
    private final boolean generic;
    private final boolean available;
    private final String unavailableReason;
    private final String alias;
    private final String errata;
    private final String fallback;
    private final long countersMask;
    private final long selector;
    private final int fixedCounter;

    private Event(NativeEvent e) {
        name = KpcNative.kp_event_name(e);
        nativeName = KpcNative.kp_event_native_name(e);
        description = KpcNative.kp_event_description(e);
        kind = Kind.fromCode(KpcNative.kp_event_kind(e));
        unit = Unit.fromCode(KpcNative.kp_event_unit(e));
        generic = KpcNative.kp_event_is_generic(e) != 0;
        available = KpcNative.kp_event_is_available(e) != 0;
        unavailableReason = KpcNative.kp_event_unavailable_reason(e);
        alias = KpcNative.kp_event_alias(e);
        errata = KpcNative.kp_event_errata(e);
        fallback = KpcNative.kp_event_fallback(e);
        countersMask = KpcNative.kp_event_counters_mask(e);
        selector = KpcNative.kp_event_selector(e);
        fixedCounter = KpcNative.kp_event_fixed_counter(e);
    }

    /**
     * Copies a borrowed native event. The caller holds the lock of the Sampler or Counters
     * that owns it, so the event cannot be freed while it is read.
     */
    static Event copyOf(NativeEvent e) {
        return new Event(Objects.requireNonNull(e, "native event"));
    }

    /** Name the event was looked up by: the generic name (e.g. "cycles") for generic events. */
    public String name() {
        return name;
    }

    /**
     * The backend's own name, e.g. "FIXED_CYCLES" (kperf) or "PERF_COUNT_HW_CPU_CYCLES"
     * (perf_event); "" when the backend has none for an unavailable generic event.
     */
    public String nativeName() {
        return nativeName;
    }

    /** One-line description; "" when the backend has none. */
    public String description() {
        return description;
    }

    /** Which kind of counter the event needs. */
    public Kind kind() {
        return kind;
    }

    /** What the count counts: occurrences, or nanoseconds for the clocks. */
    public Unit unit() {
        return unit;
    }

    /** Whether this is one of libkpc's generic events (same meaning on every backend). */
    public boolean isGeneric() {
        return generic;
    }

    /** Whether the event can be counted on this machine (permission aside). */
    public boolean isAvailable() {
        return available;
    }

    /** Why the event is unavailable and what to do; "" when available. */
    public String unavailableReason() {
        return unavailableReason;
    }

    /** Apple kpep alias (e.g. "Cycles"), or null when there is none. */
    public String alias() {
        return alias;
    }

    /** Apple kpep errata note, or null when there is none. */
    public String errata() {
        return errata;
    }

    /** Apple kpep fallback event name (e.g. "INST_ALL"), or null when there is none. */
    public String fallback() {
        return fallback;
    }

    /**
     * Bitmap of the hardware counters the event may use (bit 0 = counter 0); 0 when the
     * backend does not say. An unsigned 32-bit value held in a long.
     */
    public long countersMask() {
        return countersMask;
    }

    /**
     * Backend encoding: the kpep selector on Apple, perf_event {@code attr.config} on Linux.
     * Unsigned 64-bit: use {@link Long#toUnsignedString(long)} or {@link Long#toHexString(long)}.
     */
    public long selector() {
        return selector;
    }

    /** Index of the fixed counter the event must use, or -1 (configurable and software events). */
    public int fixedCounter() {
        return fixedCounter;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Event)) {
            return false;
        }
        Event e = (Event) o;
        return generic == e.generic
                && available == e.available
                && countersMask == e.countersMask
                && selector == e.selector
                && fixedCounter == e.fixedCounter
                && kind == e.kind
                && unit == e.unit
                && Objects.equals(name, e.name)
                && Objects.equals(nativeName, e.nativeName)
                && Objects.equals(description, e.description)
                && Objects.equals(unavailableReason, e.unavailableReason)
                && Objects.equals(alias, e.alias)
                && Objects.equals(errata, e.errata)
                && Objects.equals(fallback, e.fallback);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, nativeName, kind, generic, available, selector, fixedCounter);
    }

    /** e.g. "Event[task-clock (PERF_COUNT_SW_TASK_CLOCK), SOFTWARE, available]". */
    @Override
    public String toString() {
        return "Event[" + name + (nativeName == null || nativeName.isEmpty() || nativeName.equals(name)
                ? "" : " (" + nativeName + ")") + ", " + kind + ", "
                + (available ? "available" : "unavailable: " + unavailableReason) + "]";
    }
}
