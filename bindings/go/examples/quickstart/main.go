// Command quickstart counts what one piece of work costs the OS thread that runs it.
package main

import (
	"errors"
	"fmt"
	"log"
	"runtime"
	"syscall"

	kpc "github.com/libkpc/libkpc/bindings/go"
)

func main() {
	s, err := kpc.NewSampler(nil) // one per process; nil = default backend
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	fmt.Printf("backend %s, CPU %s, PMU %s\n", s.BackendName(), s.CPUName(), s.PMUName())

	// Counters count the OS thread that creates them: lock the goroutine to it first,
	// and keep it locked until the counters are closed.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	c, err := s.NewCounters("task-clock", "page-faults")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		log.Fatal(err)
	}

	before, err := c.Sample(nil)
	if err != nil {
		log.Fatal(err)
	}
	touchPages(1024)
	after, err := c.Sample(nil)
	if err != nil {
		log.Fatal(err)
	}
	for i, e := range c.Events() {
		fmt.Printf("%-12s %d\n", e.Name, after[i]-before[i])
	}

	// Errors carry libkpc's status code (test it with errors.Is) and its message.
	if hw, err := s.NewCounters("cycles"); errors.Is(err, kpc.ErrUnavailable) {
		fmt.Println("no hardware counters here:", err)
	} else if err == nil {
		hw.Close()
		fmt.Println("hardware counters are available")
	}
}

// touchPages writes one byte to each of n fresh pages: n page faults.
func touchPages(n int) {
	mem, err := syscall.Mmap(-1, 0, n*4096, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 1
	}
	syscall.Munmap(mem)
}
