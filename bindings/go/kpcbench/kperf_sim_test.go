//go:build linux

package kpcbench

import (
	"os"
	"testing"
)

// CTest's go_kpcbench_kperf_sim runs this with KPC_BACKEND=kperf and the simulator of
// Apple's frameworks (tests/kperf_sim); without them it skips.
func TestKperfSimCycles(t *testing.T) {
	if os.Getenv("KPC_BACKEND") != "kperf" || os.Getenv("KPC_KPERF_PATH") == "" {
		t.Skip("needs the kperf simulator: run `ctest -R go_kpcbench_kperf_sim`")
	}
	var sink uint64
	r := testing.Benchmark(func(b *testing.B) {
		Open(b, "cycles", "instructions")
		for i := 0; i < b.N; i++ {
			for j := uint64(0); j < 1000; j++ {
				sink = sink*31 + j
			}
		}
	})
	_ = sink
	if r.N < 1 {
		t.Fatalf("the benchmark did not run (N = %d)", r.N)
	}
	for _, m := range []string{"cycles/op", "instructions/op"} {
		if v, ok := r.Extra[m]; !ok || v <= 0 {
			t.Errorf("%s = %v (reported: %v), want > 0 on the simulated Apple PMU", m, v, ok)
		}
	}
	t.Logf("N=%d: %v", r.N, r.Extra)
}

// On Apple's kperf backend a process count covers every CPU; OpenProcess says so and
// still reports the counts.
func TestKperfSimOpenProcess(t *testing.T) {
	if os.Getenv("KPC_BACKEND") != "kperf" || os.Getenv("KPC_KPERF_PATH") == "" {
		t.Skip("needs the kperf simulator: run `ctest -R go_kpcbench_kperf_sim`")
	}
	f := newFake(t)
	openProcess(f, func() int { return 10 }, []string{"cycles", "instructions"})
	touchPagesIn(t, 2, 10, 8)
	f.finish()
	for _, m := range []string{"cycles/op", "instructions/op"} {
		if v, ok := f.metrics[m]; !ok || v <= 0 {
			t.Errorf("%s = %v (reported: %v), want > 0 on the simulated Apple PMU; logs %q", m, v, ok, f.logs)
		}
	}
	if !f.logged(`"cycles" counts every CPU of the machine here`) {
		t.Errorf("the system-wide scope is not logged: %q", f.logs)
	}
	t.Logf("metrics %v, logs %q", f.metrics, f.logs)
}
