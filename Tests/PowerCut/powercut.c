// Records every write to one file and every barrier that makes writes durable, for the simulated
// power cuts of Tests/StrataTests/PowerCutTests.swift. Loaded with LD_PRELOAD into the helper that
// writes (strata-stress); the test rebuilds the file as a power cut at any point of the log would
// leave it.
//
//   STRATA_POWERCUT_FILE  the file to watch (its real path)
//   STRATA_POWERCUT_LOG   where to append the log
//
// Records, in the order the calls returned: a type byte, an 8-byte offset, a 4-byte length, then
// `length` bytes for writes and markers.
//   'W' a write (durable only after a later 'S')     'D' a write on an O_DSYNC descriptor (durable)
//   'S' fsync or fdatasync of the file               'A' a write to stdout (the helper's "ack N")
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char watched[PATH_MAX];
static int log_fd = -1;
static int ready = 0;
static unsigned char tracked[MAX_FDS];  // 0 no, 1 yes, 2 yes and O_DSYNC

static int (*real_open)(const char *, int, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_close)(int);

static void setup(void) {
    if (ready) return;
    real_open = dlsym(RTLD_NEXT, "open");
    real_write = dlsym(RTLD_NEXT, "write");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_close = dlsym(RTLD_NEXT, "close");
    const char *file = getenv("STRATA_POWERCUT_FILE");
    const char *log = getenv("STRATA_POWERCUT_LOG");
    if (file) strncpy(watched, file, sizeof(watched) - 1);
    if (log) log_fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    ready = 1;
}

static void write_all(const void *bytes, size_t count) {
    const char *next = bytes;
    while (count > 0) {
        ssize_t done = real_write(log_fd, next, count);
        if (done <= 0) abort();  // a log with a hole would make every later check meaningless
        next += done;
        count -= (size_t)done;
    }
}

static void record(char type, uint64_t offset, const void *bytes, uint32_t length) {
    if (log_fd < 0) return;
    unsigned char header[13];
    header[0] = (unsigned char)type;
    memcpy(header + 1, &offset, 8);
    memcpy(header + 9, &length, 4);
    write_all(header, sizeof(header));
    if (length > 0) write_all(bytes, length);
}

static int is_tracked(int fd) { return fd >= 0 && fd < MAX_FDS && tracked[fd]; }

int open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list arguments;
        va_start(arguments, flags);
        mode = va_arg(arguments, mode_t);
        va_end(arguments);
    }
    pthread_mutex_lock(&lock);
    setup();
    int fd = real_open(path, flags, mode);
    if (fd >= 0 && fd < MAX_FDS) {
        char resolved[PATH_MAX];
        tracked[fd] = 0;
        if (watched[0] && realpath(path, resolved) && strcmp(resolved, watched) == 0) {
            tracked[fd] = (flags & O_DSYNC) ? 2 : 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return fd;
}

int open64(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list arguments;
        va_start(arguments, flags);
        mode = va_arg(arguments, mode_t);
        va_end(arguments);
    }
    return open(path, flags, mode);
}

ssize_t pwrite(int fd, const void *bytes, size_t count, off_t offset) {
    pthread_mutex_lock(&lock);
    setup();
    ssize_t done = real_pwrite(fd, bytes, count, offset);
    if (done > 0 && is_tracked(fd)) record(tracked[fd] == 2 ? 'D' : 'W', (uint64_t)offset, bytes, (uint32_t)done);
    pthread_mutex_unlock(&lock);
    return done;
}

ssize_t pwrite64(int fd, const void *bytes, size_t count, off_t offset) { return pwrite(fd, bytes, count, offset); }

ssize_t write(int fd, const void *bytes, size_t count) {
    pthread_mutex_lock(&lock);
    setup();
    off_t offset = is_tracked(fd) ? lseek(fd, 0, SEEK_CUR) : 0;
    ssize_t done = real_write(fd, bytes, count);
    if (done > 0 && is_tracked(fd)) record(tracked[fd] == 2 ? 'D' : 'W', (uint64_t)offset, bytes, (uint32_t)done);
    if (done > 0 && fd == 1) record('A', 0, bytes, (uint32_t)done);
    pthread_mutex_unlock(&lock);
    return done;
}

ssize_t writev(int fd, const struct iovec *vectors, int count) {
    pthread_mutex_lock(&lock);
    setup();
    off_t offset = is_tracked(fd) ? lseek(fd, 0, SEEK_CUR) : 0;
    ssize_t done = real_writev(fd, vectors, count);
    if (done > 0 && is_tracked(fd)) {
        size_t left = (size_t)done;
        for (int index = 0; index < count && left > 0; index++) {
            size_t part = vectors[index].iov_len < left ? vectors[index].iov_len : left;
            record(tracked[fd] == 2 ? 'D' : 'W', (uint64_t)offset, vectors[index].iov_base, (uint32_t)part);
            offset += (off_t)part;
            left -= part;
        }
    }
    pthread_mutex_unlock(&lock);
    return done;
}

int fsync(int fd) {
    pthread_mutex_lock(&lock);
    setup();
    int result = real_fsync(fd);
    if (result == 0 && is_tracked(fd)) record('S', 0, NULL, 0);
    pthread_mutex_unlock(&lock);
    return result;
}

int fdatasync(int fd) {
    pthread_mutex_lock(&lock);
    setup();
    int result = real_fdatasync(fd);
    if (result == 0 && is_tracked(fd)) record('S', 0, NULL, 0);
    pthread_mutex_unlock(&lock);
    return result;
}

int close(int fd) {
    pthread_mutex_lock(&lock);
    setup();
    if (fd >= 0 && fd < MAX_FDS) tracked[fd] = 0;
    int result = real_close(fd);
    pthread_mutex_unlock(&lock);
    return result;
}
