package kpc

import (
	"errors"
	"runtime"
	"strings"
	"sync"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// Backend selects how libkpc reaches the counters (kp_backend_t).
type Backend int

// The backends, with the values of kp_backend_t.
const (
	// BackendAuto uses $KPC_BACKEND if set, else the platform's own backend (kperf on macOS,
	// perf_event on Linux).
	BackendAuto Backend = 0
	// BackendKperf uses Apple's private kperf/kperfdata frameworks, loaded with dlopen.
	BackendKperf Backend = 1
	// BackendPerfEvent uses Linux perf_event_open.
	BackendPerfEvent Backend = 2
	// BackendRecount uses macOS's per-thread counts without root (cycles, instructions, P/E).
	BackendRecount Backend = 3
)

// Options configure NewSampler. The zero value (or a nil *Options) means defaults.
type Options struct {
	// Backend to load; BackendAuto (the zero value) consults $KPC_BACKEND, then the platform.
	Backend Backend
	// KperfPath is the kperf framework binary; "" means $KPC_KPERF_PATH, then Apple's path.
	KperfPath string
	// KperfdataPath is the kperfdata framework binary; "" means $KPC_KPERFDATA_PATH, then
	// Apple's path.
	KperfdataPath string
}

// Sampler is a counting session (kp_sampler_t): the backend, the CPU's identity, its event
// database and, on Apple, ownership of the hardware counters. Create one per process with
// NewSampler and count through Counters made with NewCounters.
//
// Ownership: the Sampler owns a native handle. Call Close when done; that is the rule. A
// finalizer frees a forgotten handle, but only as a safety net: it runs late or never, and
// on Apple the counters stay taken until it does. Counters made from the Sampler keep the
// native session alive, so closing the Sampler first is safe: they keep counting until
// their own Close.
//
// Thread rules: every method may be called from any goroutine, concurrently; Close waits
// for calls in progress.
type Sampler struct {
	mu sync.RWMutex
	h  ckpc.Kp_sampler // nil once closed

	// Fixed for the session's life, so copied once and readable after Close.
	backend      Backend
	backendName  string
	reason       string
	cpuID        string
	cpuName      string
	pmuName      string
	fixed        int
	configurable int
	countsErr    error // ErrUnsupported when the OS does not tell the counter count
}

// counterCount is kp_sampler_counter_count; a variable so that a test can give the answer
// of a machine whose counter count the OS does not tell.
var counterCount = ckpc.Kp_sampler_counter_count

// NewSampler opens a session (kp_sampler_new). opts may be nil for all defaults.
//
// Errors (*Error, match with errors.Is): ErrInvalid (bad backend or $KPC_BACKEND value),
// ErrUnsupported (backend not built for this platform), ErrLoad (framework or symbol
// missing; the message names it), ErrLayout, ErrFramework, ErrNoMemory. A missing
// permission does not fail here; see Access. The caller owns the Sampler and must Close it.
func NewSampler(opts *Options) (*Sampler, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	for _, p := range []string{o.KperfPath, o.KperfdataPath} {
		if strings.IndexByte(p, 0) >= 0 {
			return nil, &Error{Status: ErrInvalid, Message: "kpc.NewSampler: a framework path contains a NUL byte"}
		}
	}
	var h ckpc.Kp_sampler
	err := callChecked(func() int {
		return ckpc.Kpgo_sampler_new(&h, int(o.Backend), o.KperfPath, o.KperfdataPath)
	})
	if err != nil {
		return nil, err
	}
	s := &Sampler{
		h:           h,
		backend:     Backend(ckpc.Kp_sampler_backend(h)),
		backendName: ckpc.Kp_sampler_backend_name(h),
		reason:      ckpc.Kp_sampler_backend_reason(h),
		cpuID:       ckpc.Kp_sampler_cpu_id(h),
		cpuName:     ckpc.Kp_sampler_cpu_name(h),
		pmuName:     ckpc.Kp_sampler_pmu_name(h),
	}
	var fixed, configurable uint32
	// ErrUnsupported: the OS does not tell the count; the sampler still counts, and Counters
	// returns that error instead of a number.
	err = callChecked(func() int { return counterCount(&fixed, &configurable, h) })
	if err != nil && !errors.Is(err, ErrUnsupported) {
		ckpc.Kp_sampler_free(h)
		return nil, err
	}
	s.fixed, s.configurable, s.countsErr = int(fixed), int(configurable), err
	runtime.SetFinalizer(s, (*Sampler).free)
	return s, nil
}

// free is the finalizer: it releases a handle the program forgot to Close.
func (s *Sampler) free() {
	if s.h != nil {
		ckpc.Kp_sampler_free(s.h)
		s.h = nil
	}
}

// Close frees the native session handle (kp_sampler_free). It is idempotent: later calls
// return nil. Counters made from this Sampler stay usable until they are closed. After
// Close, methods that need the handle return an error wrapping ErrClosed; the identity
// getters (BackendName, CPUName, ...) keep returning their copied values.
func (s *Sampler) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h != nil {
		ckpc.Kp_sampler_free(s.h)
		s.h = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// Backend returns the backend in use (BackendKperf, BackendPerfEvent or BackendRecount).
func (s *Sampler) Backend() Backend { return s.backend }

// BackendName returns "kperf", "perf_event" or "recount". Copied at creation; valid after
// Close.
func (s *Sampler) BackendName() string { return s.backendName }

// BackendReason says why the session uses its backend (kp_sampler_backend_reason), e.g.
// "named by KPC_BACKEND" or, on macOS, why recount was chosen instead of kperf. Copied at
// creation; valid after Close.
func (s *Sampler) BackendReason() string { return s.reason }

// CPUID returns the machine-readable CPU / event-database id: the kpep database name on
// Apple ("a14", ...), "<vendor>-<family>-<model>" on Linux. Valid after Close.
func (s *Sampler) CPUID() string { return s.cpuID }

// CPUName returns the human CPU name ("Apple M1", or /proc/cpuinfo's model name).
// Valid after Close.
func (s *Sampler) CPUName() string { return s.cpuName }

// PMUName describes the PMU ("Apple PMU (a14, M1 generation)", "cpu"), or "none" when the
// machine has no usable hardware PMU. Valid after Close.
func (s *Sampler) PMUName() string { return s.pmuName }

// Counters returns the number of fixed and configurable hardware counters (0 and 0 without a
// PMU). When the OS does not tell how many there are (kp_sampler_counter_count's
// KP_EUNSUPPORTED) it returns 0, 0 and an *Error matching ErrUnsupported whose message says
// why: the counts are then unknown, not zero. Valid after Close.
func (s *Sampler) Counters() (fixed, configurable int, err error) {
	if s.countsErr != nil {
		return 0, 0, s.countsErr
	}
	return s.fixed, s.configurable, nil
}

// Access reports whether this process may count hardware events now (kp_sampler_access):
// nil if it may, else an *Error with the code NewCounters would return for a hardware event
// (ErrPermission, ErrBusy, ErrUnsupported, ErrState after Release) and a message saying
// what to do. Software events do not need it. Returns an error wrapping ErrClosed after Close.
func (s *Sampler) Access() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == nil {
		return closedError("Sampler.Access")
	}
	h := s.h
	return callChecked(func() int { return ckpc.Kp_sampler_access(h) })
}

// Release gives the hardware counters back while keeping the event database readable
// (kp_sampler_release): counting of this session's Counters stops in the kernel and their
// later Start/Sample, like NewCounters, fail with ErrState. Idempotent. It may return
// ErrKernel when the OS refused to restore a setting (the release still takes effect).
// Returns an error wrapping ErrClosed after Close.
func (s *Sampler) Release() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == nil {
		return closedError("Sampler.Release")
	}
	h := s.h
	return callChecked(func() int { return ckpc.Kp_sampler_release(h) })
}

// Events returns a copy of the event database, available or not. It returns nil after
// Close. The database grows when FindEvent resolves a raw or libpfm4 name.
func (s *Sampler) Events() []Event {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == nil {
		return nil
	}
	n := ckpc.Kp_sampler_event_count(s.h)
	events := make([]Event, 0, n)
	for i := int64(0); i < n; i++ {
		e := ckpc.Kp_sampler_event_at(s.h, i)
		if e == nil || e.Swigcptr() == 0 {
			break
		}
		events = append(events, eventFrom(e))
	}
	return events
}

// FindEvent looks an event up by generic or native name (kp_sampler_event_find). Finding
// an event does not mean it can be counted: check Event.Available.
//
// Errors: ErrUnknownEvent (the message names the event and suggests close names),
// ErrInvalid (name contains a NUL byte), ErrNoMemory; an error wrapping ErrClosed after Close.
func (s *Sampler) FindEvent(name string) (Event, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == nil {
		return Event{}, closedError("Sampler.FindEvent")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return Event{}, &Error{Status: ErrInvalid, Message: "kpc: event name " + quote(name) + " contains a NUL byte"}
	}
	h := s.h
	var e ckpc.Kp_event
	if err := callChecked(func() int { return ckpc.Kp_sampler_event_find(&e, h, name) }); err != nil {
		return Event{}, err
	}
	return eventFrom(e), nil
}
