// zlib, for gzip document compression (IPP `compression=gzip`). Debian: zlib1g-dev.
#include <zlib.h>

// inflateInit2 is a macro; Swift cannot call macros.
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 16 + MAX_WBITS);
}
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
