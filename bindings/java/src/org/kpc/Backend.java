package org.kpc;

/**
 * Which counting backend a {@link Sampler} loads: {@code kp_backend_t} of
 * {@code kpc/sampler.h}, with the same numeric values.
 */
public enum Backend {
    /**
     * The {@code KPC_BACKEND} environment variable if set ({@code auto}, {@code kperf} or
     * {@code perf_event}), else the platform's own: kperf on macOS, perf_event on Linux.
     */
    AUTO(kp_backend_t.KP_BACKEND_AUTO),
    /** Apple's private kperf/kperfdata frameworks, loaded with dlopen. */
    KPERF(kp_backend_t.KP_BACKEND_KPERF),
    /** Linux perf_event_open. */
    PERF_EVENT(kp_backend_t.KP_BACKEND_PERF_EVENT),
    /** macOS without root: the kernel's per-thread cycles and instructions (and P/E split). */
    RECOUNT(kp_backend_t.KP_BACKEND_RECOUNT);

    private final int code;

    Backend(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /**
     * The constant for a C {@code kp_backend_t} value.
     *
     * @throws IllegalArgumentException if the value is not one this binding knows
     */
    public static Backend fromCode(int code) {
        for (Backend b : values()) {
            if (b.code == code) {
                return b;
            }
        }
        throw new IllegalArgumentException("unknown kp_backend_t value " + code);
    }
}
