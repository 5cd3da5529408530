package kpc

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// Status is a libkpc status code: the kp_status values of include/kpc/errors.h, which never
// change. Every negative Status is an error whose text is kp_strerror's short description;
// the functions of this package return them wrapped in an *Error that adds the detailed
// message, so test for a code with errors.Is:
//
//	if errors.Is(err, kpc.ErrUnavailable) { ... }
//
// Status values are comparable and safe to use from any goroutine.
type Status int

// The status codes, with the values of kp_status (include/kpc/errors.h).
const (
	StatusOK        Status = 0   // KP_OK: success; never returned as an error
	ErrInternal     Status = -1  // KP_ERROR: internal error not covered by another code
	ErrInvalid      Status = -2  // KP_EINVAL: invalid argument (no events, duplicate name, ...)
	ErrNoMemory     Status = -3  // KP_ENOMEM: out of memory
	ErrLoad         Status = -4  // KP_ELOAD: a framework or symbol could not be loaded
	ErrPermission   Status = -5  // KP_EPERM: not root (macOS) or perf_event_paranoid too strict (Linux)
	ErrBusy         Status = -6  // KP_EBUSY: the counters are held by another tool or process
	ErrUnsupported  Status = -7  // KP_EUNSUPPORTED: no PMU, unknown CPU, or backend not built
	ErrUnknownEvent Status = -8  // KP_EUNKNOWN_EVENT: no event of that name
	ErrUnavailable  Status = -9  // KP_EUNAVAILABLE: the event exists but cannot be counted here
	ErrConflict     Status = -10 // KP_ECONFLICT: the events cannot be counted together
	ErrWrongThread  Status = -11 // KP_EWRONG_THREAD: Counters used off the OS thread that created them
	ErrState        Status = -12 // KP_ESTATE: not started yet, or the sampler was released
	ErrLayout       Status = -13 // KP_ELAYOUT: an Apple framework struct layout is not understood
	ErrFramework    Status = -14 // KP_EFRAMEWORK: Apple's kperfdata returned an error
	ErrKernel       Status = -15 // KP_EKERNEL: the kernel refused an operation
	ErrBufferSize   Status = -16 // KP_EBUFSIZE: a caller buffer is too small
	// KP_EPARTIAL: the kernel multiplexed the handle's events: the values are partial (use
	// SampleFull for the scaling times). Counters.Sample and Calibrate return it as an error.
	ErrPartial Status = -17
	// KP_EEXEC: the command of SpawnProcess could not be executed (not found, not
	// executable); Error.OSCode is the exec's errno (ENOENT when not found).
	ErrExec Status = -18
)

// Error returns kp_strerror's static description of the code, e.g. "unknown event".
func (s Status) Error() string {
	return ckpc.Kp_strerror(int(s))
}

// ErrClosed is returned (wrapped) by every method of a Sampler, Counters or Process that
// needs the native handle after Close was called: no native call is ever made on a freed
// handle.
var ErrClosed = errors.New("kpc: use of a closed Sampler, Counters or Process")

// Error is a failure reported by libkpc: the status code, the detailed message libkpc
// recorded for it (naming the cause and, where there is one, the fix), and the OS or
// framework code attached to it (errno or a kpep code; 0 when there is none).
//
// errors.Is(err, kpc.ErrUnknownEvent) and errors.As(err, &status) work through Unwrap.
type Error struct {
	Status  Status // the kp_status code; always negative
	Message string // kp_error_last_message() read right after the failing call; may be ""
	OSCode  int    // kp_error_last_os_code(): errno or kpep code, 0 when none
}

// Error formats the failure as "kpc: <message> (<status text>)".
func (e *Error) Error() string {
	if e.Message == "" {
		return "kpc: " + e.Status.Error()
	}
	return "kpc: " + e.Message + " (" + e.Status.Error() + ")"
}

// Unwrap returns the Status, so errors.Is(err, kpc.ErrBusy) matches on the code.
func (e *Error) Unwrap() error { return e.Status }

// Is reports whether target is the same Status, or an *Error with the same Status.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Status:
		return e.Status == t
	case *Error:
		return t != nil && e.Status == t.Status
	}
	return false
}

// lastError builds the *Error for a failed call that returned rc. It must run on the OS
// thread that made the failing call, before any other kp_ call on that thread: callers hold
// runtime.LockOSThread() around the call and this read (see callChecked).
func lastError(rc int) *Error {
	return &Error{
		Status:  Status(rc),
		Message: ckpc.Kp_error_last_message(),
		OSCode:  ckpc.Kp_error_last_os_code(),
	}
}

// callChecked runs one native call and, if it fails, reads libkpc's thread-local message
// on the same OS thread. LockOSThread calls nest, so a caller that locked its goroutine
// itself (as Counters require) stays locked afterwards.
func callChecked(call func() int) error {
	runtime.LockOSThread()
	rc := call()
	var err *Error
	if rc != 0 {
		err = lastError(rc)
	}
	runtime.UnlockOSThread()
	if err != nil {
		return err
	}
	return nil
}

// wrongThreadAdvice adds the Go rule to libkpc's KP_EWRONG_THREAD message. It runs on the
// OS thread of the failing call (inside its LockOSThread section).
func wrongThreadAdvice(e *Error, createdOn int) {
	where := ""
	if now := osThreadID(); createdOn > 0 && now > 0 {
		where = fmt.Sprintf(" (created on OS thread %d, used on OS thread %d)", createdOn, now)
	}
	e.Message += "; in Go, call runtime.LockOSThread() before NewCounters and keep the " +
		"goroutine locked until Close" + where
}

// closedError reports use of a closed object by the method op ("Sampler.FindEvent").
func closedError(op string) error {
	return fmt.Errorf("kpc: %s: %w", op, ErrClosed)
}
