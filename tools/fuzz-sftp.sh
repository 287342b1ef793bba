#!/usr/bin/env bash
# Fuzzes the SFTP packet decoder with libFuzzer (the SwiftPM target SFTPFuzz, -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-sftp.sh [RUNS]   (default 10000000 executions, one job)
# Seeds are made by tools/make-sftp-fuzz-seeds.py into Fuzz/corpus-sftp/ (ignored by git), where libFuzzer adds what
# it finds; crashes are written to Fuzz/corpus-sftp/crashes/. Reproduce one with:
#   .build/fuzz/debug/SFTPFuzz Fuzz/corpus-sftp/crashes/crash-…
source "$(dirname "${BASH_SOURCE[0]}")/fuzz-lib.sh"
fuzz_prepare sftp "${1:-10000000}"
fuzz_build SFTPFuzz

python3 tools/make-sftp-fuzz-seeds.py Fuzz/corpus-sftp
fuzz_run 4096
