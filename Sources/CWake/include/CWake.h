#ifndef BIRTHDAYS_CWAKE_H
#define BIRTHDAYS_CWAKE_H
/*
 * Small wrappers over Linux clock and file-watch APIs that Glibc's Swift
 * module does not expose (timerfd, eventfd, inotify), for detecting wall-clock
 * jumps, resume from suspend and time-zone changes without polling.
 * Every function returns a negative errno on failure.
 */
#include <stddef.h>
#include <stdint.h>

/* What a read of the clock-change timer means. */
enum {
    CWAKE_TIMER_EXPIRED = 1,        /* the timer reached its instant */
    CWAKE_TIMER_CLOCK_CHANGED = 2,  /* read failed with ECANCELED: CLOCK_REALTIME was set (or the system resumed) */
    CWAKE_TIMER_NOTHING = 3,        /* EAGAIN / EINTR: nothing to report yet */
    CWAKE_TIMER_ERROR = 4           /* any other failure */
};

/* Which descriptors cwake_wait found readable (a bit set). */
enum {
    CWAKE_READY_TIMER = 1,
    CWAKE_READY_WATCH = 2,
    CWAKE_READY_STOP = 4
};

/* A non-blocking, close-on-exec timerfd on CLOCK_REALTIME. */
int cwake_timerfd_open(void);

/* Arms `fd` to expire at `epoch_seconds` (absolute, CLOCK_REALTIME) with
 * TFD_TIMER_CANCEL_ON_SET, so any discontinuous change of the wall clock
 * makes the next read fail with ECANCELED. Re-arm after every such read. */
int cwake_timerfd_arm(int fd, int64_t epoch_seconds);

/* Whole seconds left before `fd` expires (0 when disarmed or expired). */
int64_t cwake_timerfd_remaining_seconds(int fd);

/* Reads `fd` once and classifies the result (see cwake_classify_read). */
int cwake_timerfd_read(int fd);

/* Classifies the result of read() on a timerfd: `n` bytes read, `err` the
 * errno when n < 0. Pure, so the ECANCELED path is testable without setting
 * the system clock. */
int cwake_classify_read(long n, int err);

/* CLOCK_BOOTTIME minus CLOCK_MONOTONIC in nanoseconds: the total time the
 * system has spent suspended since boot. It grows by the length of each
 * suspension; between suspensions it jitters by the few nanoseconds between
 * the two clock reads (so compare it with a threshold, never for equality). */
int64_t cwake_suspended_ns(void);

/* (boot_sec, boot_nsec) minus (mono_sec, mono_nsec) in nanoseconds. */
int64_t cwake_timespec_diff_ns(int64_t boot_sec, int64_t boot_nsec, int64_t mono_sec, int64_t mono_nsec);

/* A non-blocking, close-on-exec eventfd used to wake a thread blocked in poll. */
int cwake_eventfd(void);
/* Makes `fd` readable (adds 1 to the eventfd counter). */
int cwake_eventfd_signal(int fd);
/* Resets the counter; returns 1 when it was signalled. */
int cwake_eventfd_drain(int fd);

/* Removes watch `wd` of inotify descriptor `fd`: 0, or a negative errno. */
int cwake_inotify_remove(int fd, int wd);

/* A non-blocking inotify descriptor watching `directory` for files being
 * created, replaced, renamed, written, re-linked or deleted. */
int cwake_watch_directory(const char *directory);

/* Drains pending events on an inotify descriptor; returns 1 when one of them
 * names `name` (e.g. "localtime"), 0 when none does. */
int cwake_watch_read(int fd, const char *name);

/* A non-blocking, close-on-exec inotify descriptor without watches (for cwake_inotify_add). */
int cwake_inotify_open(void);

/* Watches `directory` on `fd` for entries being created, written, renamed in
 * or out, deleted or re-linked, and for the directory itself going away;
 * returns the watch descriptor. */
int cwake_inotify_add(int fd, const char *directory);

/* Watches `directory` on `fd` for files being written (every write, not
 * only the last close: SQLite keeps its write-ahead log open), created or
 * renamed in, and for the directory itself going away; returns the watch
 * descriptor. */
int cwake_inotify_add_writes(int fd, const char *directory);

/* Reads pending events of `fd` into `buffer` (at least 4096 bytes, aligned
 * for struct inotify_event); returns the bytes read, 0 when none is
 * pending, or a negative errno. */
long cwake_inotify_read(int fd, void *buffer, unsigned long size);

/* What one event of a read means, besides its name. */
enum {
    CWAKE_INOTIFY_ENTRY = 1,     /* an entry of the directory changed */
    CWAKE_INOTIFY_GONE = 2,      /* the watched directory was deleted or moved, or the watch ended */
    CWAKE_INOTIFY_OVERFLOW = 4   /* events were lost: look at everything again */
};

/* Decodes the event at `*offset` of the `length` bytes read into `buffer`:
 * its watch descriptor, a CWAKE_INOTIFY_* kind and its name ("" when none),
 * and moves `*offset` past it. Returns 0 when no event is left. */
int cwake_inotify_event(const void *buffer, long length, long *offset, int *wd, int *kind, const char **name);

/* Blocks until one of the descriptors is readable (pass -1 to leave one out)
 * and returns the CWAKE_READY_* bits; retries on EINTR. */
int cwake_wait(int timer_fd, int watch_fd, int stop_fd);

/* Adds "close every descriptor from `low_fd` up" to a
 * posix_spawn_file_actions_t (glibc's posix_spawn_file_actions_addclosefrom_np,
 * which Swift's Glibc module does not expose). `actions` points at the
 * posix_spawn_file_actions_t. */
int cwake_spawn_add_closefrom(void *actions, int low_fd);

/* glibc's POSIX_SPAWN_SETSID flag (the child starts a session of its own),
 * which Swift's Glibc module does not expose. */
int cwake_spawn_setsid_flag(void);

/* Closes `fd` if it is not negative. */
void cwake_close(int fd);

/// Names the calling thread for ps, top and /proc (at most 15 bytes are kept).
void cwake_name_thread(const char *name);

/* A pidfd for process `pid` (pidfd_open(2), Linux 5.3 and later), readable
 * once the whole process has ended (a child of ours: ended, not yet reaped);
 * close-on-exec; -errno on failure (-ENOSYS before 5.3). */
int cwake_pidfd_open(int pid);

/* Asks the kernel to reclaim the pages of [addr, addr + length) now
 * (madvise MADV_PAGEOUT, Linux 5.4); 0, or -errno (-EINVAL before 5.4). */
int cwake_page_out(void *addr, size_t length);

/* A pipe whose two ends are close-on-exec from the start (pipe2 O_CLOEXEC),
 * so no child started by another thread in between inherits them; 0 or -errno. */
int cwake_pipe_cloexec(int fds[2]);

/* Returns the allocator's free memory to the kernel (glibc's malloc_trim(0)). */
void cwake_malloc_trim(void);

/* SIGINT and SIGTERM caught, only recorded (for `users move`, which must not stop half-way):
 * cwake_catch_stop_signals() installs the handler, cwake_stop_signal() says which of them came
 * since (0 for none), cwake_default_stop_signals() puts the default action back. */
int cwake_catch_stop_signals(void);
int cwake_stop_signal(void);
void cwake_default_stop_signals(void);

#endif
