/* libkpc's language-neutral SWIG interface: which C declarations every binding sees.
 *
 * Each language has its own entry file (java/kpc_java.i, go/kpc_go.i) that sets its
 * typemaps, %includes this file, then adds its classes. See bindings/README.md for why the
 * entry is per language rather than one file with #if blocks.
 *
 * Allow-list: everything is ignored first, then each supported kp_* item is named, so a
 * new C function never becomes binding API by accident. The raw Apple layer (kperf_raw.h)
 * is not bound: its function-pointer table is for C and C++ power users.
 */

%{
#include <kpc/kpc.h>
%}

%include <stdint.i>

/* The headers' attribute macros mean nothing to the target languages. */
#define KP_API
#define KP_BEGIN_DECL
#define KP_END_DECL
#define KP_DEPRECATED(msg)

/* Opaque handles: SWIG sees them as empty structs, so %extend can give them methods. */
/* Only kp_*_new/free may create or destroy them; never SWIG's default new/delete. */
%nodefaultctor kp_sampler;
%nodefaultdtor kp_sampler;
%nodefaultctor kp_thread;
%nodefaultdtor kp_thread;
%nodefaultctor kp_event;
%nodefaultdtor kp_event;
%nodefaultctor kp_process;
%nodefaultdtor kp_process;
struct kp_sampler {};
struct kp_thread {};
struct kp_event {};
struct kp_process {};

%rename("%s") "";            /* reset any earlier rename so the allow-list starts clean */
%ignore "";

/* Status codes and their text. */
%rename("%s") kp_status;
%rename("%s") KP_OK;
%rename("%s") KP_ERROR;
%rename("%s") KP_EINVAL;
%rename("%s") KP_ENOMEM;
%rename("%s") KP_ELOAD;
%rename("%s") KP_EPERM;
%rename("%s") KP_EBUSY;
%rename("%s") KP_EUNSUPPORTED;
%rename("%s") KP_EUNKNOWN_EVENT;
%rename("%s") KP_EUNAVAILABLE;
%rename("%s") KP_ECONFLICT;
%rename("%s") KP_EWRONG_THREAD;
%rename("%s") KP_ESTATE;
%rename("%s") KP_ELAYOUT;
%rename("%s") KP_EFRAMEWORK;
%rename("%s") KP_EKERNEL;
%rename("%s") KP_EBUFSIZE;
%rename("%s") KP_EPARTIAL;
%rename("%s") KP_EEXEC;
%rename("%s") kp_strerror;
%rename("%s") kp_error_last_message;
%rename("%s") kp_error_last_status;
%rename("%s") kp_error_last_os_code;
%rename("%s") kp_error_clear;

/* Version. */
%rename("%s") KP_VERSION_MAJOR;
%rename("%s") KP_VERSION_MINOR;
%rename("%s") KP_VERSION_PATCH;
%rename("%s") KP_VERSION_STRING;
%rename("%s") kp_version_number;
%rename("%s") kp_version_string;

/* Events (borrowed from their sampler or thread handle). */
%rename("%s") KP_MAX_EVENTS;
%rename("%s") KP_EVENT_NAME_MAX;
%rename("%s") kp_event_unit;
%rename("%s") kp_event_unit_t;
%rename("%s") KP_EVENT_UNIT_COUNT;
%rename("%s") KP_EVENT_UNIT_NANOSECONDS;
%rename("%s") kp_event_kind;
%rename("%s") kp_event_kind_t;  /* SWIG matches a typedef enum by its typedef name */
%rename("%s") KP_EVENT_FIXED;
%rename("%s") KP_EVENT_CONFIGURABLE;
%rename("%s") KP_EVENT_SOFTWARE;
%rename("%s") kp_event_name;
%rename("%s") kp_event_native_name;
%rename("%s") kp_event_description;
%rename("%s") kp_event_is_generic;
%rename("%s") kp_event_is_available;
%rename("%s") kp_event_unavailable_reason;
%rename("%s") kp_event_alias;
%rename("%s") kp_event_errata;
%rename("%s") kp_event_fallback;
%rename("%s") kp_event_counters_mask;
%rename("%s") kp_event_selector;
%rename("%s") kp_event_fixed_counter;

/* Sampler. */
%rename("%s") kp_backend;
%rename("%s") kp_backend_t;
%rename("%s") KP_BACKEND_AUTO;
%rename("%s") KP_BACKEND_KPERF;
%rename("%s") KP_BACKEND_PERF_EVENT;
%rename("%s") KP_BACKEND_RECOUNT;
%rename("%s") kp_sampler_new;
%rename("%s") kp_sampler_free;
%rename("%s") kp_sampler_release;
%rename("%s") kp_sampler_backend;
%rename("%s") kp_sampler_backend_name;
%rename("%s") kp_sampler_backend_reason;
%rename("%s") kp_sampler_cpu_id;
%rename("%s") kp_sampler_cpu_name;
%rename("%s") kp_sampler_pmu_name;
%rename("%s") kp_sampler_counter_count;
%rename("%s") kp_sampler_access;
%rename("%s") kp_sampler_event_count;
%rename("%s") kp_sampler_event_at;
%rename("%s") kp_sampler_event_find;

/* Thread counters. */
%rename("%s") kp_thread_new;
%rename("%s") kp_thread_free;
%rename("%s") kp_thread_start;
%rename("%s") kp_thread_stop;
%rename("%s") kp_thread_sample;
%rename("%s") kp_thread_sample_full;
%rename("%s") kp_thread_calibrate;
%rename("%s") kp_thread_is_running;
%rename("%s") kp_thread_event_count;
%rename("%s") kp_thread_event_at;

/* Process counters (a whole process: every thread of it). */
%rename("%s") kp_process_scope;
%rename("%s") kp_process_scope_t;
%rename("%s") KP_PROCESS_SCOPE_TREE;
%rename("%s") KP_PROCESS_SCOPE_PROCESS;
%rename("%s") KP_PROCESS_SCOPE_SYSTEM;
%rename("%s") kp_process_spawn;
%rename("%s") kp_process_attach;
%rename("%s") kp_process_free;
%rename("%s") kp_process_start;
%rename("%s") kp_process_stop;
%rename("%s") kp_process_is_counting;
%rename("%s") kp_process_read;
%rename("%s") kp_process_read_full;
%rename("%s") kp_process_wait;
%rename("%s") kp_process_pid;
%rename("%s") kp_process_event_count;
%rename("%s") kp_process_event_at;
%rename("%s") kp_process_event_scope;

%include "kpc/version.h"
%include "kpc/errors.h"
%include "kpc/event.h"
%include "kpc/sampler.h"
%include "kpc/thread.h"
%include "kpc/process.h"

%rename("%s") "";            /* what the language file adds after this is not filtered */
