#!/usr/bin/env bash
# Runs one shard of a swarm and leaves its JSON and JUnit results in $OUT: the entry point of the GitHub Actions
# matrix job and of the Kubernetes Indexed Job next to this script. The shard index comes from SHARD_INDEX, else from
# Kubernetes' JOB_COMPLETION_INDEX (both 0-based); `workbench swarm merge $OUT/*.json` combines the shards.
#
#   SHARD_COUNT   how many shards the seeds are split into (required)
#   SEEDS         the seed range, A..B (default 1..10000)
#   FAULTS        none | network | actors | all (default all)
#   FILES         the scenario files, space-separated (default Simulations/ecosystem-swarm.scn)
#   OUT           where results go (default swarm-results)
#   WORKBENCH     the workbench binary (default: .build/release/workbench, else workbench on PATH)
#   JOBS          worker processes (default: all cores)
set -euo pipefail
cd "$(dirname "$0")/../.."

index="${SHARD_INDEX:-${JOB_COMPLETION_INDEX:-}}"
[ -n "$index" ] || { echo "run-shard: set SHARD_INDEX or JOB_COMPLETION_INDEX (0-based)" >&2; exit 2; }
[ -n "${SHARD_COUNT:-}" ] || { echo "run-shard: set SHARD_COUNT" >&2; exit 2; }
workbench="${WORKBENCH:-}"
if [ -z "$workbench" ]; then
  if [ -x .build/release/workbench ]; then workbench=.build/release/workbench; else workbench=workbench; fi
fi
out="${OUT:-swarm-results}"
mkdir -p "$out"
read -r -a files <<< "${FILES:-Simulations/ecosystem-swarm.scn}"
jobs=()
[ -n "${JOBS:-}" ] && jobs=(--jobs "$JOBS")

# Exit status 1 means the shard found failing seeds: the results are still written, and the merge reports them.
status=0
"$workbench" swarm "${files[@]}" --seeds "${SEEDS:-1..10000}" --faults "${FAULTS:-all}" --shard "$index/$SHARD_COUNT" \
  "${jobs[@]}" --json "$out/shard-$index.json" --junit "$out/shard-$index.xml" || status=$?
[ "$status" -le 1 ] || exit "$status"
exit 0
