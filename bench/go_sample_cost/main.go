// Command go_sample_cost measures what a sample costs from Go: kpc.Counters.Sample next to
// the bare C kp_thread_sample on the same thread, side by side in one run
// (docs/performance.md, "Go: the cost of a sample").
//
// Each round times, back to back and in alternating order, -reads calls of
//
//	C       kp_thread_sample in a C loop (no Go in between): the floor
//	cgo     one cgo call per sample, straight to kp_thread_sample (the least Go can do)
//	Sample  kpc.Counters.Sample(buf[:0]), the binding's hot path
//	empty   one cgo call of an empty C function (the price of crossing into C)
//	getppid the cheapest system call, in a C loop and one cgo call per call: what crossing
//	        cgo costs around any system call (after one, the CPU's return and branch
//	        predictors hold little for user space, which makes every frame dearer)
//
// and prints the median ns per call of each, the median over rounds of Sample/C and cgo/C
// (paired per round, which cancels load that changes between rounds) with their
// interquartile range, the absolute overhead per call (Sample minus the bare cgo call, and
// the bare cgo call minus C, paired per round: these stay meaningful when the C sample
// gets cheap and ratios to it grow), and the heap allocations of the Sample loops (must be
// 0, else it exits 1). Nothing is asserted on time.
//
// Run (from a build tree configured with CMake; CTest's go_sample_cost runs a short pass):
//
//	cd bench/go_sample_cost
//	PKG_CONFIG_PATH=<build>/bindings/go/pkgconfig/RelWithDebInfo go run . [-rounds 201] [-reads 1000] [-events task-clock,page-faults,context-switches]
package main

/*
#cgo pkg-config: kpc
#include <kpc/kpc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// CPU time of the calling thread: time other processes take from it on a busy machine is
// not counted, only what it ran.
static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// n calls of kp_thread_sample in C; the elapsed ns, or 0 when a call failed.
static uint64_t c_loop(kp_thread_t *t, uint64_t *buf, size_t count, long n) {
	uint64_t start = now_ns();
	for (long i = 0; i < n; i++)
		if (kp_thread_sample(t, buf, count) != KP_OK)
			return 0;
	return now_ns() - start;
}

static int c_sample(kp_thread_t *t, uint64_t *buf, size_t count) {
	return kp_thread_sample(t, buf, count);
}

static void c_empty(void) {}

// The same pair for the cheapest system call, to show what crossing cgo around any system
// call costs, apart from libkpc.
static uint64_t c_getppid_loop(long n) {
	uint64_t start = now_ns();
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return now_ns() - start;
}

static void c_getppid(void) { syscall(SYS_getppid); }
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"unsafe"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

func main() {
	rounds := flag.Int("rounds", 201, "rounds (each times every method once)")
	reads := flag.Int("reads", 1000, "calls per method and round")
	list := flag.String("events", "task-clock,page-faults,context-switches", "events, comma-separated")
	flag.Parse()
	events := strings.Split(*list, ",")
	if *rounds < 1 || *reads < 1 || len(events) > C.KP_MAX_EVENTS {
		fail("-rounds and -reads must be at least 1, and -events name at most %d events", C.KP_MAX_EVENTS)
	}
	// Both handles count the main goroutine's OS thread.
	runtime.LockOSThread()

	s, err := kpc.NewSampler(nil)
	if err != nil {
		fail("kpc.NewSampler: %v", err)
	}
	c, err := s.NewCounters(events...)
	if err != nil {
		fail("kpc NewCounters(%s): %v", *list, err)
	}
	if err := c.Start(); err != nil {
		fail("Counters.Start: %v", err)
	}
	t := openC(events)
	n := C.size_t(len(events))
	cbuf := (*C.uint64_t)(C.calloc(n, 8))
	buf := make([]uint64, 0, len(events))

	var tC, tCgo, tGo, tEmpty, tSysC, tSysCgo, rGo, rCgo, rSys, dGo, dCgo []float64
	var mallocs uint64
	var ms runtime.MemStats
	for r := 0; r < *rounds; r++ {
		var nsC, nsCgo, nsGo, nsEmpty, nsSysC, nsSysCgo float64
		cLoop := func() {
			el := C.c_loop(t, cbuf, n, C.long(*reads))
			if el == 0 {
				fail("kp_thread_sample failed in C")
			}
			nsC = float64(el) / float64(*reads)
		}
		cgoLoop := func() {
			start := C.now_ns()
			for i := 0; i < *reads; i++ {
				if C.c_sample(t, cbuf, n) != 0 {
					fail("kp_thread_sample failed")
				}
			}
			nsCgo = float64(C.now_ns()-start) / float64(*reads)
		}
		goLoop := func() {
			runtime.ReadMemStats(&ms)
			before := ms.Mallocs
			start := C.now_ns()
			for i := 0; i < *reads; i++ {
				if buf, err = c.Sample(buf[:0]); err != nil {
					fail("Counters.Sample: %v", err)
				}
			}
			nsGo = float64(C.now_ns()-start) / float64(*reads)
			runtime.ReadMemStats(&ms)
			mallocs += ms.Mallocs - before
		}
		emptyLoop := func() {
			start := C.now_ns()
			for i := 0; i < *reads; i++ {
				C.c_empty()
			}
			nsEmpty = float64(C.now_ns()-start) / float64(*reads)
		}
		sysLoops := func() {
			nsSysC = float64(C.c_getppid_loop(C.long(*reads))) / float64(*reads)
			start := C.now_ns()
			for i := 0; i < *reads; i++ {
				C.c_getppid()
			}
			nsSysCgo = float64(C.now_ns()-start) / float64(*reads)
		}
		order := []func(){cLoop, cgoLoop, goLoop, emptyLoop, sysLoops}
		if r%2 == 1 {
			order = []func(){sysLoops, goLoop, emptyLoop, cLoop, cgoLoop}
		}
		for _, f := range order {
			f()
		}
		tC, tCgo, tGo, tEmpty = append(tC, nsC), append(tCgo, nsCgo), append(tGo, nsGo), append(tEmpty, nsEmpty)
		tSysC, tSysCgo = append(tSysC, nsSysC), append(tSysCgo, nsSysCgo)
		rGo, rCgo, rSys = append(rGo, nsGo/nsC), append(rCgo, nsCgo/nsC), append(rSys, nsSysCgo/nsSysC)
		// Absolute costs, paired within the round: what the package adds to a bare cgo
		// call, and what the crossing adds to C.
		dGo, dCgo = append(dGo, nsGo-nsCgo), append(dCgo, nsCgo-nsC)
	}

	fmt.Printf("go_sample_cost: %s, %d events (%s), backend %s, %d rounds x %d calls\n",
		runtime.Version(), len(events), *list, s.BackendName(), *rounds, *reads)
	fmt.Printf("%-34s %10s %8s %13s\n", "method", "ns/call", "/ C", "round ratios")
	fmt.Printf("%-34s %10.1f\n", "C loop of kp_thread_sample", median(tC))
	fmt.Printf("%-34s %10.1f %8.3f %6.3f-%.3f\n", "cgo call of kp_thread_sample", median(tCgo), median(rCgo), quantile(rCgo, 0.25), quantile(rCgo, 0.75))
	fmt.Printf("%-34s %10.1f %8.3f %6.3f-%.3f\n", "kpc.Counters.Sample", median(tGo), median(rGo), quantile(rGo, 0.25), quantile(rGo, 0.75))
	fmt.Printf("%-34s %10.1f\n", "cgo call of an empty C function", median(tEmpty))
	fmt.Printf("%-34s %10.1f\n", "C loop of getppid()", median(tSysC))
	fmt.Printf("%-34s %10.1f %8.3f %6.3f-%.3f  (/ C loop of getppid)\n", "cgo call of getppid()", median(tSysCgo), median(rSys), quantile(rSys, 0.25), quantile(rSys, 0.75))
	fmt.Printf("absolute overhead per call, ns (median over rounds of the paired difference; C sample %.1f ns):\n", median(tC))
	fmt.Printf("%-50s %8.1f %6.1f to %.1f\n", "kpc.Counters.Sample - cgo call of kp_thread_sample", median(dGo), quantile(dGo, 0.25), quantile(dGo, 0.75))
	fmt.Printf("%-50s %8.1f %6.1f to %.1f\n", "cgo call of kp_thread_sample - C loop", median(dCgo), quantile(dCgo, 0.25), quantile(dCgo, 0.75))
	fmt.Printf("allocations in %d Counters.Sample calls: %d\n", *rounds**reads, mallocs)
	if mallocs != 0 {
		fail("Counters.Sample allocated on the heap (%d allocations); it must not in a loop that reuses its buffer", mallocs)
	}
}

// openC makes the C side's own sampler and counters for the same events, on this thread.
func openC(events []string) *C.kp_thread_t {
	var s *C.kp_sampler_t
	if rc := C.kp_sampler_new(&s, nil); rc != 0 {
		fail("kp_sampler_new: %s", C.GoString(C.kp_error_last_message()))
	}
	names := (*[64]*C.char)(C.calloc(64, C.size_t(unsafe.Sizeof(uintptr(0)))))
	for i, e := range events {
		names[i] = C.CString(e)
	}
	var t *C.kp_thread_t
	if rc := C.kp_thread_new(&t, s, &names[0], C.size_t(len(events))); rc != 0 {
		fail("kp_thread_new: %s", C.GoString(C.kp_error_last_message()))
	}
	if rc := C.kp_thread_start(t); rc != 0 {
		fail("kp_thread_start: %s", C.GoString(C.kp_error_last_message()))
	}
	return t
}

func quantile(v []float64, q float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

func median(v []float64) float64 { return quantile(v, 0.5) }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go_sample_cost: "+format+"\n", args...)
	os.Exit(1)
}
