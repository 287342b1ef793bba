// The system zlib (zlib1g-dev), for gzip document compression: Swift on Linux has no zlib module of its own.
#include <zlib.h>
