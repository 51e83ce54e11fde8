#define _GNU_SOURCE
#include "CWake.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int cwake_timerfd_open(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

int cwake_timerfd_arm(int fd, int64_t epoch_seconds) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value.tv_sec = (time_t)epoch_seconds;
    if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL) != 0) return -errno;
    return 0;
}

int64_t cwake_timerfd_remaining_seconds(int fd) {
    struct itimerspec spec;
    if (timerfd_gettime(fd, &spec) != 0) return -errno;
    return (int64_t)spec.it_value.tv_sec;
}

int cwake_classify_read(long n, int err) {
    if (n == (long)sizeof(uint64_t)) return CWAKE_TIMER_EXPIRED;
    if (n < 0 && err == ECANCELED) return CWAKE_TIMER_CLOCK_CHANGED;
    if (n < 0 && (err == EAGAIN || err == EWOULDBLOCK || err == EINTR)) return CWAKE_TIMER_NOTHING;
    return CWAKE_TIMER_ERROR;
}

int cwake_timerfd_read(int fd) {
    uint64_t expirations = 0;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    return cwake_classify_read((long)n, n < 0 ? errno : 0);
}

int64_t cwake_timespec_diff_ns(int64_t boot_sec, int64_t boot_nsec, int64_t mono_sec, int64_t mono_nsec) {
    return (boot_sec - mono_sec) * 1000000000LL + (boot_nsec - mono_nsec);
}

int64_t cwake_suspended_ns(void) {
    struct timespec boot, mono;
    /* Read MONOTONIC first: a suspension between the two reads then shows
     * up in this sample instead of making it negative. */
    if (clock_gettime(CLOCK_MONOTONIC, &mono) != 0) return -errno;
    if (clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return -errno;
    int64_t diff = cwake_timespec_diff_ns(boot.tv_sec, boot.tv_nsec, mono.tv_sec, mono.tv_nsec);
    return diff < 0 ? 0 : diff;
}

int cwake_eventfd(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

int cwake_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == (ssize_t)sizeof one ? 0 : -errno;
}

int cwake_eventfd_drain(int fd) {
    uint64_t value = 0;
    return read(fd, &value, sizeof value) == (ssize_t)sizeof value && value > 0 ? 1 : 0;
}

int cwake_watch_directory(const char *directory) {
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) return -errno;
    uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB;
    if (inotify_add_watch(fd, directory, mask) < 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

int cwake_watch_read(int fd, const char *name) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int matched = 0;
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        for (char *p = buffer; p < buffer + n;) {
            const struct inotify_event *event = (const struct inotify_event *)p;
            if (event->len > 0 && strcmp(event->name, name) == 0) matched = 1;
            if (event->mask & IN_Q_OVERFLOW) matched = 1;
            p += sizeof(struct inotify_event) + event->len;
        }
    }
    return matched;
}

int cwake_inotify_open(void) {
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

int cwake_inotify_add(int fd, const char *directory) {
    uint32_t mask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF
        | IN_ONLYDIR;
    int wd = inotify_add_watch(fd, directory, mask);
    return wd < 0 ? -errno : wd;
}

int cwake_inotify_add_writes(int fd, const char *directory) {
    uint32_t mask = IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
    int wd = inotify_add_watch(fd, directory, mask);
    return wd < 0 ? -errno : wd;
}

int cwake_inotify_remove(int fd, int wd) {
    return inotify_rm_watch(fd, wd) < 0 ? -errno : 0;
}

long cwake_inotify_read(int fd, void *buffer, unsigned long size) {
    ssize_t n = read(fd, buffer, size);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
    return (long)n;
}

int cwake_inotify_event(const void *buffer, long length, long *offset, int *wd, int *kind, const char **name) {
    if (*offset + (long)sizeof(struct inotify_event) > length) return 0;
    const struct inotify_event *event = (const struct inotify_event *)((const char *)buffer + *offset);
    *offset += (long)sizeof(struct inotify_event) + (long)event->len;
    *wd = event->wd;
    *name = event->len > 0 ? event->name : "";
    if (event->mask & IN_Q_OVERFLOW) *kind = CWAKE_INOTIFY_OVERFLOW;
    else if (event->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)) *kind = CWAKE_INOTIFY_GONE;
    else *kind = CWAKE_INOTIFY_ENTRY;
    return 1;
}

int cwake_wait(int timer_fd, int watch_fd, int stop_fd) {
    struct pollfd fds[3] = {
        { .fd = timer_fd, .events = POLLIN },
        { .fd = watch_fd, .events = POLLIN },
        { .fd = stop_fd, .events = POLLIN },
    };
    for (;;) {
        int n = poll(fds, 3, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -errno;
        int ready = 0;
        if (fds[0].revents) ready |= CWAKE_READY_TIMER;
        if (fds[1].revents) ready |= CWAKE_READY_WATCH;
        if (fds[2].revents) ready |= CWAKE_READY_STOP;
        return ready;
    }
}

int cwake_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, (pid_t)pid, 0);
    return fd < 0 ? -errno : (int)fd;
#else
    (void)pid;
    return -ENOSYS;
#endif
}

int cwake_spawn_add_closefrom(void *actions, int low_fd) {
    return -posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, low_fd);
}

int cwake_spawn_setsid_flag(void) { return POSIX_SPAWN_SETSID; }

void cwake_close(int fd) {
    if (fd >= 0) close(fd);
}

void cwake_name_thread(const char *name) {
    (void)pthread_setname_np(pthread_self(), name);
}


#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

int cwake_page_out(void *addr, size_t length) {
    return madvise(addr, length, MADV_PAGEOUT) == 0 ? 0 : -errno;
}

void cwake_malloc_trim(void) {
    (void)malloc_trim(0);
}

int cwake_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}

static volatile sig_atomic_t cwake_caught_signal = 0;

static void cwake_record_signal(int signal) {
    cwake_caught_signal = signal;
}

int cwake_catch_stop_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cwake_record_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    cwake_caught_signal = 0;
    if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) return -errno;
    return 0;
}

int cwake_stop_signal(void) {
    return cwake_caught_signal;
}

void cwake_default_stop_signals(void) {
    (void)signal(SIGINT, SIG_DFL);
    (void)signal(SIGTERM, SIG_DFL);
}
