#!/usr/bin/env bash
# The main job: set up, build, and run the guided tour of the ecosystem on the simulated wire (it ends with one
# app's day across every system; Simulations/ecosystem-day.scn is that day in full).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --product workbench
exec "$(swift build --show-bin-path)/workbench" run Simulations/tour.scn "$@"
