#!/usr/bin/env bash
# The IPP codec next to libcups, like for like, in one run: builds the release workbench and runs
# `workbench bench ipp`, which compiles the libcups harness (tools/libcups-bench/ipp_bench.c) and the
# counting allocator (tools/libcups-bench/malloc_count.c) itself and prints one verdict line per target,
# naming the two figures it compares:
#   decode_tree  vs libcups_read   (ours: decode + every name and value read as its typed view; libcups: ippReadIO's tree)
#   encode_built vs libcups_build_write  (ours: builders from typed values + encode; libcups: ippNew, one
#                                         ippAdd* per attribute from typed values, ippWriteIO, ippDelete)
#   decode       vs libcups_read   (the lazy index)
# (encode, a copy of a decoded message, is shown next to libcups_write, ippWriteIO of a tree already built.)
# Usage: tools/bench-ipp.sh [workbench bench ipp options, e.g. --json or --input FILE]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
swift build -c release --product workbench >&2
exec .build/release/workbench bench ipp "$@"
