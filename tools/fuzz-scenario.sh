#!/usr/bin/env bash
# Feeds generated scenario lines to the parser and runner (workbench fuzz-scenario, release build) and fails on a
# trap. Lines mix the language's own words with out-of-range numbers, durations, ports, options and broken quotes.
#
# Usage: tools/fuzz-scenario.sh [LINES] [SEED]   (default 10000000 lines, seed 1)
set -euo pipefail
cd "$(dirname "$0")/.."
lines="${1:-10000000}"
seed="${2:-1}"
swift build -c release --product workbench >/dev/null
bin="$(swift build -c release --show-bin-path)"
# Every line is parsed; every 50th accepted line is also run (a world is made every 200 run lines).
time "$bin/workbench" fuzz-scenario --runs "$lines" --seed "$seed" --run-every 50
