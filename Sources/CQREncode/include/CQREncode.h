#ifndef BIRTHDAYS_CQRENCODE_H
#define BIRTHDAYS_CQRENCODE_H

#include <qrencode.h>

/// The libqrencode functions birthdays calls, as pointers filled in by
/// `cqrencode_load` the first time a QR code is drawn (`feed url --qr`,
/// `channels qr`): no other command, and never the daemon, loads the
/// library, and a machine without it (Debian's libqrencode4) runs every
/// other command. qrencode.h declares the real functions but nothing links
/// them, so a call that bypasses this table fails to link.
struct cqrencode_functions {
    __typeof__(QRcode_encodeString) *QRcode_encodeString;
    __typeof__(QRcode_free) *QRcode_free;
};

/// The functions, loaded once; NULL with `*failure` set to dlopen's words when
/// libqrencode.so.4 cannot be loaded.
const struct cqrencode_functions *cqrencode_load(const char **failure);

#endif
