package org.kpc;

import java.nio.charset.StandardCharsets;

/**
 * A libkpc call failed. Carries the C status ({@link #getStatus()}, {@link #getCode()}), the
 * OS or framework code ({@link #getOsCode()}) and libkpc's detailed message, which names the
 * cause and the fix (for example "... hardware events are not supported on this machine
 * (virtual machine without a PMU?)").
 *
 * <p>The message is read by the native code inside the same JNI call that failed, on the
 * same OS thread, so it always belongs to this failure (libkpc keeps it in thread-local
 * storage; see {@code docs/error-handling.md}).
 *
 * <p>Unchecked, like the other errors of this binding ({@link IllegalStateException} after
 * close, {@link NullPointerException} for null arguments): most callers cannot recover
 * from a missing PMU or permission and handle it at one place.
 */
public class KpcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final int osCode;

    /**
     * @param code a C {@code kp_status} value (negative)
     * @param message the detailed message
     * @param osCode errno or kpep code attached to the failure, or 0
     */
    public KpcException(int code, String message, int osCode) {
        super(message);
        this.code = code;
        this.osCode = osCode;
    }

    /** Called by the JNI layer: the message arrives as UTF-8 bytes (see kpc_java.i). */
    KpcException(int code, byte[] message, int osCode) {
        this(code, new String(message, StandardCharsets.UTF_8), osCode);
    }

    /** The status as an enum ({@link Status#ERROR} for a code this binding does not know). */
    public Status getStatus() {
        return Status.fromCode(code);
    }

    /** The raw C status value, e.g. -8 for {@link Status#EUNKNOWN_EVENT}. */
    public int getCode() {
        return code;
    }

    /**
     * The OS or framework code attached to the failure ({@code kp_error_last_os_code}): an
     * errno value (perf_event, kpc calls) or a kpep error code (kperfdata); 0 when none.
     * The message says which kind it is.
     */
    public int getOsCode() {
        return osCode;
    }

    /** "org.kpc.KpcException [EUNKNOWN_EVENT]: message", so stack traces show the status. */
    @Override
    public String toString() {
        String message = getLocalizedMessage();
        String head = getClass().getName() + " [" + getStatus().name() + "]";
        return message == null ? head : head + ": " + message;
    }
}
