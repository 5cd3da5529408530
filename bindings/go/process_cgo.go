package kpc

// Process.ReadFull calls kp_process_read_full through cgo written by hand: its per-event
// time arrays share their parameter names with kp_thread_sample_full's single values, so
// the SWIG typemaps of bindings/swig/go/kpc_go.i would give them the wrong shape there, and
// kpc_go.i leaves the function out of internal/ckpc. Process.EventStatus likewise: its
// reason is borrowed C text that is copied here, under the Process's lock. And
// Process.ReadThread, whose buffers take the same direct path as ReadFull's.

/*
#cgo pkg-config: kpc
#include <kpc/process.h>
#include <stdint.h>

static inline int kpgo_process_read_full(uintptr_t p, uint64_t *values, uint8_t *complete,
                                         size_t count, uint64_t *enabled, uint64_t *running) {
	return kp_process_read_full((kp_process_t *)p, values, complete, count, enabled, running);
}

static inline int kpgo_process_event_status(uintptr_t p, size_t index, int *status,
                                            const char **reason) {
	return kp_process_event_status((const kp_process_t *)p, index, status, reason);
}

static inline size_t kpgo_process_thread_count(uintptr_t p) {
	return kp_process_thread_count((const kp_process_t *)p);
}

static inline int kpgo_process_read_thread(uintptr_t p, size_t index, int32_t *tid,
                                           uint64_t *values, uint8_t *complete, size_t count) {
	return kp_process_read_thread((kp_process_t *)p, index, tid, values, complete, count);
}
*/
import "C"

// readFull runs kp_process_read_full on handle h into the four slices, which all hold
// len(values) > 0 elements (Go memory without pointers, which cgo lets C write during the
// call). Returns libkpc's status.
func readFull(h uintptr, values []uint64, complete []byte, enabled, running []uint64) int {
	return int(C.kpgo_process_read_full(C.uintptr_t(h),
		(*C.uint64_t)(&values[0]), (*C.uint8_t)(&complete[0]), C.size_t(len(values)),
		(*C.uint64_t)(&enabled[0]), (*C.uint64_t)(&running[0])))
}

// eventStatus runs kp_process_event_status on handle h for event i and returns its return
// code, the event's status and a copy of its reason ("" when counted or on failure).
func eventStatus(h uintptr, i int) (rc, status int, reason string) {
	var st C.int
	var why *C.char
	rc = int(C.kpgo_process_event_status(C.uintptr_t(h), C.size_t(i), &st, &why))
	if rc == 0 && why != nil {
		reason = C.GoString(why)
	}
	return rc, int(st), reason
}

// threadCount runs kp_process_thread_count on handle h.
func threadCount(h uintptr) int {
	return int(C.kpgo_process_thread_count(C.uintptr_t(h)))
}

// readThread runs kp_process_read_thread on handle h for row i into tid and the two slices,
// which hold len(values) > 0 elements. Returns libkpc's status.
func readThread(h uintptr, i int, tid *int32, values []uint64, complete []byte) int {
	return int(C.kpgo_process_read_thread(C.uintptr_t(h), C.size_t(i), (*C.int32_t)(tid),
		(*C.uint64_t)(&values[0]), (*C.uint8_t)(&complete[0]), C.size_t(len(values))))
}
