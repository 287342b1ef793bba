#!/usr/bin/env bash
# Fuzzes the IPP decoder with libFuzzer (the SwiftPM target IPPFuzz, -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-ipp.sh [RUNS]   (default 10000000 executions, one job)
# The seed corpus Fixtures/ipp/fuzz-seeds/ is copied to Fuzz/corpus-run/ (ignored by git),
# where libFuzzer adds what it finds; crashes are written to Fuzz/corpus-run/crashes/.
# Reproduce a crash with: .build/fuzz/debug/IPPFuzz Fuzz/corpus-run/crashes/crash-…
source "$(dirname "${BASH_SOURCE[0]}")/fuzz-lib.sh"
fuzz_prepare ipp "${1:-10000000}" Fuzz/corpus-run
fuzz_build IPPFuzz

cp -n Fixtures/ipp/fuzz-seeds/* Fuzz/corpus-run/ 2>/dev/null || true
fuzz_run 16384
