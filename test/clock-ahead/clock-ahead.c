/*
 * clock-ahead: an LD_PRELOAD library that moves the wall clock (CLOCK_REALTIME and its
 * variants, gettimeofday, time) ahead by CLOCK_AHEAD_DAYS days, for every process and thread
 * it is loaded into: Node, chdb's engine, Chromium. Monotonic clocks and every wait are left
 * as they are, so timers, condition variables and sleeps behave exactly as without it.
 *
 * Why not Debian's libfaketime: its 0.9.10 rewrites the deadlines of pthread condition waits
 * on the monotonic clock as if they were wall-clock times (upstream issues #469 and #503), so
 * chdb's idle threads spin (2 cores busy while idle; the dated suites ran 13x slower). Moving
 * the wall clock is all that CI's moved-ahead runs need. Built by `.ci/run` with the
 * machine's gcc; `bash test/clock-ahead/run.sh DAYS -- command` runs a command under it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long offset_s = -1;

static long long offset(void) {
  if (offset_s < 0) {
    const char *days = getenv("CLOCK_AHEAD_DAYS");
    offset_s = days ? atoll(days) * 86400LL : 0;
    if (offset_s < 0) offset_s = 0;
  }
  return offset_s;
}

static int is_wall(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  static int (*real)(clockid_t, struct timespec *) = 0;
  if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  int rc = real(id, ts);
  if (rc == 0 && ts && is_wall(id)) ts->tv_sec += offset();
  return rc;
}

int gettimeofday(struct timeval *tv, void *tz) {
  static int (*real)(struct timeval *, void *) = 0;
  if (!real) real = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
  int rc = real(tv, tz);
  if (rc == 0 && tv) tv->tv_sec += offset();
  return rc;
}

time_t time(time_t *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}
