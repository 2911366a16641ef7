/*
 * libog_iofault.so — makes one file operation on a store's files fail, for the
 * I/O-fault test (og_crash faults; docs/testing.md). Loaded with LD_PRELOAD.
 *
 *   OG_FAULT_DIR     only files under this directory count (the store's)
 *   OG_FAULT_OPS     which operations count: a comma list of write (write,
 *                    pwrite, pwrite64, writev), fsync (fsync, fdatasync),
 *                    ftruncate (ftruncate, ftruncate64), rename (rename,
 *                    renameat, renameat2)
 *   OG_FAULT_NTH     the number of the counted call that fails (1 = the first)
 *   OG_FAULT_ERRNO   EIO (default) or ENOSPC
 *   OG_FAULT_STICKY  1: every counted call after the Nth fails too (a dead or
 *                    full disk); 0: only the Nth (a transient error)
 *   OG_FAULT_REPORT  a file to which each injected failure appends one line
 *
 * Without OG_FAULT_NTH nothing fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counted;
static long nth = -1;
static int sticky, fail_errno = EIO, ready;
static char dir[PATH_MAX], ops[256], report[PATH_MAX];

__attribute__((constructor)) static void setup(void) {
    if (ready) return;
    const char *v;
    if ((v = getenv("OG_FAULT_NTH"))) nth = atol(v);
    if ((v = getenv("OG_FAULT_STICKY"))) sticky = atoi(v);
    if ((v = getenv("OG_FAULT_ERRNO")) && !strcmp(v, "ENOSPC")) fail_errno = ENOSPC;
    if ((v = getenv("OG_FAULT_DIR"))) {
        if (!realpath(v, dir)) snprintf(dir, sizeof dir, "%s", v);
    }
    if ((v = getenv("OG_FAULT_OPS"))) snprintf(ops, sizeof ops, ",%s,", v);
    if ((v = getenv("OG_FAULT_REPORT"))) snprintf(report, sizeof report, "%s", v);
    ready = 1;
}

static int under_dir(const char *path) {
    size_t n = strlen(dir);
    return n && !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0) && (!report[0] || strcmp(path, report) != 0)
           && !strstr(path + n, "/log") && !strstr(path + n, ".txt");
}

static int fd_counts(int fd) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return under_dir(path);
}

/* Whether this call of `op` on a store file fails; counts it. */
static int should_fail(const char *op, const char *what) {
    pthread_mutex_lock(&lock);
    setup();
    int fail = 0;
    char key[32];
    snprintf(key, sizeof key, ",%s,", op);
    if (nth > 0 && strstr(ops, key)) {
        counted++;
        fail = counted == nth || (sticky && counted > nth);
        if (fail && report[0]) {
            int saved = errno;
            int rfd = ((int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open"))(report, O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (rfd >= 0) {
                char line[PATH_MAX + 128];
                int len = snprintf(line, sizeof line, "%s call %ld failed with %s on %s\n", op, counted,
                                   fail_errno == EIO ? "EIO" : "ENOSPC", what);
                ssize_t (*real_write)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
                if (real_write(rfd, line, (size_t)len) < 0) { /* nothing to do */ }
                close(rfd);
            }
            errno = saved;
        }
    }
    pthread_mutex_unlock(&lock);
    return fail;
}

static const char *fd_name(int fd, char *buffer, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buffer, size - 1);
    buffer[n > 0 ? n : 0] = 0;
    return buffer;
}

#define FD_OP(op, call_name, rtype, params, args, fd)                          \
    rtype call_name params {                                                   \
        static rtype(*real) params;                                            \
        if (!real) real = (rtype(*) params)dlsym(RTLD_NEXT, #call_name);       \
        if (fd_counts(fd)) {                                                   \
            char name[PATH_MAX];                                               \
            if (should_fail(op, fd_name(fd, name, sizeof name))) {             \
                errno = fail_errno;                                            \
                return -1;                                                     \
            }                                                                  \
        }                                                                      \
        return real args;                                                      \
    }

FD_OP("write", write, ssize_t, (int fd, const void *b, size_t n), (fd, b, n), fd)
FD_OP("write", pwrite, ssize_t, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o), fd)
FD_OP("write", pwrite64, ssize_t, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o), fd)
FD_OP("write", writev, ssize_t, (int fd, const struct iovec *v, int n), (fd, v, n), fd)
FD_OP("fsync", fsync, int, (int fd), (fd), fd)
FD_OP("fsync", fdatasync, int, (int fd), (fd), fd)
FD_OP("ftruncate", ftruncate, int, (int fd, off_t n), (fd, n), fd)
FD_OP("ftruncate", ftruncate64, int, (int fd, off64_t n), (fd, n), fd)

static int rename_counts(const char *from, const char *to) {
    char a[PATH_MAX], b[PATH_MAX];
    const char *fa = realpath(from, a) ? a : from;
    /* The target may not exist yet: resolve its directory. */
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", to);
    char *slash = strrchr(d, '/');
    const char *ft = to;
    if (slash) {
        *slash = 0;
        if (realpath(d[0] ? d : "/", b)) {
            size_t n = strlen(b);
            snprintf(b + n, sizeof b - n, "/%s", slash + 1);
            ft = b;
        }
    }
    pthread_mutex_lock(&lock);
    setup();
    pthread_mutex_unlock(&lock);
    return under_dir(fa) || under_dir(ft);
}

int rename(const char *from, const char *to) {
    static int (*real)(const char *, const char *);
    if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    if (rename_counts(from, to) && should_fail("rename", to)) { errno = fail_errno; return -1; }
    return real(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to) {
    static int (*real)(int, const char *, int, const char *);
    if (!real) real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
    if (from[0] == '/' && to[0] == '/' && rename_counts(from, to) && should_fail("rename", to)) { errno = fail_errno; return -1; }
    return real(fd1, from, fd2, to);
}

/* With OG_FAULT_COUNT set, the number of counted calls is appended to the report at exit
 * (to size OG_FAULT_NTH). */
__attribute__((destructor)) static void count_at_exit(void) {
    if (!getenv("OG_FAULT_COUNT") || !report[0]) return;
    FILE *f = fopen(report, "a");
    if (f) { fprintf(f, "counted %ld\n", counted); fclose(f); }
}
