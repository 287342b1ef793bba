#!/usr/bin/env bash
# Fuzzes the IPP decoder with libFuzzer (swiftc -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-ipp.sh [RUNS]   (default 10000000 executions, one job)
# The seed corpus Fixtures/ipp/fuzz-seeds/ is copied to Fuzz/corpus-run/ (ignored by git),
# where libFuzzer adds what it finds; crashes are written to Fuzz/corpus-run/crashes/.
# Reproduce a crash with: .build/ipp-fuzz/ipp-fuzz Fuzz/corpus-run/crashes/crash-…
set -euo pipefail
# libFuzzer reports crashes itself; the Swift runtime's backtracer would race it (and trip ASan reading memory).
export SWIFT_BACKTRACE=enable=no

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
runs="${1:-10000000}"

command -v swiftc >/dev/null || { echo "swiftc not found on PATH" >&2; exit 1; }

out="$repo/.build/ipp-fuzz"
mkdir -p "$out" Fuzz/corpus-run/crashes
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name IPPFuzz \
  Sources/IPP/*.swift Fuzz/IPPFuzz/*.swift -o "$out/ipp-fuzz"

cp -n Fixtures/ipp/fuzz-seeds/* Fuzz/corpus-run/ 2>/dev/null || true
"$out/ipp-fuzz" -runs="$runs" -max_len=16384 -print_final_stats=1 \
  -artifact_prefix=Fuzz/corpus-run/crashes/ Fuzz/corpus-run
