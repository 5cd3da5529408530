package kpc

import (
	"testing"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// The Status constants are written out by hand; they must equal the C enum SWIG sees.
func TestErrorsStatusValuesMatchC(t *testing.T) {
	pairs := []struct {
		name string
		got  Status
		c    ckpc.Enum_SS_kp_status
	}{
		{"KP_OK", StatusOK, ckpc.KP_OK},
		{"KP_ERROR", ErrInternal, ckpc.KP_ERROR},
		{"KP_EINVAL", ErrInvalid, ckpc.KP_EINVAL},
		{"KP_ENOMEM", ErrNoMemory, ckpc.KP_ENOMEM},
		{"KP_ELOAD", ErrLoad, ckpc.KP_ELOAD},
		{"KP_EPERM", ErrPermission, ckpc.KP_EPERM},
		{"KP_EBUSY", ErrBusy, ckpc.KP_EBUSY},
		{"KP_EUNSUPPORTED", ErrUnsupported, ckpc.KP_EUNSUPPORTED},
		{"KP_EUNKNOWN_EVENT", ErrUnknownEvent, ckpc.KP_EUNKNOWN_EVENT},
		{"KP_EUNAVAILABLE", ErrUnavailable, ckpc.KP_EUNAVAILABLE},
		{"KP_ECONFLICT", ErrConflict, ckpc.KP_ECONFLICT},
		{"KP_EWRONG_THREAD", ErrWrongThread, ckpc.KP_EWRONG_THREAD},
		{"KP_ESTATE", ErrState, ckpc.KP_ESTATE},
		{"KP_ELAYOUT", ErrLayout, ckpc.KP_ELAYOUT},
		{"KP_EFRAMEWORK", ErrFramework, ckpc.KP_EFRAMEWORK},
		{"KP_EKERNEL", ErrKernel, ckpc.KP_EKERNEL},
		{"KP_EBUFSIZE", ErrBufferSize, ckpc.KP_EBUFSIZE},
		{"KP_EPARTIAL", ErrPartial, ckpc.KP_EPARTIAL},
		{"KP_EEXEC", ErrExec, ckpc.KP_EEXEC},
	}
	for _, p := range pairs {
		if int(p.got) != int(p.c) {
			t.Errorf("%s: Go constant %d, C value %d", p.name, int(p.got), int(p.c))
		}
	}
	kinds := []struct {
		got Kind
		c   ckpc.Enum_SS_kp_event_kind
	}{{Fixed, ckpc.KP_EVENT_FIXED}, {Configurable, ckpc.KP_EVENT_CONFIGURABLE}, {Software, ckpc.KP_EVENT_SOFTWARE}}
	for _, k := range kinds {
		if int(k.got) != int(k.c) {
			t.Errorf("Kind %v: Go %d, C %d", k.got, int(k.got), int(k.c))
		}
	}
	units := []struct {
		got Unit
		c   ckpc.Enum_SS_kp_event_unit
	}{{Count, ckpc.KP_EVENT_UNIT_COUNT}, {Nanoseconds, ckpc.KP_EVENT_UNIT_NANOSECONDS}}
	for _, u := range units {
		if int(u.got) != int(u.c) {
			t.Errorf("Unit %v: Go %d, C %d", u.got, int(u.got), int(u.c))
		}
	}
	backends := []struct {
		got Backend
		c   ckpc.Enum_SS_kp_backend
	}{{BackendAuto, ckpc.KP_BACKEND_AUTO}, {BackendKperf, ckpc.KP_BACKEND_KPERF}, {BackendPerfEvent, ckpc.KP_BACKEND_PERF_EVENT}}
	for _, b := range backends {
		if int(b.got) != int(b.c) {
			t.Errorf("Backend %d: C %d", int(b.got), int(b.c))
		}
	}
}
