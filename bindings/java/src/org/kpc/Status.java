package org.kpc;

/**
 * libkpc status codes: {@code kp_status} of {@code kpc/errors.h}, with the same numeric
 * values (taken from the header when the binding is generated). The values are stable:
 * libkpc never changes or reuses them and only appends new ones.
 *
 * <p>Every failure of the binding carries one of these in {@link KpcException#getStatus()}.
 * See {@code docs/error-handling.md} for what each code means and what its message tells.
 */
public enum Status {
    /** Success ({@code KP_OK}, 0). Never carried by an exception. */
    OK(kp_status.KP_OK),
    /** Internal error not covered by another code ({@code KP_ERROR}, -1). */
    ERROR(kp_status.KP_ERROR),
    /** Invalid argument ({@code KP_EINVAL}, -2): bad options, empty or duplicate event list. */
    EINVAL(kp_status.KP_EINVAL),
    /** Out of memory ({@code KP_ENOMEM}, -3). */
    ENOMEM(kp_status.KP_ENOMEM),
    /** A framework or symbol could not be loaded ({@code KP_ELOAD}, -4). */
    ELOAD(kp_status.KP_ELOAD),
    /** Permission denied ({@code KP_EPERM}, -5): root on macOS, perf_event_paranoid on Linux. */
    EPERM(kp_status.KP_EPERM),
    /** The counters are held by someone else ({@code KP_EBUSY}, -6). */
    EBUSY(kp_status.KP_EBUSY),
    /** Not supported here: no PMU, unknown CPU, backend not built ({@code KP_EUNSUPPORTED}, -7). */
    EUNSUPPORTED(kp_status.KP_EUNSUPPORTED),
    /** No event of that name ({@code KP_EUNKNOWN_EVENT}, -8). */
    EUNKNOWN_EVENT(kp_status.KP_EUNKNOWN_EVENT),
    /** The event exists but cannot be counted on this machine or OS ({@code KP_EUNAVAILABLE}, -9). */
    EUNAVAILABLE(kp_status.KP_EUNAVAILABLE),
    /** The events cannot be counted together ({@code KP_ECONFLICT}, -10). */
    ECONFLICT(kp_status.KP_ECONFLICT),
    /** A {@link Counters} was used from a thread other than its creator ({@code KP_EWRONG_THREAD}, -11). */
    EWRONG_THREAD(kp_status.KP_EWRONG_THREAD),
    /** Wrong state: not started yet, or the sampler was released ({@code KP_ESTATE}, -12). */
    ESTATE(kp_status.KP_ESTATE),
    /** A framework's struct layout is not one libkpc understands ({@code KP_ELAYOUT}, -13). */
    ELAYOUT(kp_status.KP_ELAYOUT),
    /** Apple's kperfdata framework returned an error ({@code KP_EFRAMEWORK}, -14). */
    EFRAMEWORK(kp_status.KP_EFRAMEWORK),
    /** The kernel refused an operation ({@code KP_EKERNEL}, -15); the errno is in the exception. */
    EKERNEL(kp_status.KP_EKERNEL),
    /** A caller buffer is too small ({@code KP_EBUFSIZE}, -16). */
    EBUFSIZE(kp_status.KP_EBUFSIZE),
    /**
     * The kernel multiplexed the handle's events: the values are partial (use
     * {@link Counters#sampleFull()} for the scaling times) ({@code KP_EPARTIAL}, -17).
     * {@link Counters#sample()} and {@link Counters#calibrate()} throw it.
     */
    EPARTIAL(kp_status.KP_EPARTIAL),
    /**
     * The command to count could not be executed (not found, not executable)
     * ({@code KP_EEXEC}, -18); {@link KpcException#getOsCode()} is the exec's errno (ENOENT, 2,
     * when not found).
     */
    EEXEC(kp_status.KP_EEXEC);

    private static final Status[] BY_NEGATED_CODE = new Status[values().length];

    static {
        for (Status s : values()) {
            BY_NEGATED_CODE[-s.code] = s;
        }
    }

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The C value ({@code KP_EINVAL} is -2, ...). */
    public int code() {
        return code;
    }

    /**
     * libkpc's short static description of this code ({@code kp_strerror}), e.g.
     * "permission denied". Loads the native library on first use; thread-safe.
     */
    public String description() {
        return KpcNative.kp_strerror(code);
    }

    /**
     * The constant for a C status value.
     *
     * @param code a {@code kp_status} value
     * @return its constant; {@link #ERROR} for a value this binding does not know (a newer
     *     libkpc may append codes; {@link KpcException#getCode()} keeps the raw value)
     */
    public static Status fromCode(int code) {
        if (code <= 0 && -code < BY_NEGATED_CODE.length) {
            return BY_NEGATED_CODE[-code];
        }
        return ERROR;
    }
}
