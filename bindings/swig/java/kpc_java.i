/* SWIG entry point of libkpc's Java binding:
 *     swig -java -package org.kpc -I<libkpc>/include kpc_java.i
 * (bindings/java/CMakeLists.txt runs this at build time through UseSWIG).
 *
 * Two layers:
 *  - this file makes SWIG generate a package-private "native" layer in org.kpc: the module
 *    class KpcNative (the allow-listed kp_* functions of ../kpc.i as static methods), the
 *    JNI class KpcNativeJNI, and handle classes NativeSampler / NativeCounters / NativeEvent
 *    / NativeProcess for kp_sampler_t / kp_thread_t / kp_event_t / kp_process_t;
 *  - hand-written public classes in bindings/java/src/org/kpc (Sampler, Counters,
 *    CountedProcess, Event, KpcException, ...) own those handles, enforce close() and copy
 *    events into values.
 *
 * Error handling: every fallible call below is wrapped by an %exception block that runs in C
 * right after the call, inside the same JNI call and so on the same OS thread. On failure it
 * reads kp_error_last_os_code() and kp_error_last_message() there and throws
 * org.kpc.KpcException; Java never asks for the message in a second call.
 *
 * Types: uint64_t becomes Java long (the bits, unsigned: use Long.compareUnsigned /
 * Long.toUnsignedString above 2^63), never BigInteger; uint32_t and size_t become long.
 */
%module KpcNative

/* ---- Java-side shape of the generated code -------------------------------------------- */

/* Enums become int constants (kp_status.KP_EINVAL == -2), with the header's own values as
 * compile-time constants: the public enums (Status, Backend, Event.Kind) are built on them. */
%include <enumtypeunsafe.swg>
%javaconst(1);

/* Everything SWIG generates is package-private: the public API is the hand-written layer.
 * (SWIG offers no modifier for the <module>Constants interface holding the KP_VERSION_*
 * macros, so KpcNativeConstants stays public; it only holds the header's version and limits.) */
%pragma(java) moduleclassmodifiers="final class"
%pragma(java) jniclassclassmodifiers="final class"
%typemap(javaclassmodifiers) SWIGTYPE, SWIGTYPE *, SWIGTYPE &, SWIGTYPE [] "final class"
%typemap(javaclassmodifiers) enum SWIGTYPE "final class"
/* No finalize(): the public classes free handles through close() and a java.lang.ref.Cleaner. */
%typemap(javafinalize) SWIGTYPE ""

/* Native library loading. The JNI class is the first class touched by any native call; its
 * static initializer hands the work to the hand-written org.kpc.NativeLoader, which honours
 * -Dorg.kpc.library.path, then java.library.path, then extracts the libraries kpc.jar carries
 * for this platform (libkpc first, then libkpc_java), and throws an UnsatisfiedLinkError that
 * says what it tried otherwise. */
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }
%}

/* Handle class names (renamed before ../kpc.i declares the structs). */
%rename(NativeSampler) kp_sampler;
%rename(NativeCounters) kp_thread;
%rename(NativeEvent) kp_event;
%rename(NativeProcess) kp_process;

/* uint64_t is Java long, not BigInteger (values are unsigned; see the file comment). */
%apply long long { uint64_t };

/* Allow-listed functions whose out-parameters or caller buffers Java cannot express: each is
 * replaced by an %extend method further down. (A %ignore with the parameter list is more
 * specific than ../kpc.i's %rename, so it wins.) */
%ignore kp_sampler_new(kp_sampler_t **out, const kp_sampler_options_t *opts);
%ignore kp_sampler_counter_count(uint32_t *fixed_out, uint32_t *configurable_out, const kp_sampler_t *s);
%ignore kp_sampler_event_find(const kp_event_t **out, kp_sampler_t *s, const char *name);
%ignore kp_thread_new(kp_thread_t **out, kp_sampler_t *s, const char *const *events, size_t count);
%ignore kp_thread_sample(kp_thread_t *t, uint64_t *values, size_t count);
%ignore kp_thread_sample_full(kp_thread_t *t, uint64_t *values, uint8_t *complete, size_t count, uint64_t *time_enabled_ns, uint64_t *time_running_ns);
%ignore kp_thread_calibrate(kp_thread_t *t, uint64_t *offsets, size_t count, unsigned int rounds);
%ignore kp_process_spawn(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count, const char *const *argv);
%ignore kp_process_attach(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count, int32_t pid);
%ignore kp_process_read(kp_process_t *p, uint64_t *values, size_t count);
%ignore kp_process_read_full(kp_process_t *p, uint64_t *values, uint8_t *complete, size_t count, uint64_t *time_enabled_ns, uint64_t *time_running_ns);
%ignore kp_process_wait(kp_process_t *p, int *exit_code, int *term_signal);
/* Options are built in C (kpj_process_options) and per-event status and per-thread reads go
 * through %extend methods: these stay ignored even if ../kpc.i lists them for another
 * language. */
%ignore kp_process_options_init(kp_process_options_t *opts, unsigned int version);
%ignore kp_process_spawn_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count, const char *const *argv, const kp_process_options_t *options);
%ignore kp_process_attach_ex(kp_process_t **out, kp_sampler_t *s, const char *const *events, size_t count, int32_t pid, const kp_process_options_t *options);
%ignore kp_process_event_status(const kp_process_t *p, size_t index, int *status, const char **reason);
%ignore kp_process_thread_count(const kp_process_t *p);
%ignore kp_process_read_thread(kp_process_t *p, size_t index, int32_t *tid, uint64_t *values, uint8_t *complete, size_t count);
/* Freed only by the handle classes' destructors (delete()), so Java code cannot double-free. */
%ignore kp_sampler_free(kp_sampler_t *s);
%ignore kp_thread_free(kp_thread_t *t);
%ignore kp_process_free(kp_process_t *p);
/* The thread-local last error is read in C by kpj_throw() inside the failing JNI call;
 * Java must not be able to read it with a second call. */
%ignore kp_error_last_message(void);
%ignore kp_error_last_status(void);
%ignore kp_error_last_os_code(void);
%ignore kp_error_clear(void);

/* ---- Errors: C helpers used by the %exception blocks ---------------------------------- */
%{
#include <stdlib.h>
#include <string.h>

#include <kpc/kpc.h>

/* libkpc accepts at most this many events per kp_thread_t (kp_thread_new). */
#define KPJ_MAX_EVENTS 32

/* Throws org.kpc.KpcException for the failure the calling thread just had. Must run right
 * after the failing kp_ call, before any other kp_ call, on the same thread: the %exception
 * blocks call it from the JNI function that made the failing call. */
static void kpj_throw(JNIEnv *jenv, int status) {
  int os_code = kp_error_last_os_code();
  const char *message = kp_error_last_message();
  size_t len;
  jclass cls;
  jmethodID ctor;
  jbyteArray bytes;
  jobject exception;

  if (!message || !*message)
    message = kp_strerror(status);
  len = strlen(message);
  if ((*jenv)->ExceptionCheck(jenv))
    return;
  /* The message crosses as bytes and is decoded as UTF-8 in Java: NewStringUTF wants
   * modified UTF-8, which an OS message (dlerror(), a path) need not be. */
  bytes = (*jenv)->NewByteArray(jenv, (jsize)len);
  if (!bytes)
    return;  /* OutOfMemoryError pending */
  (*jenv)->SetByteArrayRegion(jenv, bytes, 0, (jsize)len, (const jbyte *)message);
  cls = (*jenv)->FindClass(jenv, "org/kpc/KpcException");
  if (!cls)
    return;  /* NoClassDefFoundError pending */
  ctor = (*jenv)->GetMethodID(jenv, cls, "<init>", "(I[BI)V");
  if (!ctor)
    return;
  exception = (*jenv)->NewObject(jenv, cls, ctor, (jint)status, bytes, (jint)os_code);
  if (exception)
    (*jenv)->Throw(jenv, (jthrowable)exception);
}

/* Options for kp_process_spawn_ex / kp_process_attach_ex: the library's defaults for this
 * header's version, then KP_PROCESS_PARTIAL if partial is non-zero, and the groups (NULL:
 * none). A failure is recorded as libkpc's last error, so the caller's NULL result throws it. */
static const kp_process_options_t *kpj_process_options(kp_process_options_t *opts,
                                                       int partial, const int32_t *groups) {
  if (kp_process_options_init(opts, KP_PROCESS_OPTIONS_VERSION) != KP_OK)
    return NULL;
  opts->flags = partial ? KP_PROCESS_PARTIAL : 0u;
  opts->groups = groups;
  return opts;
}
%}

/* A function returning a kp_status: negative means failure.
 * The blocks leave the exception pending and do not return early, so the freearg typemaps
 * still release what the in typemaps allocated; the JVM throws when the JNI function
 * returns, and the Java proxy never sees the (zero) result. Nothing after them makes a JNI
 * call on failure (the argout typemaps copy only on success). */
%define KPJ_CHECK_STATUS(NAME)
%exception NAME {
  $action
  if (result < 0)
    kpj_throw(jenv, (int)result);
}
%enddef

/* A function returning a handle or event: NULL means failure, with the status recorded. */
%define KPJ_CHECK_POINTER(NAME)
%exception NAME {
  $action
  if (!result)
    kpj_throw(jenv, kp_error_last_status());
}
%enddef

KPJ_CHECK_STATUS(kp_sampler_access)
KPJ_CHECK_STATUS(kp_sampler_release)
KPJ_CHECK_STATUS(kp_thread_start)
KPJ_CHECK_STATUS(kp_thread_stop)
KPJ_CHECK_STATUS(kp_thread::sampleInto)
KPJ_CHECK_STATUS(kp_thread::sampleFullInto)
KPJ_CHECK_STATUS(kp_thread::calibrateInto)
KPJ_CHECK_POINTER(kp_sampler::kp_sampler)
KPJ_CHECK_STATUS(kp_sampler::fixedCounters)
KPJ_CHECK_STATUS(kp_sampler::configurableCounters)
KPJ_CHECK_POINTER(kp_sampler::find)
KPJ_CHECK_POINTER(kp_sampler::newCounters)
KPJ_CHECK_POINTER(kp_sampler::spawnProcess)
KPJ_CHECK_POINTER(kp_sampler::attachProcess)
KPJ_CHECK_POINTER(kp_sampler::spawnProcessEx)
KPJ_CHECK_POINTER(kp_sampler::attachProcessEx)
KPJ_CHECK_POINTER(kp_sampler::attachSystemWide)
KPJ_CHECK_POINTER(kp_process::eventStatus)
KPJ_CHECK_STATUS(kp_process::readThreadInto)
KPJ_CHECK_STATUS(kp_process_start)
KPJ_CHECK_STATUS(kp_process_stop)
KPJ_CHECK_STATUS(kp_process::readInto)
KPJ_CHECK_STATUS(kp_process::readFullInto)
KPJ_CHECK_STATUS(kp_process::waitInto)

/* ---- Java arrays <-> C buffers --------------------------------------------------------- */

/* long[] receiving counter values. The C side writes into a stack buffer (no Java
 * allocation), and only the values the call reports (its non-negative result) are copied
 * into the array: elements past the event count are left untouched. */
%typemap(jni) (uint64_t *kpj_values, size_t kpj_count) "jlongArray"
%typemap(jtype) (uint64_t *kpj_values, size_t kpj_count) "long[]"
%typemap(jstype) (uint64_t *kpj_values, size_t kpj_count) "long[]"
%typemap(javain) (uint64_t *kpj_values, size_t kpj_count) "$javainput"
%typemap(in) (uint64_t *kpj_values, size_t kpj_count) (uint64_t buf[KPJ_MAX_EVENTS]) {
  jsize len;
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "values array is null");
    return $null;
  }
  len = (*jenv)->GetArrayLength(jenv, $input);
  $1 = buf;
  $2 = (size_t)(len < KPJ_MAX_EVENTS ? len : KPJ_MAX_EVENTS);
}
%typemap(argout) (uint64_t *kpj_values, size_t kpj_count) {
  if (result > 0)
    (*jenv)->SetLongArrayRegion(jenv, $input, 0, (jsize)result, (const jlong *)$1);
}

/* boolean[] receiving the per-event "complete" flags of kp_thread_sample_full. */
%typemap(jni) (uint8_t *kpj_complete, size_t kpj_ccount) "jbooleanArray"
%typemap(jtype) (uint8_t *kpj_complete, size_t kpj_ccount) "boolean[]"
%typemap(jstype) (uint8_t *kpj_complete, size_t kpj_ccount) "boolean[]"
%typemap(javain) (uint8_t *kpj_complete, size_t kpj_ccount) "$javainput"
%typemap(in) (uint8_t *kpj_complete, size_t kpj_ccount) (uint8_t buf[KPJ_MAX_EVENTS]) {
  jsize len;
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "complete array is null");
    return $null;
  }
  len = (*jenv)->GetArrayLength(jenv, $input);
  $1 = buf;
  $2 = (size_t)(len < KPJ_MAX_EVENTS ? len : KPJ_MAX_EVENTS);
}
%typemap(argout) (uint8_t *kpj_complete, size_t kpj_ccount) {
  if (result > 0)
    (*jenv)->SetBooleanArrayRegion(jenv, $input, 0, (jsize)result, (const jboolean *)$1);
}

/* long[2] receiving {time_enabled_ns, time_running_ns}. */
%typemap(jni) uint64_t *kpj_times "jlongArray"
%typemap(jtype) uint64_t *kpj_times "long[]"
%typemap(jstype) uint64_t *kpj_times "long[]"
%typemap(javain) uint64_t *kpj_times "$javainput"
%typemap(in) uint64_t *kpj_times (uint64_t buf[2]) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 2) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "times array must hold 2 elements");
    return $null;
  }
  buf[0] = buf[1] = 0;
  $1 = buf;
}
%typemap(argout) uint64_t *kpj_times {
  if (result >= 0)
    (*jenv)->SetLongArrayRegion(jenv, $input, 0, 2, (const jlong *)$1);
}

/* int[2] receiving {exit_code, term_signal} of kp_process_wait. */
%typemap(jni) int *kpj_pair "jintArray"
%typemap(jtype) int *kpj_pair "int[]"
%typemap(jstype) int *kpj_pair "int[]"
%typemap(javain) int *kpj_pair "$javainput"
%typemap(in) int *kpj_pair (int buf[2]) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 2) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "the exit array must hold 2 elements");
    return $null;
  }
  buf[0] = -1;
  buf[1] = 0;
  $1 = buf;
}
%typemap(argout) int *kpj_pair {
  if (result >= 0)
    (*jenv)->SetIntArrayRegion(jenv, $input, 0, 2, (const jint *)$1);
}

/* int[1] receiving one int out-parameter (an event's status, a thread's id). Copied only when
 * the call did not throw (no exception pending), whatever the function returns. */
%typemap(jni) int *kpj_out "jintArray"
%typemap(jtype) int *kpj_out "int[]"
%typemap(jstype) int *kpj_out "int[]"
%typemap(javain) int *kpj_out "$javainput"
%typemap(in) int *kpj_out ($*1_ltype buf) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "the out array must hold 1 element");
    return $null;
  }
  buf = 0;
  $1 = &buf;
}
%typemap(argout) int *kpj_out {
  if (!(*jenv)->ExceptionCheck(jenv)) {
    jint v = (jint)*$1;
    (*jenv)->SetIntArrayRegion(jenv, $input, 0, 1, &v);
  }
}
%apply int *kpj_out { int32_t *kpj_tid };

/* int[] of event groups (kp_process_options_t::groups), or null for none. Copied into a
 * buffer of KPJ_MAX_EVENTS entries that starts as -1 (no group), so libkpc never reads past
 * it whatever the array's length; the Java layer checks that there is one per event. */
%typemap(jni) (const int32_t *kpj_groups, size_t kpj_gcount) "jintArray"
%typemap(jtype) (const int32_t *kpj_groups, size_t kpj_gcount) "int[]"
%typemap(jstype) (const int32_t *kpj_groups, size_t kpj_gcount) "int[]"
%typemap(javain) (const int32_t *kpj_groups, size_t kpj_gcount) "$javainput"
%typemap(in) (const int32_t *kpj_groups, size_t kpj_gcount) (int32_t buf[KPJ_MAX_EVENTS]) {
  jsize i, len;
  $1 = NULL;
  $2 = 0;
  if ($input) {
    for (i = 0; i < KPJ_MAX_EVENTS; ++i)
      buf[i] = -1;
    len = (*jenv)->GetArrayLength(jenv, $input);
    if (len > KPJ_MAX_EVENTS)
      len = KPJ_MAX_EVENTS;
    (*jenv)->GetIntArrayRegion(jenv, $input, 0, len, (jint *)buf);
    $1 = buf;
    $2 = (size_t)len;
  }
}

/* String[] of event names -> (const char *const *, size_t), copied for the call. The
 * array of pointers has one more element, NULL, so it also serves as a NULL-terminated
 * argv (kp_process_spawn). */
%typemap(jni) (const char *const *kpj_names, size_t kpj_count) "jobjectArray"
%typemap(jtype) (const char *const *kpj_names, size_t kpj_count) "String[]"
%typemap(jstype) (const char *const *kpj_names, size_t kpj_count) "String[]"
%typemap(javain) (const char *const *kpj_names, size_t kpj_count) "$javainput"
%typemap(in) (const char *const *kpj_names, size_t kpj_count) {
  jsize i, n;
  char **names;
  if (!$input) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "event names array is null");
    return $null;
  }
  n = (*jenv)->GetArrayLength(jenv, $input);
  names = (char **)calloc((size_t)n + 1, sizeof *names);
  if (!names) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "copying the event names");
    return $null;
  }
  for (i = 0; i < n; ++i) {
    jstring s = (jstring)(*jenv)->GetObjectArrayElement(jenv, $input, i);
    const char *utf;
    if (!s) {
      SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "an event name is null");
      break;
    }
    utf = (*jenv)->GetStringUTFChars(jenv, s, NULL);
    if (!utf) {
      (*jenv)->DeleteLocalRef(jenv, s);
      break;  /* OutOfMemoryError pending */
    }
    names[i] = strdup(utf);
    (*jenv)->ReleaseStringUTFChars(jenv, s, utf);
    (*jenv)->DeleteLocalRef(jenv, s);
    if (!names[i]) {
      SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "copying the event names");
      break;
    }
  }
  if (i < n) {
    jsize j;
    for (j = 0; j < i; ++j)
      free(names[j]);
    free(names);
    return $null;
  }
  $1 = ($1_ltype)names;
  $2 = (size_t)n;
}
/* Runs on failure too: the %exception blocks do not return early (see KPJ_CHECK_STATUS). */
%typemap(freearg) (const char *const *kpj_names, size_t kpj_count) {
  if ($1) {
    size_t j;
    for (j = 0; j < $2; ++j)
      free((void *)$1[j]);
    free((void *)$1);
  }
}

/* The same conversions for a command's argv and for kp_process_read_full's per-event times. */
%apply (const char *const *kpj_names, size_t kpj_count) { (const char *const *kpj_argv, size_t kpj_argc) };
%apply (uint64_t *kpj_values, size_t kpj_count) {
  (uint64_t *kpj_enabled, size_t kpj_ecount),
  (uint64_t *kpj_running, size_t kpj_rcount)
};

/* ---- The shared allow-list -------------------------------------------------------------- */
%include "../kpc.i"

/* ---- Handle classes ----------------------------------------------------------------------
 * SWIG names the C function behind an %extend method <struct>_<method>, so no method may be
 * called like a kp_* function (kp_thread + sample would be kp_thread_sample itself).
 * Every method below is NULL-safe: a freed Java-side handle passes NULL, which libkpc answers
 * with KP_EINVAL or an empty value. The public classes never get that far: they refuse
 * calls after close() with IllegalStateException. */

%newobject kp_sampler::newCounters;
%newobject kp_sampler::spawnProcess;
%newobject kp_sampler::attachProcess;
%newobject kp_sampler::spawnProcessEx;
%newobject kp_sampler::attachProcessEx;
%newobject kp_sampler::attachSystemWide;

%extend kp_sampler {
  /* Constructor for kp_sampler_t: options are built in C with kp_sampler_options_init, so
   * fields added in later option versions keep their defaults. NULL paths mean "from the
   * environment, then the platform default". */
  kp_sampler(int backend, const char *kperf_path, const char *kperfdata_path) {
    kp_sampler_options_t opts;
    kp_sampler_t *s = NULL;
    if (kp_sampler_options_init(&opts, KP_SAMPLER_OPTIONS_VERSION) != KP_OK)
      return NULL;
    opts.backend = (kp_backend_t)backend;
    opts.kperf_path = kperf_path;
    opts.kperfdata_path = kperfdata_path;
    kp_sampler_new(&s, &opts);
    return s;
  }

  /* Destructor: kp_sampler_free. Threads made from it stay usable. */
  ~kp_sampler() {
    kp_sampler_free($self);
  }

  /* kp_sampler_counter_count: the count, or a negative kp_status (thrown): KP_EUNSUPPORTED
   * when the OS does not tell the count, which is then unknown rather than 0. */
  int fixedCounters() {
    uint32_t fixed = 0;
    int status = kp_sampler_counter_count(&fixed, NULL, $self);
    return status < 0 ? status : (int)fixed;
  }

  int configurableCounters() {
    uint32_t configurable = 0;
    int status = kp_sampler_counter_count(NULL, &configurable, $self);
    return status < 0 ? status : (int)configurable;
  }

  /* kp_sampler_event_find; the event is borrowed from the sampler's session. */
  const kp_event_t *find(const char *name) {
    const kp_event_t *e = NULL;
    kp_sampler_event_find(&e, $self, name);
    return e;
  }

  /* kp_thread_new for the calling thread; the caller owns the result. */
  kp_thread_t *newCounters(const char *const *kpj_names, size_t kpj_count) {
    kp_thread_t *t = NULL;
    kp_thread_new(&t, $self, kpj_names, kpj_count);
    return t;
  }

  /* kp_process_spawn of the command kpj_argv (NULL-terminated by its typemap); the caller
   * owns the result. */
  kp_process_t *spawnProcess(const char *const *kpj_names, size_t kpj_count,
                             const char *const *kpj_argv, size_t kpj_argc) {
    kp_process_t *p = NULL;
    (void)kpj_argc;
    kp_process_spawn(&p, $self, kpj_names, kpj_count, kpj_argv);
    return p;
  }

  /* kp_process_attach (pid 0: this JVM); the caller owns the result. */
  kp_process_t *attachProcess(const char *const *kpj_names, size_t kpj_count, int pid) {
    kp_process_t *p = NULL;
    kp_process_attach(&p, $self, kpj_names, kpj_count, (int32_t)pid);
    return p;
  }

  /* kp_process_spawn_ex; partial: KP_PROCESS_PARTIAL; groups null for none. */
  kp_process_t *spawnProcessEx(const char *const *kpj_names, size_t kpj_count,
                               const char *const *kpj_argv, size_t kpj_argc,
                               int partial, const int32_t *kpj_groups, size_t kpj_gcount) {
    kp_process_options_t opts;
    kp_process_t *p = NULL;
    (void)kpj_argc;
    (void)kpj_gcount;
    if (kpj_process_options(&opts, partial, kpj_groups))
      kp_process_spawn_ex(&p, $self, kpj_names, kpj_count, kpj_argv, &opts);
    return p;
  }

  /* kp_process_attach_ex of a process (pid >= 0; 0: this JVM) with options, as spawnProcessEx. */
  kp_process_t *attachProcessEx(const char *const *kpj_names, size_t kpj_count, int pid,
                                int partial, const int32_t *kpj_groups, size_t kpj_gcount) {
    kp_process_options_t opts;
    kp_process_t *p = NULL;
    (void)kpj_gcount;
    if (kpj_process_options(&opts, partial, kpj_groups))
      kp_process_attach_ex(&p, $self, kpj_names, kpj_count, (int32_t)pid, &opts);
    return p;
  }

  /* kp_process_attach_ex with pid KP_PROCESS_SYSTEM_WIDE: every CPU. */
  kp_process_t *attachSystemWide(const char *const *kpj_names, size_t kpj_count,
                                 int partial, const int32_t *kpj_groups, size_t kpj_gcount) {
    kp_process_options_t opts;
    kp_process_t *p = NULL;
    (void)kpj_gcount;
    if (kpj_process_options(&opts, partial, kpj_groups))
      kp_process_attach_ex(&p, $self, kpj_names, kpj_count, KP_PROCESS_SYSTEM_WIDE, &opts);
    return p;
  }
}

%extend kp_thread {
  /* Destructor: kp_thread_free (any thread). */
  ~kp_thread() {
    kp_thread_free($self);
  }

  /* kp_thread_sample: the number of values written, or a negative kp_status (thrown). */
  int sampleInto(uint64_t *kpj_values, size_t kpj_count) {
    int rc = kp_thread_sample($self, kpj_values, kpj_count);
    return rc < 0 ? rc : (int)kp_thread_event_count($self);
  }

  /* kp_thread_sample_full into values, complete flags and {enabled, running} times. */
  int sampleFullInto(uint64_t *kpj_values, size_t kpj_count, uint8_t *kpj_complete,
                     size_t kpj_ccount, uint64_t *kpj_times) {
    int rc;
    if (kpj_ccount < kpj_count)
      kpj_count = kpj_ccount;
    rc = kp_thread_sample_full($self, kpj_values, kpj_complete, kpj_count, &kpj_times[0],
                               &kpj_times[1]);
    return rc < 0 ? rc : (int)kp_thread_event_count($self);
  }

  /* kp_thread_calibrate into offsets (one per event): the cost of an empty measured region. */
  int calibrateInto(uint64_t *kpj_values, size_t kpj_count, unsigned int rounds) {
    int rc = kp_thread_calibrate($self, kpj_values, kpj_count, rounds);
    return rc < 0 ? rc : (int)kp_thread_event_count($self);
  }
}

%extend kp_process {
  /* Destructor: kp_process_free (any thread; kills a spawned command not waited for). */
  ~kp_process() {
    kp_process_free($self);
  }

  /* kp_process_read: the number of values written, or a negative kp_status (thrown). */
  int readInto(uint64_t *kpj_values, size_t kpj_count) {
    int rc = kp_process_read($self, kpj_values, kpj_count);
    return rc < 0 ? rc : (int)kp_process_event_count($self);
  }

  /* kp_process_read_full into values, complete flags, and per-event enabled and running
   * times; every array gets the event count's elements (the shortest one bounds the call). */
  int readFullInto(uint64_t *kpj_values, size_t kpj_count, uint8_t *kpj_complete,
                   size_t kpj_ccount, uint64_t *kpj_enabled, size_t kpj_ecount,
                   uint64_t *kpj_running, size_t kpj_rcount) {
    int rc;
    size_t n = kpj_count;
    if (kpj_ccount < n) n = kpj_ccount;
    if (kpj_ecount < n) n = kpj_ecount;
    if (kpj_rcount < n) n = kpj_rcount;
    rc = kp_process_read_full($self, kpj_values, kpj_complete, n, kpj_enabled, kpj_running);
    return rc < 0 ? rc : (int)kp_process_event_count($self);
  }

  /* kp_process_wait into {exit_code, term_signal}. Blocks; the JVM runs on meanwhile. */
  int waitInto(int *kpj_pair) {
    return kp_process_wait($self, &kpj_pair[0], &kpj_pair[1]);
  }

  /* kp_process_event_status: the reason ("" when counted), the status into kpj_out[0]. NULL
   * (thrown) when the call fails. The reason is borrowed until the next read of the handle:
   * the Java layer keeps reads out while this runs and copies it. */
  const char *eventStatus(size_t index, int *kpj_out) {
    const char *reason = NULL;
    if (kp_process_event_status($self, index, kpj_out, &reason) != KP_OK)
      return NULL;
    return reason ? reason : "";
  }

  /* kp_process_thread_count: per-thread counters (fixed when the handle was made). */
  size_t threadCount() {
    return kp_process_thread_count($self);
  }

  /* kp_process_read_thread into the thread's id, values and complete flags: the number of
   * values written, or a negative kp_status (thrown). */
  int readThreadInto(size_t index, int32_t *kpj_tid, uint64_t *kpj_values, size_t kpj_count,
                     uint8_t *kpj_complete, size_t kpj_ccount) {
    int rc;
    if (kpj_ccount < kpj_count)
      kpj_count = kpj_ccount;
    rc = kp_process_read_thread($self, index, kpj_tid, kpj_values, kpj_complete, kpj_count);
    return rc < 0 ? rc : (int)kp_process_event_count($self);
  }
}
