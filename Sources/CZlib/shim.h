// The system zlib (zlib1g-dev), for gzip print documents: MiG inflates them into its spool, the MiG client
// deflates them as they stream. Swift on Linux has no zlib module of its own.
#include <zlib.h>

// inflateInit2 and deflateInit2 are macros; Swift cannot call macros.
static inline int czlib_inflate_init_gzip(z_streamp stream) {
    return inflateInit2(stream, 16 + MAX_WBITS);
}
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}

// Raw deflate streams (no zlib or gzip header), as ZIP entries carry them: ODF and OOXML documents, jars.
static inline int czlib_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
static inline int czlib_deflate_init_raw(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
