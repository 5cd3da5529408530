package kpc

import (
	"testing"

	"github.com/libkpc/libkpc/bindings/go/internal/ckpc"
)

// The hand-written Scope constants must keep kp_process_scope_t's values.
func TestProcessScopeValuesMatchC(t *testing.T) {
	for _, c := range []struct {
		name string
		got  Scope
		c    ckpc.Enum_SS_kp_process_scope
	}{
		{"KP_PROCESS_SCOPE_TREE", ScopeTree, ckpc.KP_PROCESS_SCOPE_TREE},
		{"KP_PROCESS_SCOPE_PROCESS", ScopeProcess, ckpc.KP_PROCESS_SCOPE_PROCESS},
		{"KP_PROCESS_SCOPE_SYSTEM", ScopeSystem, ckpc.KP_PROCESS_SCOPE_SYSTEM},
	} {
		if int(c.got) != int(c.c) {
			t.Errorf("%s: Go %d, C %d", c.name, int(c.got), int(c.c))
		}
	}
}
