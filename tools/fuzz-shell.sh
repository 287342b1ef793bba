#!/usr/bin/env bash
# Fuzzes Sunfire's shell parser with libFuzzer (the SwiftPM target ShellFuzz, -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-shell.sh [RUNS]   (default 10000000 executions, one job)
# Seeds are the app's own command lines and hostile ones, written to Fuzz/corpus-shell/ (ignored by git); crashes go
# to Fuzz/corpus-shell/crashes/. Reproduce one with: .build/fuzz/debug/ShellFuzz Fuzz/corpus-shell/crashes/crash-…
source "$(dirname "${BASH_SOURCE[0]}")/fuzz-lib.sh"
fuzz_prepare shell "${1:-10000000}"
fuzz_build ShellFuzz

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
fuzz_run 2048
