package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.kpc.Counters;
import org.kpc.KpcException;
import org.kpc.Sampler;
import org.kpc.Status;

/** Status codes, messages and argument errors. */
class ErrorsTest {

    @Test
    void statusValuesAreTheStableCValues() {
        // kpc/errors.h: KP_OK = 0, then KP_ERROR = -1 ... KP_EEXEC = -18, in this order.
        Status[] all = Status.values();
        assertEquals(19, all.length);
        for (int i = 0; i < all.length; i++) {
            assertEquals(-i, all[i].code(), all[i].name());
            assertEquals(all[i], Status.fromCode(-i));
            assertNotEquals("unknown status", all[i].description(), all[i].name());
        }
        assertEquals(-8, Status.EUNKNOWN_EVENT.code());
        assertEquals(-9, Status.EUNAVAILABLE.code());
        assertEquals(-11, Status.EWRONG_THREAD.code());
        assertEquals(-17, Status.EPARTIAL.code());
        assertEquals(Status.EPARTIAL, Status.fromCode(-17));
        assertEquals(-18, Status.EEXEC.code());
        assertEquals(Status.EEXEC, Status.fromCode(-18));
        // The published limits come from kpc/event.h.
        assertEquals(32, org.kpc.Kpc.MAX_EVENTS);
        assertEquals(256, org.kpc.Kpc.EVENT_NAME_MAX);
        assertEquals(Status.ERROR, Status.fromCode(-1000));
        assertEquals(Status.ERROR, Status.fromCode(5));
    }

    @Test
    void unknownEventNamedInTheMessage() {
        try (Sampler s = new Sampler()) {
            KpcException e = assertThrows(KpcException.class, () -> s.findEvent("no-such-event-xyz"));
            assertEquals(Status.EUNKNOWN_EVENT, e.getStatus());
            assertEquals(-8, e.getCode());
            assertEquals(0, e.getOsCode());
            assertTrue(e.getMessage().contains("no-such-event-xyz"), e.getMessage());
            assertTrue(e.toString().contains("[EUNKNOWN_EVENT]"), e.toString());

            KpcException c = assertThrows(KpcException.class,
                    () -> s.counters("task-clock", "another-missing-event"));
            assertEquals(Status.EUNKNOWN_EVENT, c.getStatus());
            assertTrue(c.getMessage().contains("another-missing-event"), c.getMessage());
            assertFalse(c.getMessage().contains("no-such-event-xyz"),
                    "the message of an earlier failure leaked: " + c.getMessage());
        }
    }

    @Test
    void hardwareEventIsUnavailableOrCounts() {
        try (Sampler s = new Sampler()) {
            Counters c;
            try {
                c = s.counters("cycles");
            } catch (KpcException e) {
                if (s.pmuName().equals("none")) {
                    // No PMU (this VM): the documented answer, with the reason in the message.
                    assertEquals(Status.EUNAVAILABLE, e.getStatus(), e.toString());
                    assertTrue(e.getMessage().contains("cycles"), e.getMessage());
                } else {
                    // A PMU the process may not use (perf_event_paranoid, another tool).
                    assertTrue(Set.of(Status.EUNAVAILABLE, Status.EPERM, Status.EBUSY)
                            .contains(e.getStatus()), e.toString());
                }
                return;
            }
            try (c) {
                c.start();
                long before = c.sample()[0];
                Work.burnCpu(5 * Work.MS);
                assertTrue(Work.delta(before, c.sample()[0]) > 0, "cycles did not grow");
            }
        }
    }

    @Test
    void argumentErrors() {
        try (Sampler s = new Sampler()) {
            assertEquals(Status.EINVAL, assertThrows(KpcException.class, () -> s.counters()).getStatus());
            KpcException dup = assertThrows(KpcException.class, () -> s.counters("task-clock", "task-clock"));
            assertEquals(Status.EINVAL, dup.getStatus());
            assertTrue(dup.getMessage().contains("task-clock"), dup.getMessage());

            List<String> many = new ArrayList<>();
            for (int i = 0; i < 33; i++) {
                many.add("r" + Integer.toHexString(0x10 + i));
            }
            assertEquals(Status.EINVAL, assertThrows(KpcException.class,
                    () -> s.counters(many.toArray(new String[0]))).getStatus());

            assertThrows(NullPointerException.class, () -> s.findEvent(null));
            assertThrows(NullPointerException.class, () -> s.counters((String[]) null));
            assertThrows(NullPointerException.class, () -> s.counters("task-clock", null));
        }
    }

    @Test
    void sampleBufferTooSmall() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock", "page-faults")) {
            c.start();
            KpcException e = assertThrows(KpcException.class, () -> c.sample(new long[1]));
            assertEquals(Status.EBUFSIZE, e.getStatus(), e.toString());
            assertThrows(KpcException.class, () -> c.sample(new long[0]));
            assertThrows(NullPointerException.class, () -> c.sample(null));
            // The handle is still fine afterwards.
            assertEquals(2, c.sample().length);
        }
    }

    @Test
    void messagesStayWithTheirThread() throws Exception {
        // Each thread fails with its own name many times; a message read anywhere but in
        // the failing JNI call could show the other thread's name.
        try (Sampler s = new Sampler()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (String name : List.of("missing-event-alpha", "missing-event-beta")) {
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < 500; i++) {
                            KpcException e = assertThrows(KpcException.class, () -> s.findEvent(name));
                            assertTrue(e.getMessage().contains("'" + name + "'"), e.getMessage());
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }

    @Test
    void exceptionIsUncheckedAndCarriesTheCode() {
        KpcException e = new KpcException(Status.EPERM.code(), "denied", 13);
        assertTrue(e instanceof RuntimeException);
        assertEquals(Status.EPERM, e.getStatus());
        assertEquals(13, e.getOsCode());
        assertEquals("org.kpc.KpcException [EPERM]: denied", e.toString());
    }
}
