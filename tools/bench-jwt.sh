#!/usr/bin/env bash
# Whole-token RS256 sign and verify of the JWT core next to `openssl speed rsa2048`, in one run, on a
# release build. Figures are per CPU-second of the measuring thread, as `openssl speed` counts by default,
# so builds running next to it on a shared machine do not skew the ratio.
# Usage: tools/bench-jwt.sh [--json] [--seconds N]
# Targets: sign >= 0.97x and verify >= 0.97x openssl speed (--check exits 1 when one is missed).
# Profile one figure: tools/bench-jwt.sh --only verify --flamegraph verify.svg
set -euo pipefail
cd "$(dirname "$0")/.."
command -v openssl >/dev/null || { echo "bench-jwt: openssl is needed (apt-get install openssl)" >&2; exit 1; }
swift build -c release --product workbench >&2
exec .build/release/workbench bench jwt "$@"
