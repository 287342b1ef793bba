#!/usr/bin/env bash
# Fuzzes Sunfire's shell parser with libFuzzer (swiftc -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-shell.sh [RUNS]   (default 10000000 executions, one job)
# Seeds are the app's own command lines and hostile ones, written to Fuzz/corpus-shell/ (ignored by git); crashes go
# to Fuzz/corpus-shell/crashes/. Reproduce one with: .build/shell-fuzz/shell-fuzz Fuzz/corpus-shell/crashes/crash-…
set -euo pipefail
# libFuzzer reports crashes itself; the Swift runtime's backtracer would race it (and trip ASan reading memory).
export SWIFT_BACKTRACE=enable=no

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
runs="${1:-10000000}"

command -v swiftc >/dev/null || { echo "swiftc not found on PATH" >&2; exit 1; }

out="$repo/.build/shell-fuzz"
mkdir -p "$out" Fuzz/corpus-shell/crashes
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name ShellFuzz \
  Sources/SunfireHost/Shell/ShellParser.swift Fuzz/ShellFuzz/*.swift -o "$out/shell-fuzz"

seed=0
while IFS= read -r line; do
  printf '%s' "$line" > "Fuzz/corpus-shell/seed-$seed"
  seed=$((seed + 1))
done <<'SEEDS'
mkdir socPrint/
find socPrint/ -type f \( \! -name 'nup_pdf.jar' \) \( \! -name 'docs-to-pdf-converter-1.7.jar' \) \( \! -name 'Multivalent.jar' \) -exec rm '{}' \;
md5 socPrint/docs-to-pdf-converter-1.7.jar
java -jar socPrint/docs-to-pdf-converter-1.7.jar -i socPrint/source.pptx -o socPrint/source.pdf
gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=2 -dLastPage=6 -sOutputFile=socPrint/source-trimmed.pdf socPrint/source.pdf
java -classpath socPrint/Multivalent.jar tool.pdf.Impose -paper a4 -nup 6 socPrint/source.pdf
pdftops socPrint/formatted.pdf socPrint/"Term project.ps"
lpr -P psts socPrint/"it's \"quoted\" \$5.ps"
ls "; rm -rf ~" '$(rm x)' `rm x` a\ b ~/x
scp -t 'socPrint/source.pptx'
SEEDS
"$out/shell-fuzz" -runs="$runs" -max_len=2048 -print_final_stats=1 \
  -artifact_prefix=Fuzz/corpus-shell/crashes/ Fuzz/corpus-shell
