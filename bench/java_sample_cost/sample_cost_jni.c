/* Native half of bench/java_sample_cost: the least a JNI sample can do, an empty JNI call and
 * getppid() in C and through JNI, so that SampleCost can show where the time of the
 * binding's Counters.sample(long[]) goes. Uses libkpc's public C API only. */
#include <jni.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <kpc/kpc.h>

#define MAX_EVENTS 32

/* One sampler and one handle on the calling thread, for the events in a comma-separated
 * list; started. 0 on failure (the message goes to stderr). */
JNIEXPORT jlong JNICALL Java_SampleCost_bareOpen(JNIEnv *env, jclass cls, jstring events) {
  const char *utf = (*env)->GetStringUTFChars(env, events, NULL);
  char *copy, *names[MAX_EVENTS], *save = NULL;
  size_t n = 0;
  kp_sampler_t *s = NULL;
  kp_thread_t *t = NULL;
  (void)cls;
  if (!utf)
    return 0;
  copy = strdup(utf);
  (*env)->ReleaseStringUTFChars(env, events, utf);
  if (!copy)
    return 0;
  for (char *name = strtok_r(copy, ",", &save); name && n < MAX_EVENTS;
       name = strtok_r(NULL, ",", &save))
    names[n++] = name;
  if (kp_sampler_new(&s, NULL) != KP_OK ||
      kp_thread_new(&t, s, (const char *const *)names, n) != KP_OK ||
      kp_thread_start(t) != KP_OK) {
    fprintf(stderr, "bare handle: %s\n", kp_error_last_message());
    kp_thread_free(t);
    t = NULL;
  }
  kp_sampler_free(s); /* the handle keeps the session alive */
  free(copy);
  return (jlong)(intptr_t)t;
}

JNIEXPORT void JNICALL Java_SampleCost_bareClose(JNIEnv *env, jclass cls, jlong t) {
  (void)env;
  (void)cls;
  kp_thread_free((kp_thread_t *)(intptr_t)t);
}

/* One JNI call, one kp_thread_sample into a C buffer, the values copied into the array:
 * what any JNI sample must do. Returns the kp_status. */
JNIEXPORT jint JNICALL Java_SampleCost_bareSample(JNIEnv *env, jclass cls, jlong t,
                                                  jlongArray into, jint count) {
  uint64_t buf[MAX_EVENTS];
  int rc = kp_thread_sample((kp_thread_t *)(intptr_t)t, buf, (size_t)count);
  (void)cls;
  if (rc == KP_OK)
    (*env)->SetLongArrayRegion(env, into, 0, count, (const jlong *)buf);
  return rc;
}

JNIEXPORT void JNICALL Java_SampleCost_empty(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
}

static uint64_t thread_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* n getppid() system calls in a C loop; the thread CPU ns they took. */
JNIEXPORT jlong JNICALL Java_SampleCost_getppidLoop(JNIEnv *env, jclass cls, jint n) {
  uint64_t start = thread_ns();
  (void)env;
  (void)cls;
  for (jint i = 0; i < n; i++)
    syscall(SYS_getppid);
  return (jlong)(thread_ns() - start);
}

JNIEXPORT void JNICALL Java_SampleCost_getppid(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  syscall(SYS_getppid);
}
