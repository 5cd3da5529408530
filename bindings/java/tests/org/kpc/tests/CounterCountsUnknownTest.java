package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/**
 * A machine whose OS does not tell its counter count: CMake runs this class with
 * tests/common/counts_unknown_preload.c preloaded, so kp_sampler_counter_count returns
 * KP_EUNSUPPORTED. The counts are then unknown: Sampler must throw, not return 0.
 */
class CounterCountsUnknownTest {

    @Test
    void unknownCountsThrowUnsupported() {
        String preload = System.getenv("LD_PRELOAD");
        assertTrue(preload != null && preload.contains("counts_unknown"),
                "run by CMake with LD_PRELOAD=<kpc_test_counts_unknown>; got " + preload);
        try (Sampler s = new Sampler()) {
            KpcException fixed = assertThrows(KpcException.class, s::fixedCounters);
            assertEquals(Status.EUNSUPPORTED, fixed.getStatus());
            KpcException conf = assertThrows(KpcException.class, s::configurableCounters);
            assertEquals(Status.EUNSUPPORTED, conf.getStatus());
            // The rest of the sampler still works.
            assertEquals("perf_event", s.backendName());
        }
    }
}
