#!/usr/bin/env bash
# Fuzzes MiG's HTTP header unfolder (obs-fold before NIO's parser) with libFuzzer (the SwiftPM target UnfoldFuzz, -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-unfold.sh [RUNS]   (default 10000000 executions, one job)
# The input function calls HeaderUnfolding, the handler's NIO-free part. Seeds, request heads as nginx
# forwards them, are written to Fuzz/corpus-unfold/ (ignored by git); crashes go to Fuzz/corpus-unfold/crashes/.
# Reproduce one with: .build/fuzz/debug/UnfoldFuzz Fuzz/corpus-unfold/crashes/crash-…
source "$(dirname "${BASH_SOURCE[0]}")/fuzz-lib.sh"
fuzz_prepare unfold "${1:-10000000}"
fuzz_build UnfoldFuzz

seed=0
while IFS= read -r line; do
  printf '%b' "$line" > "Fuzz/corpus-unfold/seed-$seed"
  seed=$((seed + 1))
done <<'SEEDS'
POST /ipp/print HTTP/1.0\r\nHost: mig\r\nSSL_CLIENT_CERT: -----BEGIN CERTIFICATE-----\r\n\tMIIBszCCAVmgAwIBAgIUQ0\r\n\tZ2VydGlmaWNhdGU=\r\n\t-----END CERTIFICATE-----\r\nContent-Type: application/ipp\r\nContent-Length: 9\r\n\r\n\x01\x01\x00\x02\x00\x00\x00\x01\x03
POST /ipp/print HTTP/1.0\nHost: mig\nSSL_CLIENT_CERT: -----BEGIN CERTIFICATE-----\n\tMIIBszCCAVmgAwIBAgIUQ0\n\t-----END CERTIFICATE-----\r\nContent-Length: 0\r\n\r\n
GET / HTTP/1.1\r\nX-Folded: a\r\n  \t b\r\n \r\nX-Empty:\r\n\t\r\n\r\nbody \r\n continues
GET / HTTP/1.1\r\n\r\n
\r\n\r\n\r\n \r\n\r\n
GET / HTTP/1.1\r\nHost: x\r\r\n\n \n\t\r\n\r\n
SEEDS
fuzz_run 4096
