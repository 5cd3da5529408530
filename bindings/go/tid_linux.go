package kpc

import "syscall"

// osThreadID returns the calling OS thread's id, for error messages only.
func osThreadID() int { return syscall.Gettid() }
