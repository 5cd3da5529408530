//go:build linux

package kpc

import (
	"errors"
	"testing"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// kp_sampler_counter_count returns KP_EUNSUPPORTED (both counts 0) when the OS does not tell
// how many counters there are (arm64 with the probe forbidden, an unknown PMU). The sampler
// still counts, so NewSampler must not fail for it; any other failure still fails it.
func TestErrorsCounterCountUnknownKeepsTheSampler(t *testing.T) {
	real := counterCount
	defer func() { counterCount = real }()

	counterCount = func(fixed, configurable *uint32, h ckpc.Kp_sampler) int {
		*fixed, *configurable = 0, 0
		return int(ckpc.KP_EUNSUPPORTED)
	}
	s, err := NewSampler(&Options{Backend: BackendPerfEvent})
	if err != nil {
		t.Fatalf("NewSampler with an unknown counter count: %v; want a usable sampler", err)
	}
	defer s.Close()
	// Unknown is an error, never a made-up 0 and 0 that reads as "no counters".
	if f, c, err := s.Counters(); !errors.Is(err, ErrUnsupported) || f != 0 || c != 0 {
		t.Errorf("Counters() = %d, %d, %v; want 0, 0 and ErrUnsupported (unknown)", f, c, err)
	}

	counterCount = func(fixed, configurable *uint32, h ckpc.Kp_sampler) int {
		return int(ckpc.KP_EINVAL)
	}
	if _, err := NewSampler(&Options{Backend: BackendPerfEvent}); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewSampler when the counter count fails otherwise: %v; want ErrInvalid", err)
	}
}
