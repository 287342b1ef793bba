#!/usr/bin/env bash
# The crash campaign: `workbench serve` (MiG, SCPms, IMS signer and IMS) under concurrent clients, killed with
# SIGKILL at moments drawn from a seed and restarted on the same ports and state each time; at the end every
# acknowledged MiG job must be in the spool exactly once with its document, every acknowledged SCPms
# registration must read back, and no IMS token accepted before a crash may be accepted again.
#
# Usage: tools/crash-campaign.sh [--release] [--workbench BIN] [--seed N] [--kills N] [--min-up S] [--max-up S]
#                                [--mig-clients N] [--scpms-clients N] [--ims-clients N]
#                                [--mig-sync default|true|false] [--state DIR]
#   --release        build and use the release binary (default: the debug one)
#   --workbench BIN  use this binary, do not build
# Prints `kills=… acknowledged_jobs=… missing=… duplicated=… registrations=… missing=… replays_accepted=…`
# and exits 1 on any loss. Needs python3 and a built workbench (tools/setup.sh installs what is missing).
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=debug
binary=""
passed=()
while [ $# -gt 0 ]; do
  case "$1" in
    --release) configuration=release; shift ;;
    --workbench) binary="${2:?--workbench needs a path}"; shift 2 ;;
    *) passed+=("$1"); shift ;;
  esac
done

if [ -z "$binary" ]; then
  # Incremental: a no-op when the binary is up to date.
  swift build -c "$configuration" --product workbench >&2
  binary="$(swift build -c "$configuration" --show-bin-path)/workbench"
fi
[ -x "$binary" ] || { echo "crash-campaign: no workbench binary at $binary" >&2; exit 2; }
command -v python3 >/dev/null || { echo "crash-campaign: python3 is missing (tools/setup.sh installs it)" >&2; exit 2; }

exec python3 tools/crash-campaign.py --workbench "$binary" ${passed[@]+"${passed[@]}"}
