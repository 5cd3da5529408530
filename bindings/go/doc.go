// Package kpc reads CPU performance counters per thread through libkpc: Apple Silicon via
// kperf.framework, Linux via perf_event_open (hardware events where a PMU exists, and the
// kernel's software events such as task-clock and page-faults everywhere).
//
// Open one Sampler per process, then create Counters on the OS thread to be measured:
//
//	s, err := kpc.NewSampler(nil)
//	if err != nil { ... }
//	defer s.Close()
//
//	runtime.LockOSThread() // Counters count the OS thread that creates them
//	defer runtime.UnlockOSThread()
//	c, err := s.NewCounters("task-clock", "page-faults")
//	if err != nil { ... }
//	defer c.Close()
//	c.Start()
//	before, _ := c.Sample(nil)
//	work()
//	after, _ := c.Sample(nil)
//
// # Thread rule
//
// A Counters counts the OS thread that called NewCounters, and its Start, Stop, Sample and
// SampleFull must run on that thread. Goroutines migrate between OS threads, so lock the
// goroutine with runtime.LockOSThread before NewCounters and keep it locked until Close;
// otherwise those calls may fail with ErrWrongThread. Sampler methods, Close and the
// informational methods may run on any goroutine.
//
// # Whole processes
//
// A Process counts every thread of a process: Sampler.CountProcess counts this program,
// every goroutine whichever OS thread runs it (no LockOSThread needed);
// Sampler.SpawnProcess starts a command and counts it from its exec; Sampler.AttachProcess
// counts another running process; Sampler.CountSystemWide counts every CPU. The ...With
// forms take ProcessOptions (report events that cannot be counted per event, group
// events). Process.ReadThread reads per-thread rows. Its methods may be called from any
// goroutine.
//
// # Errors
//
// Failures are *Error values carrying a Status (the C kp_status code), libkpc's detailed
// message and the OS code. Compare codes with errors.Is (errors.Is(err, kpc.ErrUnavailable)).
// libkpc keeps the message in OS-thread-local storage, so this package reads it while the
// goroutine is still locked to the thread of the failing call. Using a closed Sampler,
// Counters or Process returns an error wrapping ErrClosed; no native call is made.
//
// # Resources
//
// Close every Sampler, Counters and Process. Finalizers free forgotten handles but are a safety net,
// not the rule. Closing order is free: Counters keep their Sampler's session alive.
//
// The package uses cgo and finds libkpc with pkg-config (package kpc). See README.md.
package kpc

import "github.com/libkpc/libkpc/bindings/go/internal/ckpc"

// Version returns the version of the loaded libkpc library, e.g. "0.1.0"
// (kp_version_string); it may differ from the headers the binding was generated from.
func Version() string { return ckpc.Kp_version_string() }
