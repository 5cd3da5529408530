package org.kpc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.kpc.Counters;
import org.kpc.Event;
import org.kpc.Sampler;

/** The event database, copied into Event values. */
class EventsTest {

    private static Optional<Event> byName(List<Event> events, String name) {
        return events.stream().filter(e -> e.name().equals(name)).findFirst();
    }

    @Test
    void enumerationContainsTaskClock() {
        try (Sampler s = new Sampler()) {
            List<Event> events = s.events();
            Event tc = byName(events, "task-clock").orElseThrow(
                    () -> new AssertionError("task-clock missing from " + events));
            assertEquals(Event.Kind.SOFTWARE, tc.kind());
            assertEquals(Event.Unit.NANOSECONDS, tc.unit());
            assertEquals(Event.Unit.COUNT, s.findEvent("page-faults").unit());
            assertTrue(tc.isAvailable());
            assertTrue(tc.isGeneric());
            assertEquals("", tc.unavailableReason());
            assertEquals(-1, tc.fixedCounter());
            assertEquals(tc, s.findEvent("task-clock"));
            assertEquals(tc.hashCode(), s.findEvent("task-clock").hashCode());
        }
    }

    @Test
    void everyEventIsWellFormed() {
        try (Sampler s = new Sampler()) {
            List<Event> events = s.events();
            assertTrue(events.size() >= 5, "only " + events.size() + " events");
            for (Event e : events) {
                assertFalse(e.name().isEmpty());
                assertNotNull(e.nativeName(), e.name());
                assertNotNull(e.description(), e.name());
                assertNotNull(e.kind(), e.name());
                assertNotNull(e.unavailableReason(), e.name());
                // Unavailable events say why; available ones have no reason.
                assertEquals(e.isAvailable(), e.unavailableReason().isEmpty(), e.toString());
                if (e.kind() != Event.Kind.FIXED) {
                    assertEquals(-1, e.fixedCounter(), e.toString());
                }
            }
            // Hardware events are listed even where they cannot be counted.
            Event cycles = byName(events, "cycles").orElseThrow();
            assertTrue(cycles.kind() != Event.Kind.SOFTWARE, cycles.toString());
            assertEquals(Event.Unit.COUNT, cycles.unit());
        }
    }

    @Test
    void eventListsAreImmutable() {
        try (Sampler s = new Sampler(); Counters c = s.counters("task-clock")) {
            List<Event> events = s.events();
            assertThrows(UnsupportedOperationException.class, () -> events.add(events.get(0)));
            assertThrows(UnsupportedOperationException.class, () -> c.events().clear());
        }
    }

    @Test
    void countersListTheirEventsInOrder() {
        try (Sampler s = new Sampler();
             Counters c = s.counters("page-faults", "task-clock", "context-switches")) {
            List<Event> events = c.events();
            assertEquals(3, events.size());
            assertEquals(3, c.size());
            assertEquals("page-faults", events.get(0).name());
            assertEquals("task-clock", events.get(1).name());
            assertEquals("context-switches", events.get(2).name());
            assertEquals(s.findEvent("page-faults"), events.get(0));
        }
    }

    @Test
    void nativeNamesFindTheSameEvent() {
        try (Sampler s = new Sampler()) {
            Event tc = s.findEvent("task-clock");
            assertFalse(tc.nativeName().isEmpty());
            Event again = s.findEvent(tc.nativeName());
            assertEquals(tc.selector(), again.selector());
            assertEquals(tc.kind(), again.kind());
        }
    }
}
