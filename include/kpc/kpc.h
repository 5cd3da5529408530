/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/**
 * @file kpc/kpc.h
 * @brief Umbrella header of libkpc: include this one.
 *
 * libkpc reads CPU hardware performance counters per thread: Apple Silicon through
 * kperf.framework, Linux through perf_event_open. The API has two handles:
 * kp_sampler_t (kpc/sampler.h), a session, and kp_thread_t (kpc/thread.h), events counted
 * on one thread. Errors: kpc/errors.h. Conventions: docs/conventions.md.
 */
#ifndef KPC_KPC_H
#define KPC_KPC_H

#include "export.h"
#include "version.h"
#include "errors.h"
#include "event.h"
#include "sampler.h"
#include "thread.h"
#include "process.h"

#endif /* KPC_KPC_H */
