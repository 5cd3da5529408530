//go:build linux

package kpc_test

import (
	"errors"
	"fmt"
	"log"
	"runtime"
	"syscall"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

// Count the page faults of a piece of work on the calling goroutine's OS thread.
func Example() {
	s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	runtime.LockOSThread() // Counters count the OS thread that creates them
	defer runtime.UnlockOSThread()
	c, err := s.NewCounters("page-faults")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		log.Fatal(err)
	}

	before, _ := c.Sample(nil)
	mem, _ := syscall.Mmap(-1, 0, 100*4096, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 1 // first touch of a fresh page: one page fault
	}
	syscall.Munmap(mem)
	after, _ := c.Sample(nil)

	fmt.Println("at least 100 page faults:", after[0]-before[0] >= 100)
	// Output: at least 100 page faults: true
}

// Test for a status code with errors.Is; the *Error carries libkpc's message.
func ExampleError() {
	s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	_, err = s.FindEvent("cylces")
	var e *kpc.Error
	fmt.Println(errors.Is(err, kpc.ErrUnknownEvent), errors.As(err, &e), e.Status == kpc.ErrUnknownEvent)
	// Output: true true true
}

// Reuse one buffer for every sample: Sample appends to it and allocates nothing.
func ExampleCounters_Sample() {
	s, err := kpc.NewSampler(&kpc.Options{Backend: kpc.BackendPerfEvent})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := s.NewCounters("task-clock", "context-switches")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	c.Start()

	buf := make([]uint64, 0, c.Len())
	for i := 0; i < 3; i++ {
		buf, err = c.Sample(buf[:0])
		if err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(len(buf), "values per sample")
	// Output: 2 values per sample
}
