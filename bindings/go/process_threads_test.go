//go:build linux

package kpc_test

import (
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// readThreads reads every per-thread row of p.
func readThreads(t *testing.T, p *kpc.Process) []kpc.ThreadTotals {
	t.Helper()
	rows := make([]kpc.ThreadTotals, p.ThreadCount())
	for i := range rows {
		row, err := p.ReadThread(i)
		if err != nil {
			t.Fatalf("ReadThread(%d): %v", i, err)
		}
		rows[i] = row
	}
	return rows
}

func TestPerThreadRowsAddUpToTheProcess(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := perfSampler(t)
	// Two goroutines, each on its own OS thread from before the attach, burn CPU after it.
	const burners, burn = 2, 100 * time.Millisecond
	tids := make(chan int, burners)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < burners; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tids <- syscall.Gettid()
			<-start
			burnCPU(t, burn)
		}()
	}
	burning := map[int]bool{}
	for i := 0; i < burners; i++ {
		burning[<-tids] = true
	}
	p := countProcess(t, s, "task-clock") // kp_process_attach, pid 0
	close(start)
	wg.Wait()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	total := read(t, p)[0]
	rows := readThreads(t, p)
	if len(rows) < 1+burners {
		t.Fatalf("ThreadCount() = %d, want >= %d (this thread and the burners)", len(rows), 1+burners)
	}
	var sum uint64
	seen := map[int]bool{}
	for _, r := range rows {
		if r.TID <= 0 || seen[r.TID] {
			t.Errorf("row tid %d: not positive, or listed twice", r.TID)
		}
		seen[r.TID] = true
		sum += r.Values[0]
		// task-clock and the thread CPU clock that burnCPU watches are two kernel clocks:
		// task-clock leaves out the scheduler's own switch path, so under load it reads a
		// little less than the CPU time (0.06% measured here, more on a busy VM). 90%
		// still tells the burner's row from every other thread's.
		if burning[r.TID] && time.Duration(r.Values[0]) < burn*9/10 {
			t.Errorf("thread %d burned %v of CPU; its row has task-clock %v", r.TID, burn, time.Duration(r.Values[0]))
		}
	}
	for tid := range burning {
		if !seen[tid] {
			t.Errorf("burning thread %d has no row (rows: %v)", tid, seen)
		}
	}
	if sum != total {
		t.Errorf("the %d rows add up to %d ns of task-clock; the process total is %d", len(rows), sum, total)
	}
	t.Logf("%d rows, task-clock %v in all: %v", len(rows), time.Duration(total), rows)
	_, err := p.ReadThread(len(rows))
	requireStatus(t, err, kpc.ErrInvalid, "ReadThread(ThreadCount())")
	_, err = p.ReadThread(-1)
	requireStatus(t, err, kpc.ErrInvalid, "ReadThread(-1)")
}

// A spawned command has one row, its first thread, which holds every thread it starts.
func TestPerThreadSpawnedCommandIsOneRow(t *testing.T) {
	w := workloadPath(t)
	s := perfSampler(t)
	p := spawnWith(t, s, kpc.ProcessOptions{}, []string{w, "threads", "2", "30"}, "task-clock")
	if p.ThreadCount() != 1 {
		t.Fatalf("ThreadCount() = %d, want 1", p.ThreadCount())
	}
	rows := readThreads(t, p)
	if rows[0].TID != p.Pid() {
		t.Errorf("row tid %d, want the command's pid %d", rows[0].TID, p.Pid())
	}
	// Two threads burned 30 ms of CPU time each; task-clock may read a little less (above).
	if total := read(t, p)[0]; rows[0].Values[0] != total || total < 54*1000000 || !rows[0].Complete[0] {
		t.Errorf("row task-clock %d (complete %v), total %d; want equal, >= 54 ms", rows[0].Values[0], rows[0].Complete[0], total)
	}
}
