//go:build linux || darwin

package kpcbench_test

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/libkpc/libkpc/bindings/go/kpcbench"
)

// BenchmarkTouchPages maps n fresh pages per iteration and writes one byte to each: about n
// page faults per iteration, which it reports as page-faults/op. CTest's
// go_kpcbench_example runs it and checks that figure against the n in each name.
func BenchmarkTouchPages(b *testing.B) {
	for _, n := range []int{16, 256} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			size := n * os.Getpagesize()
			kpcbench.Open(b, "page-faults", "task-clock")
			for i := 0; i < b.N; i++ {
				mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE,
					syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				for p := 0; p < size; p += os.Getpagesize() {
					mem[p] = 1
				}
				if err := syscall.Munmap(mem); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
