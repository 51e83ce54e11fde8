#!/usr/bin/python3
"""A small org.freedesktop.Notifications server for the project's tests.

It implements the parts of the Desktop Notifications Specification that
`birthdays` uses and records what it is asked, so a test can check it:

- every Notify call is appended to $NOTIFY_LOG as one JSON object per line
  (id, app_name, replaces_id, summary, body, actions, hints, expire_timeout);
- GetCapabilities answers "actions body body-markup persistence";
- CloseNotification emits NotificationClosed(id, 3);
- with $AUTO_ACTION=<key>, a notification that offers that action is
  answered 200 ms later with ActionInvoked(id, key) and NotificationClosed(id, 2),
  as if the user had clicked the button; with $AUTO_ACTION_BEFORE_REPLY=1 as
  well, both signals are sent before the reply to Notify, so the client reads
  them before it knows the id (what a fast server and a quick click can do).

It prints "ready" on standard output once it owns the bus name, which is
what a test waits for (never a sleep). Needs python3-dbus and python3-gi.
"""
import json
import os

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


class NotificationServer(dbus.service.Object):
    def __init__(self, bus, log_path, auto_action, before_reply):
        super().__init__(bus, PATH)
        self.log_path = log_path
        self.auto_action = auto_action
        self.before_reply = before_reply
        self.last_id = 0

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body", "body-markup", "persistence"]

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("birthdays-test-notifyd", "birthdays", "1.0", "1.2")

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        if replaces_id:
            notification = int(replaces_id)
        else:
            self.last_id += 1
            notification = self.last_id
        keys = [str(action) for action in actions]
        record = {
            "id": notification,
            "app_name": str(app_name),
            "replaces_id": int(replaces_id),
            "app_icon": str(app_icon),
            "summary": str(summary),
            "body": str(body),
            "actions": keys,
            "hints": {str(key): plain(value) for key, value in hints.items()},
            "expire_timeout": int(expire_timeout),
        }
        with open(self.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        if self.auto_action and self.auto_action in keys[0::2]:
            if self.before_reply:
                # Signals go out at once; the reply only when this method returns.
                self.click(notification, self.auto_action)
            else:
                GLib.timeout_add(200, self.click, notification, self.auto_action)
        return dbus.UInt32(notification)

    def click(self, notification, key):
        self.ActionInvoked(dbus.UInt32(notification), key)
        self.NotificationClosed(dbus.UInt32(notification), dbus.UInt32(2))
        return False

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, notification):
        self.NotificationClosed(notification, dbus.UInt32(3))

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, notification, key):
        pass

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, notification, reason):
        pass


def plain(value):
    """A D-Bus variant's value as JSON: integers stay numbers, the rest is text."""
    if isinstance(value, (dbus.Byte, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64, dbus.Boolean)):
        return int(value)
    return str(value)


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    # Keep a reference: the name is released when the object is collected.
    owned = dbus.service.BusName(NAME, bus, do_not_queue=True)
    NotificationServer(
        bus,
        os.environ.get("NOTIFY_LOG", "notifications.jsonl"),
        os.environ.get("AUTO_ACTION"),
        os.environ.get("AUTO_ACTION_BEFORE_REPLY") == "1",
    )
    print("ready", flush=True)
    GLib.MainLoop().run()
    del owned


if __name__ == "__main__":
    main()
