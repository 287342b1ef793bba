#!/usr/bin/env bash
# Compares the IPP codec with libcups on the same message, in one run.
#
# Builds the release workbench and tools/libcups-bench/ipp_bench.c, times both
# (auto-scaled batches, median of 7 rounds, monotonic clock), then counts
# allocations per message with the preloaded counting allocator
# tools/libcups-bench/malloc_count.c (a separate run, so that it does not skew timings).
#
# Usage: tools/bench-ipp.sh [MESSAGE.ipp]
#   default message: the ippeveprinter Get-Printer-Attributes response fixture.
# Targets: decode >= 10x faster than libcups, encode >= 2x faster.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
message="${1:-Fixtures/ipp/get-printer-attributes-01-get-printer-attributes-response.ipp}"
[[ -f "$message" ]] || { echo "no such message file: $message" >&2; exit 1; }

need=()
command -v cc >/dev/null || need+=(gcc libc6-dev)
command -v python3 >/dev/null || need+=(python3)
[[ -f /usr/include/cups/ipp.h ]] || need+=(libcups2-dev)
if ((${#need[@]})); then
  apt-get update
  apt-get install -y "${need[@]}"
fi

out="$repo/.build/ipp-bench"
mkdir -p "$out"
cc -O2 -o "$out/ipp_bench" tools/libcups-bench/ipp_bench.c -lcups -ldl
cc -O2 -shared -fPIC -o "$out/malloc_count.so" tools/libcups-bench/malloc_count.c -ldl

# IPP_BENCH_COMMAND lets a development package stand in for `workbench bench ipp`.
if [[ -n "${IPP_BENCH_COMMAND:-}" ]]; then
  read -r -a ours <<<"$IPP_BENCH_COMMAND"
else
  swift build -c release --product workbench >&2
  ours=("$repo/.build/release/workbench" bench ipp)
fi

ours_json="$("${ours[@]}" --input "$message" --json)"
cups_json="$("$out/ipp_bench" "$message" --json)"
ours_alloc_json="$(LD_PRELOAD="$out/malloc_count.so" "${ours[@]}" --input "$message" --json --rounds 1 --batch-ms 5)"
cups_alloc_json="$(LD_PRELOAD="$out/malloc_count.so" "$out/ipp_bench" "$message" --json)"

python3 - "$message" "$ours_json" "$cups_json" "$ours_alloc_json" "$cups_alloc_json" <<'EOF'
import json, sys
message, ours, cups, ours_alloc, cups_alloc = sys.argv[1], *map(json.loads, sys.argv[2:])
def fmt(ns): return "%.1f ns (%.2f us)" % (ns, ns / 1000)
print("message: %s (%d bytes)" % (message, cups["bytes"]))
print("ours    decode %s   encode %s   decode+read all values %s" % (
    fmt(ours["decode_ns_per_message"]), fmt(ours["encode_ns_per_message"]),
    fmt(ours["decode_and_read_values_ns_per_message"])))
print("libcups decode %s   encode %s" % (fmt(cups["decode_ns_per_message"]), fmt(cups["encode_ns_per_message"])))
decode_ratio = cups["decode_ns_per_message"] / ours["decode_ns_per_message"]
encode_ratio = cups["encode_ns_per_message"] / ours["encode_ns_per_message"]
read_ratio = cups["decode_ns_per_message"] / ours["decode_and_read_values_ns_per_message"]
print("ratio (libcups time / our time): decode %.1fx (target >= 10x: %s), encode %.1fx (target >= 2x: %s), "
      "decode+read values %.1fx" % (decode_ratio, "met" if decode_ratio >= 10 else "NOT met",
                                    encode_ratio, "met" if encode_ratio >= 2 else "NOT met", read_ratio))
print("allocations per message: ours decode %s encode %s; libcups decode %s encode %s" % (
    ours_alloc.get("decode_allocations_per_message"), ours_alloc.get("encode_allocations_per_message"),
    cups_alloc.get("decode_allocations_per_message"), cups_alloc.get("encode_allocations_per_message")))
if not cups.get("encode_reproduces_input", True):
    print("note: libcups re-encodes this message differently from the input")
EOF
