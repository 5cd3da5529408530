package kpc

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// Scope says what one event of a Process covers (kp_process_scope_t).
type Scope int

// The scopes, with the values of kp_process_scope_t.
const (
	// ScopeTree (Linux): the process, every thread of it, and the threads and processes it
	// creates while counted.
	ScopeTree Scope = 0
	// ScopeProcess (Apple recount): the process and its threads, not the processes it
	// starts; the kernel's own accounting of the process.
	ScopeProcess Scope = 1
	// ScopeSystem (Apple kperf, and CountSystemWide everywhere): every CPU of the machine,
	// so everything else that ran meanwhile is included.
	ScopeSystem Scope = 2
)

// String returns "tree", "process", "system", or "Scope(n)".
func (s Scope) String() string {
	switch s {
	case ScopeTree:
		return "tree"
	case ScopeProcess:
		return "process"
	case ScopeSystem:
		return "system"
	}
	return "Scope(" + strconv.Itoa(int(s)) + ")"
}

// ExitStatus is how a spawned command ended (Process.Wait).
type ExitStatus struct {
	Code   int // the exit status (0-255) if it exited; -1 if a signal killed it
	Signal int // the signal that killed it; 0 if it exited
}

// Success reports whether the command exited with status 0.
func (e ExitStatus) Success() bool { return e.Code == 0 && e.Signal == 0 }

// String returns "exit status N" or "signal N".
func (e ExitStatus) String() string {
	if e.Signal != 0 {
		return "signal " + strconv.Itoa(e.Signal)
	}
	return "exit status " + strconv.Itoa(e.Code)
}

// ProcessSample is the result of Process.ReadFull; every slice is in event order.
type ProcessSample struct {
	// Values are the running totals.
	Values []uint64
	// Complete[i] is false when the kernel multiplexed event i: its value then covers only
	// TimeRunning[i] of TimeEnabled[i] (scale by their ratio to estimate); also when it is
	// not counted at all (ProcessOptions.Partial, see Process.EventStatus; value 0), and on
	// Apple's recount backend when an attached process ended and was reaped before its final
	// totals were read (the value is then the last totals read).
	Complete []bool
	// TimeEnabled[i] is how long event i was enabled, summed over the threads it counted (so
	// it can exceed the wall-clock time); 0 when the backend does not measure it (Apple).
	TimeEnabled []time.Duration
	// TimeRunning[i] is how long it was on a counter, summed likewise; 0 likewise.
	TimeRunning []time.Duration
}

// Process is a set of events counted for a whole process (kp_process_t): every thread of
// it, and on Linux the threads and processes it starts (Scopes says what each event
// covers). Made by Sampler.CountProcess (this Go program: every goroutine, whichever OS
// thread it runs on), Sampler.AttachProcess (a running process), Sampler.SpawnProcess (a
// command, counted from its exec), their ...With forms taking ProcessOptions, or
// Sampler.CountSystemWide (every CPU). It counts from the moment it is made; Stop pauses
// and Start resumes.
//
// Unlike Counters, a Process needs no runtime.LockOSThread: every method may be called
// from any goroutine, concurrently, and one goroutine may Wait while others Read, Stop or
// Start.
//
// Ownership: Close frees the native handle; a spawned command that has not been waited
// for is killed (SIGKILL) and reaped then, so no process or zombie outlives it. An attached
// process keeps running, no longer counted. A finalizer frees a forgotten handle as a
// safety net only. The handle keeps its Sampler's session alive.
type Process struct {
	// Every native call holds mu for reading (libkpc serializes calls on the handle itself
	// and lets a wait run beside the others); Close holds it for writing, so the handle is
	// never freed under a call in progress.
	mu sync.RWMutex
	// readMu serializes the reads with EventStatus: a read may replace the reason text that
	// kp_process_event_status lends until the next read. Wait does not take it.
	readMu  sync.Mutex
	h       ckpc.Kp_process // nil once closed
	events  []Event         // copied at creation
	scopes  []Scope
	pid     int
	threads int // kp_process_thread_count, fixed at creation
}

// CountProcess counts the named events in this whole process from now on
// (kp_process_attach with pid 0): every goroutine, on whichever OS thread the scheduler
// runs it, and the runtime's own threads, including threads created later. Errors as for
// AttachProcess.
func (s *Sampler) CountProcess(names ...string) (*Process, error) {
	return s.newProcess("Sampler.CountProcess", names, func(out *ckpc.Kp_process, h ckpc.Kp_sampler) int {
		return ckpc.Kp_process_attach(out, h, names, 0)
	})
}

// AttachProcess counts the named events in the running process pid from now on
// (kp_process_attach); pid 0 is this process (see CountProcess).
//
// Errors (*Error): ErrInvalid (no names, more than MaxEvents, a name twice, a NUL byte, a negative
// pid, or no process pid: OSCode is ESRCH), ErrPermission (not allowed to count it: the
// message says what to change; Apple recount: it runs as another user), ErrUnknownEvent,
// ErrUnavailable, ErrBusy, ErrUnsupported (the backend cannot count a process, e.g.
// recount's cycles in a macOS VM), ErrState (sampler released), ErrKernel (too many open
// files: one per thread and event), ErrFramework, ErrNoMemory; an error wrapping ErrClosed
// after the Sampler's Close. The caller owns the Process and must Close it.
func (s *Sampler) AttachProcess(pid int, names ...string) (*Process, error) {
	return s.newProcess("Sampler.AttachProcess", names, func(out *ckpc.Kp_process, h ckpc.Kp_sampler) int {
		return ckpc.Kp_process_attach(out, h, names, pid)
	})
}

// SpawnProcess starts the command argv (argv[0] is looked up in PATH) and counts the named
// events in it from its exec on (kp_process_spawn). It returns once the command runs; it
// inherits this process's environment, working directory and file descriptors not marked
// close-on-exec (Go's own are). Wait for it with Wait; do not reap it otherwise.
//
// Errors (*Error): ErrInvalid (an empty argv, a NUL byte, a bad event list, or the command
// cannot be run: the message names the program and the exec error, OSCode its errno),
// ErrUnknownEvent, ErrUnavailable, ErrPermission, ErrBusy, ErrUnsupported, ErrState,
// ErrKernel, ErrFramework, ErrNoMemory; an error wrapping ErrClosed after the Sampler's
// Close. The caller owns the Process and must Close it.
func (s *Sampler) SpawnProcess(argv []string, names ...string) (*Process, error) {
	return s.spawnProcess("Sampler.SpawnProcess", ProcessOptions{}, argv, names)
}

// newProcess runs one kp_process_* constructor and wraps its handle.
func (s *Sampler) newProcess(op string, names []string, create func(*ckpc.Kp_process, ckpc.Kp_sampler) int) (*Process, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.h == nil {
		return nil, closedError(op)
	}
	for _, n := range names {
		if strings.IndexByte(n, 0) >= 0 {
			return nil, &Error{Status: ErrInvalid, Message: "kpc: event name " + quote(n) + " contains a NUL byte"}
		}
	}
	var h ckpc.Kp_process
	if err := callChecked(func() int { return create(&h, s.h) }); err != nil {
		return nil, err
	}
	n := ckpc.Kp_process_event_count(h)
	p := &Process{h: h, pid: ckpc.Kp_process_pid(h), threads: threadCount(h.Swigcptr())}
	for i := int64(0); i < n; i++ {
		p.events = append(p.events, eventFrom(ckpc.Kp_process_event_at(h, i)))
		p.scopes = append(p.scopes, Scope(ckpc.Kp_process_event_scope(h, i)))
	}
	runtime.SetFinalizer(p, (*Process).free)
	return p, nil
}

// free is the finalizer; kp_process_free may run on any thread.
func (p *Process) free() {
	if p.h != nil {
		ckpc.Kp_process_free(p.h)
		p.h = nil
	}
}

// Close stops counting and frees the native handle (kp_process_free), once calls in
// progress have returned (a Wait included). A spawned command that has not been waited for
// is killed and reaped; to end one early and still read its totals, signal it
// (syscall.Kill(p.Pid(), ...)) and Wait. Idempotent: later calls return nil. Afterwards the
// methods that need the handle return an error wrapping ErrClosed; Events, Scopes and Pid
// still return their copies.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.h != nil {
		ckpc.Kp_process_free(p.h)
		p.h = nil
		runtime.SetFinalizer(p, nil)
	}
	return nil
}

// call runs f on the live handle under the read lock, reading libkpc's error on the same
// OS thread when it fails.
func (p *Process) call(op string, f func(ckpc.Kp_process) int) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.h == nil {
		return closedError(op)
	}
	return callChecked(func() int { return f(p.h) })
}

// callRead is call for the reads and EventStatus, which take turns on readMu.
func (p *Process) callRead(op string, f func(ckpc.Kp_process) int) error {
	p.readMu.Lock()
	defer p.readMu.Unlock()
	return p.call(op, f)
}

// Pid returns the counted process's id (this program's own for CountProcess; -1 for
// CountSystemWide).
func (p *Process) Pid() int { return p.pid }

// Events returns copies of the counted events, in the order given (the order of Read's
// values). Valid after Close.
func (p *Process) Events() []Event { return append([]Event(nil), p.events...) }

// Scopes returns what each event covers, in event order. Valid after Close.
func (p *Process) Scopes() []Scope { return append([]Scope(nil), p.scopes...) }

// Len returns the number of events, i.e. how many values Read returns.
func (p *Process) Len() int { return len(p.events) }

// IsCounting reports whether counting is on (made, and not stopped); false after Close.
func (p *Process) IsCounting() bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.h != nil && ckpc.Kp_process_is_counting(p.h) != 0
}

// Start resumes counting after Stop (kp_process_start); idempotent.
//
// Errors: ErrState (sampler released), ErrPermission (recount: the process now runs as
// another user), ErrBusy (Apple kperf), ErrKernel; an error wrapping ErrClosed after Close.
func (p *Process) Start() error {
	return p.call("Process.Start", ckpc.Kp_process_start)
}

// Stop pauses counting in every thread and child of the process (kp_process_stop); the
// totals stay readable. Idempotent.
//
// Errors: ErrKernel; on recount ErrPermission or ErrKernel when the totals could not be
// read at the stop (it stops anyway, keeping the totals last read, not Complete); an error
// wrapping ErrClosed after Close.
func (p *Process) Stop() error {
	return p.call("Process.Stop", ckpc.Kp_process_stop)
}

// Read returns the running totals, in the order the events were given (kp_process_read),
// while the process runs and after it has ended (they then stay as they were at its end;
// on Apple's recount backend, an attached process that its parent reaped before its final
// totals were read keeps the totals last read, and ReadFull reports them not Complete).
// An event not counted (ProcessOptions.Partial; see EventStatus) reads 0.
//
// Errors: ErrState (sampler released), ErrPermission (recount: the process runs as another
// user, e.g. a setuid command), ErrKernel; an error wrapping ErrClosed after Close.
func (p *Process) Read() ([]uint64, error) {
	values := make([]uint64, len(p.events))
	if err := p.callRead("Process.Read", func(h ckpc.Kp_process) int {
		return ckpc.Kp_process_read(h, values, int64(len(values)))
	}); err != nil {
		return nil, err
	}
	return values, nil
}

// ReadFull is Read plus, per event, whether it was multiplexed and its enabled and running
// times (kp_process_read_full). Errors as for Read.
func (p *Process) ReadFull() (ProcessSample, error) {
	n := len(p.events)
	values, complete := make([]uint64, n), make([]byte, n)
	enabled, running := make([]uint64, n), make([]uint64, n)
	if err := p.callRead("Process.ReadFull", func(h ckpc.Kp_process) int {
		return readFull(h.Swigcptr(), values, complete, enabled, running)
	}); err != nil {
		return ProcessSample{}, err
	}
	ps := ProcessSample{Values: values, Complete: make([]bool, n),
		TimeEnabled: make([]time.Duration, n), TimeRunning: make([]time.Duration, n)}
	for i := range values {
		ps.Complete[i] = complete[i] != 0
		ps.TimeEnabled[i] = time.Duration(enabled[i])
		ps.TimeRunning[i] = time.Duration(running[i])
	}
	return ps, nil
}

// Wait waits for a spawned command to end and reaps it (kp_process_wait); once it has, it
// returns the same result at once. Counting is left as it is: Read the totals afterwards.
// Other goroutines may Read, Stop and Start meanwhile; Close waits for it to return.
//
// Errors: ErrState (an attached process, which libkpc did not start; or the command was
// reaped by someone else), ErrKernel; an error wrapping ErrClosed after Close.
func (p *Process) Wait() (ExitStatus, error) {
	var code, sig int32
	if err := p.call("Process.Wait", func(h ckpc.Kp_process) int {
		return ckpc.Kp_process_wait(h, &code, &sig)
	}); err != nil {
		return ExitStatus{}, err
	}
	return ExitStatus{Code: int(code), Signal: int(sig)}, nil
}
