import CKpc

/// Information about one countable event, copied out of libkpc.
///
/// `Event` is a plain value: every field is copied from the C library's borrowed
/// `kp_event_t` when the value is made, so it stays valid after the ``Sampler`` and every
/// ``Counters`` it came from are gone. It is `Sendable` and may be used on any thread.
public struct Event: Hashable, Sendable {
    /// Which kind of counter an event needs (`kp_event_kind_t`).
    public enum Kind: Int32, Sendable {
        /// A fixed-function hardware counter (Apple: cycles, instructions).
        case fixed = 0
        /// A programmable hardware counter.
        case configurable = 1
        /// Counted by the OS kernel (task-clock, page-faults, ...; Linux only).
        case software = 2
    }

    /// The unit of an event's count (`kp_event_unit_t`).
    public enum Unit: Int32, Sendable {
        /// A number of occurrences (cycles, page-faults, ...).
        case count = 0
        /// Time in nanoseconds: task-clock, cpu-clock, recount's user-time and system-time.
        case nanoseconds = 1
    }

    /// Most events one ``Counters`` or ``CountedProcess`` counts (`KP_MAX_EVENTS`).
    public static let maxPerHandle = Int(KP_MAX_EVENTS)
    /// Longest event name accepted, in bytes of UTF-8 (`KP_EVENT_NAME_MAX`).
    public static let maxNameBytes = Int(KP_EVENT_NAME_MAX)

    /// The name the event was looked up by: the generic name (e.g. `"cycles"`) for generic events.
    public let name: String
    /// The backend's own name, e.g. `"FIXED_CYCLES"` (kperf) or `"PERF_COUNT_HW_CPU_CYCLES"`
    /// (perf_event); `""` when the backend has none.
    public let nativeName: String
    /// One-line description (`kp_event_description`); `""` when the backend has none.
    public let summary: String
    /// The kind of counter the event needs.
    public let kind: Kind
    /// What the count counts: occurrences, or nanoseconds for the clocks.
    public let unit: Unit
    /// `true` for libkpc's generic events (portable names), `false` for native ones.
    public let isGeneric: Bool
    /// Whether this machine and OS can count the event. Permission is separate:
    /// see ``Sampler/access()``.
    public let isAvailable: Bool
    /// Why the event cannot be counted, with what to do; `nil` when it is available.
    public let unavailableReason: String?
    /// Apple kpep alias (e.g. `"Cycles"`), if any.
    public let alias: String?
    /// Apple kpep errata note, if any.
    public let errata: String?
    /// Apple kpep fallback event name (e.g. `"INST_ALL"`), if any.
    public let fallback: String?
    /// Bitmap of the hardware counters the event may use (bit 0 = counter 0); 0 when the
    /// backend does not say (perf_event, software events).
    public let countersMask: UInt32
    /// Backend encoding: the kpep selector on Apple, `perf_event_attr.config` on Linux.
    public let selector: UInt64
    /// Index of the fixed counter the event must use; `nil` for configurable and software events.
    public let fixedCounter: Int?

    /// Copies every field of a borrowed `kp_event_t`. The pointer must be valid (owned by a
    /// live sampler or thread handle) for the duration of the call.
    init(copying e: OpaquePointer) {
        name = String(cString: kp_event_name(e))
        nativeName = optionalString(kp_event_native_name(e)) ?? ""
        summary = optionalString(kp_event_description(e)) ?? ""
        kind = Kind(rawValue: kp_event_kind(e)) ?? .configurable
        unit = Unit(rawValue: kp_event_unit(e)) ?? .count
        isGeneric = kp_event_is_generic(e) != 0
        isAvailable = kp_event_is_available(e) != 0
        let reason = optionalString(kp_event_unavailable_reason(e)) ?? ""
        unavailableReason = isAvailable || reason.isEmpty ? nil : reason
        alias = optionalString(kp_event_alias(e))
        errata = optionalString(kp_event_errata(e))
        fallback = optionalString(kp_event_fallback(e))
        countersMask = kp_event_counters_mask(e)
        selector = kp_event_selector(e)
        let fixed = kp_event_fixed_counter(e)
        fixedCounter = fixed >= 0 ? Int(fixed) : nil
    }
}
