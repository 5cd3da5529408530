package kpc

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// Counters is a set of events counted on one OS thread (kp_thread_t): the thread that
// called NewCounters.
//
// The Go thread rule: the Go scheduler moves goroutines between OS threads, so the
// goroutine that creates Counters must call runtime.LockOSThread() BEFORE NewCounters and
// stay locked until Close:
//
//	runtime.LockOSThread()
//	defer runtime.UnlockOSThread()
//	c, err := sampler.NewCounters("task-clock")
//	...
//	defer c.Close()
//
// Start, Stop, Sample and SampleFull then run on the creating thread and count only what
// that goroutine does. Called from another OS thread (an unlocked goroutine that migrated,
// or another goroutine), they do nothing and return ErrWrongThread.
//
// Ownership: the Counters own a native handle; Close frees it (from any goroutine). A
// finalizer frees a forgotten handle as a safety net only. The handle keeps its Sampler's
// session alive, so the Sampler may be closed first.
//
// Concurrency: methods are serialized by a mutex, so Close from another goroutine is safe;
// counting methods still have to run on the creating thread.
type Counters struct {
	mu        sync.Mutex
	h         ckpc.Kp_thread // nil once closed
	events    []Event        // copied at creation
	createdOn int            // OS thread id, for error messages
	buf       sampleBuffer   // Sample's values, in C memory (sample_cgo.go)
}

// NewCounters prepares the named events (generic such as "cycles", "task-clock", or native)
// for the calling OS thread (kp_thread_new). Counting begins at Start. Lock the goroutine to
// its OS thread first; see Counters.
//
// Errors (*Error): ErrInvalid (no names, more than MaxEvents, a name twice, a NUL byte),
// ErrUnknownEvent (the message names it), ErrUnavailable (e.g. a hardware event on a
// machine without a PMU), ErrConflict, ErrPermission, ErrBusy, ErrUnsupported, ErrState
// (sampler released), ErrKernel, ErrFramework, ErrNoMemory; an error wrapping ErrClosed
// after the Sampler's Close. The caller owns the Counters and must Close them.
func (s *Sampler) NewCounters(names ...string) (*Counters, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == nil {
		return nil, closedError("Sampler.NewCounters")
	}
	for _, n := range names {
		if strings.IndexByte(n, 0) >= 0 {
			return nil, &Error{Status: ErrInvalid, Message: "kpc: event name " + quote(n) + " contains a NUL byte"}
		}
	}
	h := s.h
	var t ckpc.Kp_thread
	var createdOn int
	err := callChecked(func() int {
		createdOn = osThreadID()
		return ckpc.Kp_thread_new(&t, h, names)
	})
	if err != nil {
		return nil, err
	}
	n := ckpc.Kp_thread_event_count(t)
	c := &Counters{h: t, createdOn: createdOn, buf: newSampleBuffer(int(n))}
	c.events = make([]Event, 0, n)
	for i := int64(0); i < n; i++ {
		c.events = append(c.events, eventFrom(ckpc.Kp_thread_event_at(t, i)))
	}
	runtime.SetFinalizer(c, (*Counters).free)
	return c, nil
}

// free is the finalizer; kp_thread_free may run on any thread.
func (c *Counters) free() {
	if c.h != nil {
		ckpc.Kp_thread_free(c.h)
		c.h = nil
	}
	c.buf.free()
}

// Close stops counting and frees the native handle (kp_thread_free). It may be called from
// any goroutine and is idempotent: later calls return nil. Afterwards Start, Stop, Sample
// and SampleFull return an error wrapping ErrClosed; Events still returns the copies.
func (c *Counters) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h != nil {
		ckpc.Kp_thread_free(c.h)
		c.h = nil
		c.buf.free()
		runtime.SetFinalizer(c, nil)
	}
	return nil
}

// Events returns copies of the counted events, in the order given to NewCounters (the
// order of Sample's values). Valid after Close.
func (c *Counters) Events() []Event {
	return append([]Event(nil), c.events...)
}

// Len returns the number of events, i.e. how many values Sample appends.
func (c *Counters) Len() int { return len(c.events) }

// IsRunning reports whether counting is started (kp_thread_is_running); false after Close.
func (c *Counters) IsRunning() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h != nil && ckpc.Kp_thread_is_running(c.h) != 0
}

// Start starts or resumes counting (kp_thread_start); starting a started set does nothing.
// Must run on the creating OS thread.
//
// Errors: ErrWrongThread, ErrState (sampler released), ErrBusy and ErrUnavailable (Apple),
// ErrPermission, ErrKernel; an error wrapping ErrClosed after Close.
func (c *Counters) Start() error {
	return c.control("Counters.Start", ckpc.Kp_thread_start)
}

// Stop pauses counting (kp_thread_stop); totals stay readable with Sample. Idempotent.
// Must run on the creating OS thread.
//
// Errors: ErrWrongThread, ErrKernel; an error wrapping ErrClosed after Close.
func (c *Counters) Stop() error {
	return c.control("Counters.Stop", ckpc.Kp_thread_stop)
}

func (c *Counters) control(op string, f func(ckpc.Kp_thread) int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return closedError(op)
	}
	return c.call(func() int { return f(c.h) })
}

// call runs a counting call and, when it fails, reads its error on the same OS thread
// (LockOSThread nests, so a caller's own lock is kept). The caller holds c.mu. Sample
// spells this out instead, to keep the closure off its hot path.
func (c *Counters) call(f func() int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := f(); rc != 0 {
		return c.failure(rc)
	}
	return nil
}

// failure reads the error of a counting call; runs on the failing call's OS thread.
func (c *Counters) failure(rc int) *Error {
	err := lastError(rc)
	if err.Status == ErrWrongThread {
		wrongThreadAdvice(err, c.createdOn)
	}
	return err
}

// Sample appends the running totals of the events, in the order given to NewCounters, to
// dst and returns the extended slice (kp_thread_sample), like the append-style functions of
// strconv. Totals never decrease while started; take differences between two samples.
// When dst has room for Len() more values nothing is allocated, so a loop can reuse one
// buffer:
//
//	buf := make([]uint64, 0, c.Len())
//	for ... {
//		buf, err = c.Sample(buf[:0])
//	}
//
// Must run on the creating OS thread. On error dst is returned unchanged.
//
// Errors: ErrWrongThread, ErrState (never started, or sampler released), ErrKernel;
// ErrPartial: the kernel multiplexed the handle's events: the values are partial (use
// SampleFull for the scaling times); an error wrapping ErrClosed after Close.
func (c *Counters) Sample(dst []uint64) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return dst, closedError("Counters.Sample")
	}
	n, start := len(c.events), len(dst)
	out := dst
	if cap(out)-start < n {
		out = make([]uint64, start, start+n)
		copy(out, dst)
	}
	out = out[:start+n]
	runtime.LockOSThread()
	rc := c.buf.sample(c.h.Swigcptr(), out[start:])
	var err *Error
	if rc != 0 {
		err = c.failure(rc)
	}
	runtime.UnlockOSThread()
	if err != nil {
		return dst, err
	}
	return out, nil
}

// Calibrate measures what an empty measured region costs each event on this thread
// (kp_thread_calibrate): over rounds pairs of back-to-back samples (0 means 100, at most
// 1000000), the smallest difference per event, in the order of Sample's values. Subtract
// offsets[i] from a measured difference (clamping at 0) to remove the cost of sampling
// itself; it matters for short regions, and on Apple, where every read adds the kernel's
// work to the fixed counters. Not for multiplexed events (see SampleFull). The counters
// must be started. Must run on the creating OS thread.
//
// Errors: ErrInvalid (rounds out of range), ErrWrongThread, ErrState (not started, or
// sampler released), ErrKernel, ErrPartial (the events were multiplexed: no offset is
// meaningful); an error wrapping ErrClosed after Close.
func (c *Counters) Calibrate(rounds int) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return nil, closedError("Counters.Calibrate")
	}
	if rounds < 0 || rounds > 1000000 {
		return nil, &Error{Status: ErrInvalid, Message: "kpc: Counters.Calibrate: rounds " +
			strconv.Itoa(rounds) + " is out of range; use 1 to 1000000, or 0 for the default 100"}
	}
	offsets := make([]uint64, len(c.events))
	if err := c.call(func() int { return c.buf.calibrate(c.h.Swigcptr(), offsets, uint32(rounds)) }); err != nil {
		return nil, err
	}
	return offsets, nil
}

// FullSample is the result of SampleFull.
type FullSample struct {
	// Values are the running totals, in the order given to NewCounters.
	Values []uint64
	// Complete[i] is false when the kernel multiplexed event i: its value then covers only
	// TimeRunning of TimeEnabled (scale by TimeEnabled/TimeRunning to estimate).
	Complete []bool
	// TimeEnabled is how long the events were enabled; 0 when the backend does not measure
	// it (Apple counters are never multiplexed).
	TimeEnabled time.Duration
	// TimeRunning is how long they were on a counter; 0 likewise.
	TimeRunning time.Duration
}

// SampleFull is Sample plus, per event, whether it ran the whole time, and the enabled and
// running times (kp_thread_sample_full). It allocates the result; use Sample in hot loops.
// Must run on the creating OS thread. Errors as for Sample.
func (c *Counters) SampleFull() (FullSample, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return FullSample{}, closedError("Counters.SampleFull")
	}
	n := len(c.events)
	values := make([]uint64, n)
	complete := make([]byte, n)
	var enabled, running uint64
	if err := c.call(func() int {
		return ckpc.Kp_thread_sample_full(c.h, values, complete, int64(n), &enabled, &running)
	}); err != nil {
		return FullSample{}, err
	}
	fs := FullSample{
		Values:      values,
		Complete:    make([]bool, n),
		TimeEnabled: time.Duration(enabled),
		TimeRunning: time.Duration(running),
	}
	for i, b := range complete {
		fs.Complete[i] = b != 0
	}
	return fs, nil
}

func quote(s string) string { return strconv.Quote(s) }
