# Sourced by tools/fuzz-*.sh: what every libFuzzer script does around its own fuzz target and seeds.
set -euo pipefail
# libFuzzer reports crashes itself; the Swift runtime's backtracer would race it (and trip ASan reading memory).
export SWIFT_BACKTRACE=enable=no
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
command -v swift >/dev/null || { echo "swift not found on PATH" >&2; exit 1; }

# fuzz_prepare NAME RUNS [CORPUS]: checks RUNS, makes CORPUS/crashes/ (default Fuzz/corpus-NAME, ignored by git).
fuzz_prepare() {
  name="$1"
  runs="$2"
  corpus="${3:-Fuzz/corpus-$name}"
  [[ "$runs" =~ ^[1-9][0-9]{0,11}$ ]] || { echo "expected a number of runs from 1 to 999999999999, found '$runs'" >&2; exit 2; }
  mkdir -p "$corpus/crashes"
}

# fuzz_build TARGET: builds the fuzz target TARGET (Package.swift, Fuzz/TARGET) with libFuzzer and AddressSanitizer,
# optimised, and sets $fuzzer to it. Its own scratch path .build/fuzz: the sanitizer flags would otherwise make the
# everyday build start over. `--sanitize fuzzer` makes SwiftPM link libFuzzer's main (and build TARGET as a library);
# it instruments only TARGET's own module, so -sanitize=fuzzer again for every module the input reaches (without it
# libFuzzer finds no coverage); -DFUZZING leaves out the plain build's replaying main (see Fuzz/FuzzReplay).
fuzz_build() {
  local flags=(--scratch-path "$repo/.build/fuzz" --sanitize fuzzer --sanitize address
               -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -O)
  swift build "${flags[@]}" --product "$1"
  fuzzer="$(swift build "${flags[@]}" --show-bin-path)/$1"
}

# fuzz_run MAX_LEN: RUNS executions over the corpus; crashes are written to CORPUS/crashes/.
fuzz_run() {
  "$fuzzer" -runs="$runs" -max_len="$1" -print_final_stats=1 -artifact_prefix="$corpus/crashes/" "$corpus"
}
