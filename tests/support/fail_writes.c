/* An LD_PRELOAD shim that makes writes to one file fail, as a dying disk
 * does: write, pwrite, pwrite64, fsync and fdatasync on a file whose path
 * starts with $FAIL_WRITES_PATH (so the store, its -wal, -shm and -journal)
 * succeed $FAIL_WRITES_AFTER times in all, then fail with EIO, every one
 * after. Each failure it causes is appended to $FAIL_WRITES_REPORT (when
 * set), so a test knows that a failure happened and what it hit. Calls on
 * other files (the terminal, logs, DPDK's runtime files) pass untouched.
 *
 * The path is the one /proc/self/fd/N names, so the shim needs no bookkeeping
 * of open() and works for files opened before it counts. Not for production:
 * one readlink per write. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static atomic_long calls_passed;

/* Whether `fd` is one of the files the failures are for. */
static int matches(int fd) {
    const char* prefix = getenv("FAIL_WRITES_PATH");
    if (!prefix || !*prefix) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strncmp(path, prefix, strlen(prefix)) == 0;
}

/* Appends one line to the report with raw system calls (the shim's own
 * write would come back here). */
static void report(const char* call, int fd) {
    const char* file = getenv("FAIL_WRITES_REPORT");
    if (!file || !*file) return;
    char link[64], path[4096], line[4300];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    path[n > 0 ? n : 0] = 0;
    const int len = snprintf(line, sizeof line, "%s %s EIO\n", call, path);
    const int out = (int)syscall(SYS_openat, AT_FDCWD, file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out < 0) return;
    if (syscall(SYS_write, out, line, (size_t)len) < 0) { /* nothing to do */ }
    syscall(SYS_close, out);
}

/* Whether this call on `fd` is to fail (it then counts nothing). */
static int fail_now(const char* call, int fd) {
    if (!matches(fd)) return 0;
    const char* after = getenv("FAIL_WRITES_AFTER");
    const long limit = after ? strtol(after, NULL, 10) : 0;
    if (atomic_fetch_add(&calls_passed, 1) < limit) return 0;
    report(call, fd);
    errno = EIO;
    return 1;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void* buf, size_t n) {
    if (fail_now("write", fd)) return -1;
    return REAL(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
    if (fail_now("pwrite", fd)) return -1;
    return REAL(pwrite)(fd, buf, n, at);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t at) {
    if (fail_now("pwrite64", fd)) return -1;
    return REAL(pwrite64)(fd, buf, n, at);
}

int fsync(int fd) {
    if (fail_now("fsync", fd)) return -1;
    return REAL(fsync)(fd);
}

int fdatasync(int fd) {
    if (fail_now("fdatasync", fd)) return -1;
    return REAL(fdatasync)(fd);
}
