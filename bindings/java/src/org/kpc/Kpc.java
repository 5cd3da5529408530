package org.kpc;

/** Library-wide information. All methods are thread-safe and load the native library. */
public final class Kpc {
    /**
     * Version of the libkpc headers this binding was generated from, e.g. "0.1.0". Compare
     * with {@link #version()} to detect a kpc.jar used with a different libkpc.so.
     */
    public static final String HEADER_VERSION = KpcNativeConstants.KP_VERSION_STRING;

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
