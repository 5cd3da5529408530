package kpc

// The hot path of Counters.Sample (and Counters.Calibrate, which shares its buffer), written with cgo directly instead of through the
// SWIG-generated ckpc.Kp_thread_sample (bindings/go/README.md, "The cost of a sample").
// Two things are taken out of each call:
//
//   - cgo's pointer check: ckpc passes the Go buffer as a void*, which cgo checks on every
//     call (runtime.cgoCheckPointer). Here the values land in a buffer in C memory,
//     allocated once per Counters, typed uint64_t* (cgo checks no pointer to pointer-free
//     memory), and are copied out into the caller's slice.
//   - the SWIG wrapper's extra C frame and its interface call for the handle: the handle
//     crosses as the integer ckpc already holds, and the static helper below is inlined
//     into cgo's trampoline, so the call reaches kp_thread_sample directly.

/*
#cgo pkg-config: kpc
#include <kpc/thread.h>
#include <stdint.h>
#include <stdlib.h>

static inline int kpgo_sample(uintptr_t t, uint64_t *values, size_t count) {
	return kp_thread_sample((kp_thread_t *)t, values, count);
}

static inline int kpgo_calibrate(uintptr_t t, uint64_t *offsets, size_t count,
                                 unsigned int rounds) {
	return kp_thread_calibrate((kp_thread_t *)t, offsets, count, rounds);
}
*/
import "C"

import "unsafe"

// sampleBuffer is a Counters' values buffer in C memory; the zero value has none.
type sampleBuffer struct {
	p *C.uint64_t
	n int
}

// newSampleBuffer allocates room for n values; it panics when C is out of memory, as a Go
// allocation would.
func newSampleBuffer(n int) sampleBuffer {
	p := (*C.uint64_t)(C.calloc(C.size_t(n)+1, C.size_t(unsafe.Sizeof(uint64(0)))))
	if p == nil {
		panic("kpc: out of memory allocating a sample buffer")
	}
	return sampleBuffer{p: p, n: n}
}

// free releases the buffer; idempotent.
func (b *sampleBuffer) free() {
	if b.p != nil {
		C.free(unsafe.Pointer(b.p))
		*b = sampleBuffer{}
	}
}

// sample runs kp_thread_sample on handle h into the buffer and, on success, copies the
// values into dst (len(dst) == b.n). Returns libkpc's status.
func (b *sampleBuffer) sample(h uintptr, dst []uint64) int {
	rc := int(C.kpgo_sample(C.uintptr_t(h), b.p, C.size_t(b.n)))
	if rc == 0 {
		copy(dst, unsafe.Slice((*uint64)(unsafe.Pointer(b.p)), b.n))
	}
	return rc
}

// calibrate runs kp_thread_calibrate on handle h into the buffer and, on success, copies
// the offsets into dst (len(dst) == b.n). Returns libkpc's status.
func (b *sampleBuffer) calibrate(h uintptr, dst []uint64, rounds uint32) int {
	rc := int(C.kpgo_calibrate(C.uintptr_t(h), b.p, C.size_t(b.n), C.uint(rounds)))
	if rc == 0 {
		copy(dst, unsafe.Slice((*uint64)(unsafe.Pointer(b.p)), b.n))
	}
	return rc
}
