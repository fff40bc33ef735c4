#ifndef ARCHIVE_SERVICE_CZLIB_SHIM_H
#define ARCHIVE_SERVICE_CZLIB_SHIM_H

#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros that pass the library version and the stream's size;
 * Swift cannot call a function-like macro, so these inline functions do it. */
static inline int archive_service_deflate_init(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}

static inline int archive_service_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
