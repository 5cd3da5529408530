package kpc

import (
	"math"
	"strconv"
	"strings"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// ProcessOptions change how SpawnProcessWith, AttachProcessWith and CountSystemWideWith
// count (kp_process_options_t). The zero value is the default: SpawnProcessWith(
// ProcessOptions{}, ...) is SpawnProcess.
type ProcessOptions struct {
	// Partial: an event that cannot be counted (not on this machine, or the backend refused
	// it) does not fail the call. It reads 0 (ReadFull: Complete false) and EventStatus
	// says why. The call still fails when the backend can count none of the events, except
	// that a command whose events are all known to be unavailable here runs uncounted, so
	// that a tool reporting per event can still run it.
	Partial bool
	// Groups is nil, or one entry per event: its group number (>= 0), or -1 for none. The
	// events of one group are scheduled on the PMU together, so they count over the same
	// time (Linux: one perf_event group; Apple never multiplexes, so groups change nothing).
	// A group member on another PMU than its group is ErrConflict (with Partial, that
	// event's EventStatus). A number below -1 is ErrInvalid.
	Groups []int
}

// groups32 returns Groups as kp_process_options_t wants them, for n events: nil for none.
func (o ProcessOptions) groups32(op string, n int) ([]int32, error) {
	if o.Groups == nil {
		return nil, nil
	}
	if len(o.Groups) != n {
		return nil, &Error{Status: ErrInvalid, Message: op + ": ProcessOptions.Groups has " +
			strconv.Itoa(len(o.Groups)) + " entries for " + strconv.Itoa(n) +
			" events; give one per event (-1 for none), or nil"}
	}
	g := make([]int32, n)
	for i, v := range o.Groups {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, &Error{Status: ErrInvalid, Message: op + ": ProcessOptions.Groups[" +
				strconv.Itoa(i) + "] is " + strconv.Itoa(v) + "; give a group number >= 0 that fits in 32 bits, or -1 for none"}
		}
		g[i] = int32(v)
	}
	return g, nil
}

// partialFlag is the helpers' int for ProcessOptions.Partial (KP_PROCESS_PARTIAL when 1).
func (o ProcessOptions) partialFlag() int {
	if o.Partial {
		return 1
	}
	return 0
}

// SpawnProcessWith is SpawnProcess with options (kp_process_spawn_ex): with Partial, events
// that cannot be counted are reported by EventStatus instead of failing the call; Groups
// schedules events together.
//
// Errors as for SpawnProcess, plus ErrInvalid for Groups of the wrong length or a group
// number below -1, and ErrConflict for a group member on another PMU than its group
// (without Partial).
func (s *Sampler) SpawnProcessWith(opts ProcessOptions, argv []string, names ...string) (*Process, error) {
	return s.spawnProcess("Sampler.SpawnProcessWith", opts, argv, names)
}

// spawnProcess is SpawnProcess and SpawnProcessWith; op names the caller in errors.
func (s *Sampler) spawnProcess(op string, opts ProcessOptions, argv []string, names []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, &Error{Status: ErrInvalid, Message: op + ": argv is empty; give at least the program"}
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, &Error{Status: ErrInvalid, Message: op + ": argument " + quote(a) + " contains a NUL byte"}
		}
	}
	groups, err := opts.groups32(op, len(names))
	if err != nil {
		return nil, err
	}
	return s.newProcess(op, names, func(out *ckpc.Kp_process, h ckpc.Kp_sampler) int {
		return ckpc.Kpgo_process_spawn_ex(out, h, names, argv, opts.partialFlag(), groups)
	})
}

// AttachProcessWith is AttachProcess with options (kp_process_attach_ex); pid 0 is this
// process. Every CPU is CountSystemWideWith, not a pid here: a negative pid is ErrInvalid.
//
// Errors as for AttachProcess, plus those of ProcessOptions (see SpawnProcessWith).
func (s *Sampler) AttachProcessWith(opts ProcessOptions, pid int, names ...string) (*Process, error) {
	if pid < 0 || pid > math.MaxInt32 {
		return nil, &Error{Status: ErrInvalid, Message: "Sampler.AttachProcessWith: pid " + strconv.Itoa(pid) +
			" is not a process id; give one, 0 for this process, or use CountSystemWide for every CPU"}
	}
	return s.attachProcess("Sampler.AttachProcessWith", opts, pid, names)
}

// pidSystemWide is kp_process_attach_ex's pid for every CPU (KP_PROCESS_SYSTEM_WIDE).
const pidSystemWide = -1

// CountSystemWide counts the named events on every CPU of the machine, whatever runs there
// (this program, other processes, the kernel), from now on (kp_process_attach_ex with
// KP_PROCESS_SYSTEM_WIDE). Every event's scope is ScopeSystem; Pid is -1; Wait fails with
// ErrState; ThreadCount is 0. Read, Stop and Start work as for any Process.
//
// Linux: one counter per online CPU and event (CPUs brought online later are not counted).
// The kernel allows it with kernel.perf_event_paranoid <= 0, or to a process with
// CAP_PERFMON or CAP_SYS_ADMIN (root); otherwise ErrPermission, whose message names the
// setting. Apple: the kperf backend as root; the recount backend is ErrUnsupported.
//
// Errors as for AttachProcess. The caller owns the Process and must Close it.
func (s *Sampler) CountSystemWide(names ...string) (*Process, error) {
	return s.attachProcess("Sampler.CountSystemWide", ProcessOptions{}, pidSystemWide, names)
}

// CountSystemWideWith is CountSystemWide with options (see SpawnProcessWith).
func (s *Sampler) CountSystemWideWith(opts ProcessOptions, names ...string) (*Process, error) {
	return s.attachProcess("Sampler.CountSystemWideWith", opts, pidSystemWide, names)
}

// attachProcess is AttachProcessWith and CountSystemWide[With]; op names the caller.
func (s *Sampler) attachProcess(op string, opts ProcessOptions, pid int, names []string) (*Process, error) {
	groups, err := opts.groups32(op, len(names))
	if err != nil {
		return nil, err
	}
	return s.newProcess(op, names, func(out *ckpc.Kp_process, h ckpc.Kp_sampler) int {
		return ckpc.Kpgo_process_attach_ex(out, h, names, pid, opts.partialFlag(), groups)
	})
}

// EventStatus reports whether event i is counted (kp_process_event_status): nil when it
// is, else an *Error whose Status is the code it failed with (ErrUnavailable: this machine
// cannot count it) and whose Message says why, naming the fix where there is one. Only a
// Process made with ProcessOptions.Partial can have events that are not counted. The
// status is as known at the Process's creation or its last Read, ReadFull or ReadThread
// (some backends learn of a failure only when reading).
//
// An index out of range (negative included) returns an *Error with ErrInvalid, and a
// closed Process an error wrapping ErrClosed; neither says anything about an event.
func (p *Process) EventStatus(i int) error {
	var status int
	var reason string
	if err := p.callRead("Process.EventStatus", func(h ckpc.Kp_process) int {
		var rc int
		rc, status, reason = eventStatus(h.Swigcptr(), i)
		return rc
	}); err != nil {
		return err
	}
	if status == 0 {
		return nil
	}
	return &Error{Status: Status(status), Message: reason}
}
