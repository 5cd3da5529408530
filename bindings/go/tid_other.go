//go:build !linux

package kpc

// osThreadID is unknown off Linux; error messages then leave the thread ids out.
func osThreadID() int { return 0 }
