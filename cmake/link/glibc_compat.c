/*
 * Keeps libobjectgraph.so (and the SQLite library the wheel carries) loadable
 * on glibc 2.28 (RHEL 8, Debian 10) although they are linked on a newer one.
 *
 * A library linked against glibc >= 2.34 records the newest version of each
 * function it calls: pthread_create@GLIBC_2.34 (libpthread folded into libc),
 * stat@GLIBC_2.33 (before, stat was an inline over __xstat), exp@GLIBC_2.29
 * (new implementations without the SVID error wrapper), hypotf@GLIBC_2.35.
 * A loader older than that refuses the library.
 *
 * The link renames each reference X to __wrap_X (`--wrap=X`, one per line of
 * glibc_compat.wrap); the wrappers below call the oldest version of X, which
 * every glibc since 2.2.5 still exports and which is the same code (glibc keeps
 * old versions as aliases; the math functions differ only in how they report
 * errors: errno as before). stat, fstat and lstat call __xstat & co., which
 * glibc 2.33 and later still export for programs linked before 2.33.
 *
 * x86_64 only (CMake leaves it out elsewhere): the versions are that ABI's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#if !defined(__x86_64__) || !defined(__GLIBC__)
#error "glibc_compat.c pins x86_64 glibc symbol versions"
#endif

/* og_pinned_X is a reference to X@VERSION; __wrap_X forwards to it. */
#define OG_PIN(ret, name, version, params, args)                                 \
    __asm__(".symver og_pinned_" #name ", " #name "@" version);                  \
    ret og_pinned_##name params;                                                 \
    __attribute__((visibility("hidden"))) ret __wrap_##name params {             \
        return og_pinned_##name args;                                            \
    }

/* libm: GLIBC_2.29 (exp, exp2, log, log2, pow) and GLIBC_2.35 (hypotf). */
OG_PIN(double, exp, "GLIBC_2.2.5", (double x), (x))
OG_PIN(double, exp2, "GLIBC_2.2.5", (double x), (x))
OG_PIN(double, log, "GLIBC_2.2.5", (double x), (x))
OG_PIN(double, log2, "GLIBC_2.2.5", (double x), (x))
OG_PIN(double, pow, "GLIBC_2.2.5", (double x, double y), (x, y))
OG_PIN(float, hypotf, "GLIBC_2.2.5", (float x, float y), (x, y))

/* Threads and semaphores: GLIBC_2.32 and 2.34, in libpthread.so.0 before 2.34. */
OG_PIN(int, pthread_create, "GLIBC_2.2.5",
       (pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *p), (t, a, f, p))
OG_PIN(int, pthread_join, "GLIBC_2.2.5", (pthread_t t, void **r), (t, r))
OG_PIN(int, pthread_kill, "GLIBC_2.2.5", (pthread_t t, int s), (t, s))
OG_PIN(int, pthread_sigmask, "GLIBC_2.2.5", (int h, const sigset_t *s, sigset_t *o), (h, s, o))
OG_PIN(int, pthread_getattr_np, "GLIBC_2.2.5", (pthread_t t, pthread_attr_t *a), (t, a))
OG_PIN(int, pthread_attr_getstack, "GLIBC_2.2.5",
       (const pthread_attr_t *a, void **s, size_t *n), (a, s, n))
OG_PIN(int, pthread_getaffinity_np, "GLIBC_2.3.4",
       (pthread_t t, size_t n, cpu_set_t *c), (t, n, c))
OG_PIN(int, pthread_setname_np, "GLIBC_2.12", (pthread_t t, const char *n), (t, n))
OG_PIN(int, pthread_key_create, "GLIBC_2.2.5", (pthread_key_t *k, void (*d)(void *)), (k, d))
OG_PIN(void *, pthread_getspecific, "GLIBC_2.2.5", (pthread_key_t k), (k))
OG_PIN(int, pthread_setspecific, "GLIBC_2.2.5", (pthread_key_t k, const void *v), (k, v))
OG_PIN(int, pthread_mutex_trylock, "GLIBC_2.2.5", (pthread_mutex_t *m), (m))
OG_PIN(int, pthread_mutexattr_init, "GLIBC_2.2.5", (pthread_mutexattr_t *a), (a))
OG_PIN(int, pthread_mutexattr_destroy, "GLIBC_2.2.5", (pthread_mutexattr_t *a), (a))
OG_PIN(int, pthread_mutexattr_settype, "GLIBC_2.2.5", (pthread_mutexattr_t *a, int k), (a, k))
OG_PIN(int, sem_init, "GLIBC_2.2.5", (sem_t *s, int p, unsigned v), (s, p, v))
OG_PIN(int, sem_destroy, "GLIBC_2.2.5", (sem_t *s), (s))
OG_PIN(int, sem_post, "GLIBC_2.2.5", (sem_t *s), (s))
OG_PIN(int, sem_wait, "GLIBC_2.2.5", (sem_t *s), (s))
OG_PIN(int, sem_timedwait, "GLIBC_2.2.5", (sem_t *s, const struct timespec *t), (s, t))

/* sem_open takes a mode and a value only with O_CREAT. */
__asm__(".symver og_pinned_sem_open, sem_open@GLIBC_2.2.5");
sem_t *og_pinned_sem_open(const char *name, int flags, ...);
__attribute__((visibility("hidden"))) sem_t *__wrap_sem_open(const char *name, int flags, ...) {
    if (!(flags & O_CREAT)) return og_pinned_sem_open(name, flags);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = va_arg(ap, mode_t);
    unsigned value = va_arg(ap, unsigned);
    va_end(ap);
    return og_pinned_sem_open(name, flags, mode, value);
}

/* Dynamic loading: GLIBC_2.34, in libdl.so.2 before. */
OG_PIN(void *, dlopen, "GLIBC_2.2.5", (const char *f, int m), (f, m))
OG_PIN(void *, dlsym, "GLIBC_2.2.5", (void *h, const char *s), (h, s))
OG_PIN(int, dlclose, "GLIBC_2.2.5", (void *h), (h))
OG_PIN(char *, dlerror, "GLIBC_2.2.5", (void), ())
OG_PIN(int, dladdr, "GLIBC_2.2.5", (const void *a, Dl_info *i), (a, i))

/* stat & co.: functions since GLIBC_2.33; before, calls of __xstat with the
   version of struct stat (1 on x86_64), which struct stat64 shares. */
#define OG_STAT_VER 1
OG_PIN(int, __xstat, "GLIBC_2.2.5", (int v, const char *p, struct stat *b), (v, p, b))
OG_PIN(int, __lxstat, "GLIBC_2.2.5", (int v, const char *p, struct stat *b), (v, p, b))
OG_PIN(int, __fxstat, "GLIBC_2.2.5", (int v, int fd, struct stat *b), (v, fd, b))
OG_PIN(int, __xstat64, "GLIBC_2.2.5", (int v, const char *p, struct stat64 *b), (v, p, b))
OG_PIN(int, __lxstat64, "GLIBC_2.2.5", (int v, const char *p, struct stat64 *b), (v, p, b))
OG_PIN(int, __fxstat64, "GLIBC_2.2.5", (int v, int fd, struct stat64 *b), (v, fd, b))
__attribute__((visibility("hidden"))) int __wrap_stat(const char *p, struct stat *b) {
    return og_pinned___xstat(OG_STAT_VER, p, b);
}
__attribute__((visibility("hidden"))) int __wrap_lstat(const char *p, struct stat *b) {
    return og_pinned___lxstat(OG_STAT_VER, p, b);
}
__attribute__((visibility("hidden"))) int __wrap_fstat(int fd, struct stat *b) {
    return og_pinned___fxstat(OG_STAT_VER, fd, b);
}
__attribute__((visibility("hidden"))) int __wrap_stat64(const char *p, struct stat64 *b) {
    return og_pinned___xstat64(OG_STAT_VER, p, b);
}
__attribute__((visibility("hidden"))) int __wrap_lstat64(const char *p, struct stat64 *b) {
    return og_pinned___lxstat64(OG_STAT_VER, p, b);
}
__attribute__((visibility("hidden"))) int __wrap_fstat64(int fd, struct stat64 *b) {
    return og_pinned___fxstat64(OG_STAT_VER, fd, b);
}

/* libstdc++ 11 (GLIBCXX_3.4.29) throws here on an impossible array size; the
   Swift runtime is built without exceptions, so the throw would terminate the
   process: do that directly, and need only the libstdc++ of GCC 8. */
__attribute__((visibility("hidden"), noreturn)) void _ZSt28__throw_bad_array_new_lengthv(void) {
    abort();
}
