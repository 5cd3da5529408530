package kpc

import "github.com/libkpc/libkpc/bindings/go/internal/ckpc"

// ThreadTotals is one per-thread row of a Process (Process.ReadThread).
type ThreadTotals struct {
	// TID is the thread's id (Linux gettid()).
	TID int
	// Values are what the thread counted, plus the threads and processes it created while
	// counted (the kernel adds an inherited counter to its parent's, as `perf stat
	// --per-thread` shows), in event order. A thread that has ended keeps its final totals.
	Values []uint64
	// Complete[i] is false when the kernel multiplexed event i, or it is not counted
	// (ProcessOptions.Partial; its value is then 0).
	Complete []bool
}

// ThreadCount returns the number of per-thread rows ReadThread reads
// (kp_process_thread_count), fixed when the Process was made: on Linux one per thread an
// attached process had at the attach (CountProcess: this program's threads then), 1 for a
// spawned command (its first thread, which every thread of it descends from); 0 for
// CountSystemWide and on Apple (macOS has no per-thread counts of another process). Valid
// after Close.
func (p *Process) ThreadCount() int { return p.threads }

// ReadThread returns the totals of per-thread row i, 0 to ThreadCount()-1
// (kp_process_read_thread). The rows add up to Read's totals for the events counted on
// every thread; read both after Stop to compare them exactly.
//
// Errors: ErrInvalid (i out of range, negative included), ErrState (sampler released), ErrKernel; an error
// wrapping ErrClosed after Close.
func (p *Process) ReadThread(i int) (ThreadTotals, error) {
	n := len(p.events)
	values, complete := make([]uint64, n), make([]byte, n)
	var tid int32
	if err := p.callRead("Process.ReadThread", func(h ckpc.Kp_process) int {
		return readThread(h.Swigcptr(), i, &tid, values, complete)
	}); err != nil {
		return ThreadTotals{}, err
	}
	row := ThreadTotals{TID: int(tid), Values: values, Complete: make([]bool, n)}
	for j, c := range complete {
		row.Complete[j] = c != 0
	}
	return row, nil
}
