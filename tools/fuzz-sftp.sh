#!/usr/bin/env bash
# Fuzzes the SFTP packet decoder with libFuzzer (swiftc -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-sftp.sh [RUNS]   (default 10000000 executions, one job)
# Seeds are made by tools/make-sftp-fuzz-seeds.py into Fuzz/corpus-sftp/ (ignored by git), where libFuzzer adds what
# it finds; crashes are written to Fuzz/corpus-sftp/crashes/. Reproduce one with:
#   .build/sftp-fuzz/sftp-fuzz Fuzz/corpus-sftp/crashes/crash-…
set -euo pipefail
# libFuzzer reports crashes itself; the Swift runtime's backtracer would race it (and trip ASan reading memory).
export SWIFT_BACKTRACE=enable=no

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
runs="${1:-10000000}"

command -v swiftc >/dev/null || { echo "swiftc not found on PATH" >&2; exit 1; }

out="$repo/.build/sftp-fuzz"
mkdir -p "$out" Fuzz/corpus-sftp/crashes
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name SFTPFuzz \
  Sources/SFTP/*.swift Fuzz/SFTPFuzz/*.swift -o "$out/sftp-fuzz"

python3 tools/make-sftp-fuzz-seeds.py Fuzz/corpus-sftp
"$out/sftp-fuzz" -runs="$runs" -max_len=4096 -print_final_stats=1 \
  -artifact_prefix=Fuzz/corpus-sftp/crashes/ Fuzz/corpus-sftp
