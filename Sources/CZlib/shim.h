#ifndef BIRTHDAYS_CZLIB_H
#define BIRTHDAYS_CZLIB_H

#include <zlib.h>

/// deflateInit2 is a macro over deflateInit2_, which Swift cannot call.
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// inflateInit2 for gzip (tests decompress what the server sent).
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 15 + 16);
}

#endif
