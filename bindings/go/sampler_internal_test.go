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
	if f, c := s.Counters(); f != 0 || c != 0 {
		t.Errorf("Counters() = %d, %d; want 0, 0 (unknown)", f, c)
	}

	counterCount = func(fixed, configurable *uint32, h ckpc.Kp_sampler) int {
		return int(ckpc.KP_EINVAL)
	}
	if _, err := NewSampler(&Options{Backend: BackendPerfEvent}); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewSampler when the counter count fails otherwise: %v; want ErrInvalid", err)
	}
}
