#!/usr/bin/env bash
# The API documentation of the library products a team's own tests use (docs/library.md, "Documentation"): one DocC
# archive per module, from its catalog (Sources/MODULE/MODULE.docc) and the public symbol graph of the debug build.
#
#   tools/docs.sh [MODULE…]      default: every library product's module
#
# Writes .build/docs/MODULE.doccarchive (static hosting: serve the folder, open /documentation/MODULE-lowercased/) and
# .build/docs/MODULE.coverage.txt, and prints each module's warnings and its documentation coverage (docc's
# experimental coverage). Fails on any warning (an unresolved symbol link, a parameter without its documentation) and on
# any public symbol of the module without a doc comment (members a conformance or the compiler synthesizes left out).
#
# No package plugin: the symbol graphs come from `swift package dump-symbol-graph` (which builds what is stale, with the
# same flags as `swift build`, so it reuses that build) and the toolchain's own `docc`, so the package needs no
# dependency that every team depending on the workbench would resolve too.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(WorkbenchKit WorkbenchTesting NodeHTTP Wire Kernel IPP MiGClient SCPmsClient IMSSDK AppConnect SOCPrint)
docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
[ -x "$docc" ] || docc="$(command -v docc)" || { echo "docs.sh: no docc beside swift or on PATH" >&2; exit 1; }

echo "== symbol graphs (swift package dump-symbol-graph)"
dump_log=.build/docs/dump-symbol-graph.log
mkdir -p .build/docs
swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members > "$dump_log" 2>&1 || { cat "$dump_log"; exit 1; }
graphs="$(sed -n 's/^Files written to //p' "$dump_log" | tail -n 1)"
[ -d "$graphs" ] || { cat "$dump_log"; echo "docs.sh: no symbol graph folder named in the output above" >&2; exit 1; }

status=0
for module in "${modules[@]}"; do
  catalog="Sources/$module/$module.docc"
  [ -d "$catalog" ] || { echo "docs.sh: $catalog does not exist" >&2; exit 1; }
  # The module's own graph and its extensions of other modules' types (MODULE@OTHER.symbols.json), nothing else.
  module_graphs=".build/docs/$module.symbolgraphs"
  rm -rf "$module_graphs" && mkdir -p "$module_graphs"
  cp "$graphs/$module.symbols.json" "$module_graphs/"
  find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$module_graphs/" \;
  echo "== $module"
  log=".build/docs/$module.log"
  "$docc" convert "$catalog" --additional-symbol-graph-dir "$module_graphs" --output-dir ".build/docs/$module.doccarchive" \
    --fallback-display-name "$module" --fallback-bundle-identifier "workbench.$module" --transform-for-static-hosting \
    --experimental-documentation-coverage --coverage-summary-level brief > "$log" 2>&1 || status=1
  warnings="$(grep -c -E '^(warning|error):' "$log" || true)"
  grep -E '^(warning|error):' -A 3 "$log" || true
  # docc's coverage table (types, members, globals: with an abstract, curated, with a code listing), then the module's
  # own symbols without a doc comment's abstract, by name: a public symbol without one is a defect.
  sed -n '/| Abstract/,/^Globals/p' "$log" | tee ".build/docs/$module.coverage.txt"
  undocumented="$(python3 - ".build/docs/$module.doccarchive/documentation-coverage.json" "$module_graphs" "$module" <<'PY'
import glob, json, re, sys
coverage, graphs, module = sys.argv[1:4]
# What the compiler declares by itself (an enum's init(rawValue:)) has no place in the source, so no comment can be
# written for it: such symbols have no location in the symbol graph.
implicit = set()
for graph in glob.glob(graphs + "/*.symbols.json"):
    for symbol in json.load(open(graph))["symbols"]:
        if "location" not in symbol:
            implicit.add("/".join([module] + symbol["pathComponents"]))
for entry in json.load(open(coverage)):
    if entry["kind"]["isSymbol"] and not entry["hasAbstract"]:
        path = entry["referencePath"].split("/documentation/", 1)[1]
        # docc's disambiguation suffixes (Status-swift.enum, name-1x2y3) are not in the graph's path components.
        if "/".join(re.sub(r"-(swift\.[a-z.]+|[0-9a-z]{4,5})$", "", part) for part in path.split("/")) not in implicit:
            print(path)
PY
)"
  count="$(grep -c . <<< "$undocumented" || true)"
  [ -z "$undocumented" ] || sed 's/^/  no abstract: /' <<< "$undocumented"
  echo "$module: $warnings warning(s), $count public symbol(s) without an abstract; .build/docs/$module.doccarchive"
  [ "$warnings" = 0 ] && [ "$count" = 0 ] || status=1
done
exit "$status"
