package org.kpc;

import java.lang.ref.Cleaner;

/**
 * The safety net behind close(): a Sampler or Counters that becomes unreachable without
 * being closed has its native handle freed on this Cleaner's daemon thread (libkpc allows
 * kp_sampler_free and kp_thread_free from any thread, in any order). Relying on it is a
 * leak until the next GC; always close().
 */
final class Cleanup {
    static final Cleaner CLEANER = Cleaner.create();

    private Cleanup() {}
}
