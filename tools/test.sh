#!/usr/bin/env bash
# The test command: check the code's format, set up, build, check every scenario for determinism (in one process and across two),
# check the library's API documentation, then run the whole test suite (unit, wire proofs, interop with real third-party
# tools).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== swift-format lint (the style in .swift-format; fix with: swift format format -i -r --parallel Package.swift Sources Tests Fuzz Examples)"
swift format lint --strict --recursive --parallel Package.swift Sources Tests Fuzz Examples

tools/setup.sh --build-tests
bin="$(swift build --show-bin-path)"

echo "== scenarios: every file, three seeds, each run twice"
for seed in 1 2 3; do
  "$bin/workbench" run Simulations/*.scn --seed "$seed" --verify-determinism > /tmp/workbench-scenarios.$seed.log 2>&1 \
    || { cat /tmp/workbench-scenarios.$seed.log; exit 1; }
  tail -n 1 /tmp/workbench-scenarios.$seed.log
done

echo "== scenarios: the same digest from two separate processes"
first="$("$bin/workbench" run Simulations/*.scn --seed 42 | tail -n 1)"
second="$("$bin/workbench" run Simulations/*.scn --seed 42 | tail -n 1)"
[ "$first" = "$second" ] || { echo "digests differ across processes:"; echo "  $first"; echo "  $second"; exit 1; }
echo "$first"

echo "== the library's API documentation (DocC: no warning, every public symbol documented)"
tools/docs.sh > /tmp/workbench-docs.log 2>&1 || { cat /tmp/workbench-docs.log; exit 1; }
grep -E '^[A-Za-z]+: [0-9]+ warning' /tmp/workbench-docs.log

echo "== swift test"
# errexit is off for the pipeline alone: with pipefail a failing test run would end the script here, before the
# summary below that names what failed.
set +e
swift test --skip-build 2>&1 | tee /tmp/workbench-swift-test.log | grep -vE '^(◇|↳)' | tail -n 40
status="${PIPESTATUS[0]}"
set -e
if [ "$status" -ne 0 ]; then
  # The tail above rarely holds the failing test (the suites finish in parallel): name every issue last, where a
  # CI page that shows only the end of the output still has it.
  echo "== what failed (the whole log: /tmp/workbench-swift-test.log)"
  grep -E '✘|Fatal error|Exited with (signal|unexpected)|error: .*Test' /tmp/workbench-swift-test.log | grep -v '^✘ Suite ' | head -n 60
fi
exit "$status"
