# Sourced by tools/fuzz-*.sh: what every libFuzzer script does around its own sources and seeds.
set -euo pipefail
# libFuzzer reports crashes itself; the Swift runtime's backtracer would race it (and trip ASan reading memory).
export SWIFT_BACKTRACE=enable=no
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
command -v swiftc >/dev/null || { echo "swiftc not found on PATH" >&2; exit 1; }

# fuzz_prepare NAME RUNS [CORPUS]: checks RUNS, makes .build/NAME-fuzz/ ($out) and CORPUS/crashes/ (default
# Fuzz/corpus-NAME, ignored by git).
fuzz_prepare() {
  name="$1"
  runs="$2"
  corpus="${3:-Fuzz/corpus-$name}"
  [[ "$runs" =~ ^[1-9][0-9]{0,11}$ ]] || { echo "expected a number of runs from 1 to 999999999999, found '$runs'" >&2; exit 2; }
  out="$repo/.build/$name-fuzz"
  mkdir -p "$out" "$corpus/crashes"
}

# fuzz_module NAME: builds the small library target Sources/NAME (one the fuzzed sources import) as $out/NAME.o and its
# module in $out, for fuzz_compile -I "$out" … "$out/NAME.o".
fuzz_module() {
  swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name "$1" -emit-module \
    -emit-module-path "$out/$1.swiftmodule" -c Sources/"$1"/*.swift -o "$out/$1.o"
}

# fuzz_compile MODULE SWIFTC-ARGUMENTS…: builds $out/NAME-fuzz with libFuzzer and AddressSanitizer.
fuzz_compile() {
  local module="$1"
  shift
  swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name "$module" "$@" -o "$out/$name-fuzz"
}

# fuzz_run MAX_LEN: RUNS executions over the corpus; crashes are written to CORPUS/crashes/.
fuzz_run() {
  "$out/$name-fuzz" -runs="$runs" -max_len="$1" -print_final_stats=1 -artifact_prefix="$corpus/crashes/" "$corpus"
}
