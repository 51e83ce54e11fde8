#!/usr/bin/env bash
# Before `make test`: the kernel's limit of inotify instances per user.
# The suite runs dozens of `birthdays run` daemons and `serve`s at once, each
# with an inotify instance or three (the wake monitor, the database watch, the
# source watcher, the feed's file stamp), beside Chromium's and dunst's. Debian's
# default of 128 instances runs out mid-suite, and a daemon then cannot hear
# another command's writes (it says so in its log and rereads only at its next
# wake), which the tests of that behaviour report as timeouts. One person's
# machine runs one daemon; this raises the limit to 1024 for the tests when it
# can (root, or sudo without a password), and otherwise says what to do.
set -euo pipefail
want=1024
limit=/proc/sys/fs/inotify/max_user_instances
[ -r "$limit" ] || exit 0
have=$(cat "$limit")
[ "$have" -ge "$want" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    sysctl -q -w fs.inotify.max_user_instances=$want && exit 0
elif sudo -n true 2>/dev/null; then
    sudo -n sysctl -q -w fs.inotify.max_user_instances=$want && exit 0
fi
echo "note: fs.inotify.max_user_instances is $have; the daemon tests may time out when it runs out" \
    "(sudo sysctl -w fs.inotify.max_user_instances=$want raises it until the next boot)" >&2
