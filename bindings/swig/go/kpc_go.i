/* libkpc's SWIG entry point for Go.
 *
 * Generates the low-level cgo package ckpc (bindings/go/internal/ckpc): one Go function per
 * allow-listed C function of ../kpc.i, names kept (kp_thread_new -> Kp_thread_new). The
 * idiomatic package kpc (bindings/go) is written by hand on top of it; nothing else should
 * import ckpc.
 *
 * Regenerate with bindings/go/generate.sh, which runs
 *     swig -go -cgo -intgosize 64 -I../../../include -outdir DIR -o DIR/ckpc_wrap.c kpc_go.i
 * The output (ckpc.go, ckpc_wrap.c) is committed so that `go build` and `go get` need no
 * SWIG; the CTest test go_generated_fresh fails when it is stale.
 *
 * Typemaps below turn the C shapes that have no natural SWIG/Go mapping into Go ones:
 *   kp_sampler_t **out, kp_thread_t **out, kp_process_t **out,
 *   const kp_event_t **out                                           -> *Kp_sampler, ...
 *   uint32_t *fixed_out, uint32_t *configurable_out                 -> *uint32
 *   const char *const *events, size_t count                         -> []string
 *   const char *const *argv (kp_process_spawn, NULL-terminated)      -> []string
 *   int *exit_code, int *term_signal (kp_process_wait)               -> *int32
 *   const int32_t *groups (kpgo_process_spawn_ex, _attach_ex)       -> []int32
 *   uint64_t *values, uint8_t *complete (kp_thread_sample[_full])   -> []uint64, []byte
 *   uint64_t *time_enabled_ns, uint64_t *time_running_ns            -> *uint64
 * None of them makes C keep a Go pointer beyond the call.
 */
%module ckpc

/* cgo finds libkpc through pkg-config (kpc.pc: installed, or the build tree's own, see
 * bindings/go/CMakeLists.txt). */
%insert(cgo_comment_typedefs) %{
#cgo pkg-config: kpc
%}

/* ---- Handles returned through an out-parameter ------------------------------------------
 * Go passes a pointer to its handle variable (nil is allowed and reaches C as NULL, so the
 * KP_EINVAL path can be exercised). The C function writes the raw pointer into a Go
 * uintptr; afterwards the Go variable receives the SWIG handle, or nil when C wrote NULL. */
%define KPGO_OUT_HANDLE(CTYPE, GOTYPE)
%typemap(gotype) CTYPE **out "*GOTYPE"
%typemap(imtype) CTYPE **out "*uintptr"
%typemap(goin) CTYPE **out %{
	var kpgoOut$argnum uintptr
	if $input != nil {
		$result = &kpgoOut$argnum
	}
%}
%typemap(in) CTYPE **out %{ $1 = ($1_ltype)$input; %}
%typemap(goargout) CTYPE **out %{
	if $1 != nil {
		if *$input != 0 {
			*$1 = Swigcptr##GOTYPE(*$input)
		} else {
			*$1 = nil
		}
	}
%}
%enddef
KPGO_OUT_HANDLE(kp_sampler_t, Kp_sampler)
KPGO_OUT_HANDLE(kp_thread_t, Kp_thread)
KPGO_OUT_HANDLE(const kp_event_t, Kp_event)
KPGO_OUT_HANDLE(kp_process_t, Kp_process)

/* ---- kp_sampler_counter_count's uint32_t outputs: *uint32, nil -> NULL ------------------ */
%typemap(gotype) uint32_t *fixed_out, uint32_t *configurable_out "*uint32"
%typemap(imtype) uint32_t *fixed_out, uint32_t *configurable_out "*uint32"
%typemap(in) uint32_t *fixed_out, uint32_t *configurable_out %{ $1 = (uint32_t *)$input; %}

/* ---- String lists: event names ([]string) and a command's argv ([]string) -------------
 * A []string cannot cross cgo (its backing array holds Go pointers), so the Go side packs
 * the strings into one string, each followed by a NUL byte (kpgoPack), and C unpacks that
 * into a malloc'd copy plus a NULL-terminated array of pointers, freed after the call
 * (kpgo_unpack). A string containing a NUL byte would split in two: the idiomatic package
 * rejects such strings before calling. */
%insert(go_wrapper) %{
// kpgoPack joins strings for C, each followed by a NUL byte (kpc_go.i, kpgo_unpack).
func kpgoPack(list []string) string {
	n := 0
	for _, s := range list {
		n += len(s) + 1
	}
	packed := make([]byte, 0, n)
	for _, s := range list {
		packed = append(packed, s...)
		packed = append(packed, 0)
	}
	return string(packed)
}
%}
%{
/* Unpacks kpgoPack's output (len bytes at packed) into *copy and the NULL-terminated *list
 * of pointers into it; *count receives the number of strings. Nothing is allocated when
 * there are none (*copy and *list stay NULL). Returns 0, or -1 when out of memory. */
static int kpgo_unpack(const char *packed, size_t len, char **copy, const char ***list,
                       size_t *count) {
  size_t n = 0, i;
  for (i = 0; i < len; i++)
    if (packed[i] == '\0')
      n++;
  *count = n;
  if (n == 0)
    return 0;
  *copy = (char *)malloc(len);
  *list = (const char **)malloc((n + 1) * sizeof(const char *));
  if (*copy == NULL || *list == NULL) {
    free(*copy);
    free((void *)*list);
    *copy = NULL;
    *list = NULL;
    return -1;
  }
  memcpy(*copy, packed, len);
  n = 0;
  (*list)[n++] = *copy;
  for (i = 0; i + 1 < len; i++)
    if ((*copy)[i] == '\0')
      (*list)[n++] = *copy + i + 1;
  (*list)[n] = NULL;
  return 0;
}
%}
%typemap(gotype) (const char *const *events, size_t count) "[]string"
%typemap(imtype) (const char *const *events, size_t count) "string"
%typemap(goin) (const char *const *events, size_t count) %{ $result = kpgoPack($input) %}
%typemap(in) (const char *const *events, size_t count) (char *kpgo_copy = NULL, const char **kpgo_names = NULL) {
  if (kpgo_unpack($input.p, (size_t)$input.n, &kpgo_copy, &kpgo_names, &$2) != 0)
    _swig_gopanic("$symname: out of memory copying the event names");
  $1 = ($1_ltype)kpgo_names;
}
%typemap(freearg) (const char *const *events, size_t count) {
  free(kpgo_copy$argnum);
  free((void *)kpgo_names$argnum);
}
/* kp_process_spawn's command: NULL-terminated; an empty []string reaches C as NULL. */
%typemap(gotype) const char *const *argv "[]string"
%typemap(imtype) const char *const *argv "string"
%typemap(goin) const char *const *argv %{ $result = kpgoPack($input) %}
%typemap(in) const char *const *argv (char *kpgo_copy = NULL, const char **kpgo_list = NULL) {
  size_t kpgo_count;
  if (kpgo_unpack($input.p, (size_t)$input.n, &kpgo_copy, &kpgo_list, &kpgo_count) != 0)
    _swig_gopanic("$symname: out of memory copying the command");
  $1 = ($1_ltype)kpgo_list;
}
%typemap(freearg) const char *const *argv {
  free(kpgo_copy$argnum);
  free((void *)kpgo_list$argnum);
}

/* ---- The sampling buffers of kp_thread_sample and kp_thread_sample_full ------------------
 * values ([]uint64) and complete ([]byte) reach C as a pointer to their first element (NULL
 * for an empty slice); the count argument stays separate and must not exceed len(values),
 * nor len(complete) when complete is not empty. The idiomatic package guarantees that.
 * Why not one []uint64 for (values, count): cgo boxes a slice-header argument into an
 * interface for its pointer check, one heap allocation per call; a plain pointer argument
 * costs none, and kp_thread_sample is the hot path. */
%typemap(gotype) uint64_t *values "[]uint64"
%typemap(imtype) uint64_t *values "*uint64"
%typemap(goin) uint64_t *values %{
	if len($input) > 0 {
		$result = &$input[0]
	}
%}
%typemap(in) uint64_t *values %{ $1 = (uint64_t *)$input; %}
%typemap(gotype) uint8_t *complete "[]byte"
%typemap(imtype) uint8_t *complete "*byte"
%typemap(goin) uint8_t *complete %{
	if len($input) > 0 {
		$result = &$input[0]
	}
%}
%typemap(in) uint8_t *complete %{ $1 = (uint8_t *)$input; %}
/* kp_thread_sample_full's optional times: *uint64, nil -> NULL. */
%typemap(gotype) uint64_t *time_enabled_ns, uint64_t *time_running_ns "*uint64"
%typemap(imtype) uint64_t *time_enabled_ns, uint64_t *time_running_ns "*uint64"
%typemap(in) uint64_t *time_enabled_ns, uint64_t *time_running_ns %{ $1 = (uint64_t *)$input; %}

/* kp_process_wait's results: *int32 (C int), nil -> NULL. */
%typemap(gotype) int *exit_code, int *term_signal "*int32"
%typemap(imtype) int *exit_code, int *term_signal "*int32"
%typemap(in) int *exit_code, int *term_signal %{ $1 = (int *)$input; %}

/* kp_process_read_full has the parameter names of kp_thread_sample_full, but its times are
 * arrays (one per event), not the single values the typemaps above map: Process.ReadFull
 * calls it through hand-written cgo (bindings/go/process_cgo.go) instead. */
%ignore kp_process_read_full(kp_process_t *p, uint64_t *values, uint8_t *complete, size_t count, uint64_t *time_enabled_ns, uint64_t *time_running_ns);

/* Go reaches the rest of kpc/process.h otherwise, whatever ../kpc.i allow-lists for the
 * other languages: spawn and attach with options through the kpgo_process_*_ex helpers
 * below (Go cannot build kp_process_options_t), and the per-event status and per-thread
 * reads through hand-written cgo (bindings/go/process_cgo.go), which copies the borrowed
 * reason text and fills the per-thread buffers directly. */
%ignore kp_process_spawn_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count, const char *const *argv, const kp_process_options_t *options);
%ignore kp_process_attach_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count, int32_t pid, const kp_process_options_t *options);
%ignore kp_process_options_init(kp_process_options_t *opts, unsigned int version);
%ignore kp_process_event_status(const kp_process_t *p, size_t index, int *status, const char **reason);
%ignore kp_process_thread_count(const kp_process_t *p);
%ignore kp_process_read_thread(kp_process_t *p, size_t index, int32_t *tid, uint64_t *values, uint8_t *complete, size_t count);

/* The groups of kpgo_process_spawn_ex and kpgo_process_attach_ex: []int32 reaching C as a
 * pointer to its first element, NULL for an empty slice (no groups). The idiomatic package
 * passes one entry per event or none, as kp_process_options_t::groups requires. */
%typemap(gotype) const int32_t *groups "[]int32"
%typemap(imtype) const int32_t *groups "*int32"
%typemap(goin) const int32_t *groups %{
	if len($input) > 0 {
		$result = &$input[0]
	}
%}
%typemap(in) const int32_t *groups %{ $1 = ($1_ltype)$input; %}

%include "../kpc.i"

/* ---- Go-only helpers (not filtered by the allow-list) ----------------------------------- */
%inline %{
/* kp_sampler_new with the options spelled out, since Go cannot build kp_sampler_options_t:
 * backend is a kp_backend_t value; an empty path means NULL (environment, then default).
 * Same return codes as kp_sampler_new, plus whatever kp_sampler_options_init returns. */
int kpgo_sampler_new(kp_sampler_t **out, int backend, const char *kperf_path,
                     const char *kperfdata_path) {
  kp_sampler_options_t opts;
  int rc = kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION);
  if (rc != KP_OK) {
    if (out)
      *out = NULL;
    return rc;
  }
  opts.backend = (kp_backend_t)backend;
  opts.kperf_path = (kperf_path && kperf_path[0]) ? kperf_path : NULL;
  opts.kperfdata_path = (kperfdata_path && kperfdata_path[0]) ? kperfdata_path : NULL;
  return kp_sampler_new(out, &opts);
}
%}

%{
/* kp_process_options_t from kpgo_process_*_ex's arguments: partial != 0 sets
 * KP_PROCESS_PARTIAL; groups may be NULL. Returns kp_process_options_init's code, and on
 * failure sets *out (when given) to NULL as the constructors do. */
static int kpgo_process_options(kp_process_t **out, kp_process_options_t *opts, int partial,
                                const int32_t *groups) {
  int rc = kp_process_options_init(opts, KP_PROCESS_OPTIONS_VERSION);
  if (rc != KP_OK && out)
    *out = NULL;
  opts->flags = partial ? KP_PROCESS_PARTIAL : 0u;
  opts->groups = groups;
  return rc;
}
%}
%inline %{
/* kp_process_spawn_ex with the options spelled out (see kpgo_process_options). Same return
 * codes as kp_process_spawn_ex. */
int kpgo_process_spawn_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                          size_t count, const char *const *argv, int partial,
                          const int32_t *groups) {
  kp_process_options_t opts;
  int rc = kpgo_process_options(out, &opts, partial, groups);
  return rc != KP_OK ? rc : kp_process_spawn_ex(out, s, events, count, argv, &opts);
}

/* kp_process_attach_ex likewise; pid KP_PROCESS_SYSTEM_WIDE (-1) counts every CPU. */
int kpgo_process_attach_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events,
                           size_t count, int32_t pid, int partial, const int32_t *groups) {
  kp_process_options_t opts;
  int rc = kpgo_process_options(out, &opts, partial, groups);
  return rc != KP_OK ? rc : kp_process_attach_ex(out, s, events, count, pid, &opts);
}
%}
