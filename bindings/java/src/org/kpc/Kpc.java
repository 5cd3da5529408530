package org.kpc;

/** Library-wide information. All methods are thread-safe and load the native library. */
public final class Kpc {
    /**
     * Version of the libkpc headers this binding was generated from, e.g. "0.1.0". Compare
     * with {@link #version()} to detect a kpc.jar used with a different libkpc.so.
     */
    public static final String HEADER_VERSION = KpcNativeConstants.KP_VERSION_STRING;

    /** Most events one {@link Counters} or {@link CountedProcess} counts ({@code KP_MAX_EVENTS}). */
    public static final int MAX_EVENTS = KpcNativeConstants.KP_MAX_EVENTS;

    /** Longest event name accepted, in bytes of UTF-8 ({@code KP_EVENT_NAME_MAX}). */
    public static final int EVENT_NAME_MAX = KpcNativeConstants.KP_EVENT_NAME_MAX;

    private Kpc() {}

    /** Version of the loaded libkpc ({@code kp_version_string}), e.g. "0.1.0". */
    public static String version() {
        return KpcNative.kp_version_string();
    }

    /** Version of the loaded libkpc as MAJOR*10000 + MINOR*100 + PATCH ({@code kp_version_number}). */
    public static int versionNumber() {
        return KpcNative.kp_version_number();
    }
}
