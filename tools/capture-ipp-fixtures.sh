#!/usr/bin/env bash
# Captures IPP fixtures from real peers: ipptool (client) talks to ippeveprinter
# (reference IPP Everywhere printer) through tools/ipp-capture-proxy.py, which
# writes every request and response as Fixtures/ipp/<name>.ipp.
#
# Usage: tools/capture-ipp-fixtures.sh [OUT_DIR]   (default: Fixtures/ipp)
# Ports: ippeveprinter on $IPP_PRINTER_PORT (8631), proxy on $IPP_PROXY_PORT (8632).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/Fixtures/ipp}"
printer_port="${IPP_PRINTER_PORT:-8631}"
proxy_port="${IPP_PROXY_PORT:-8632}"

need=()
command -v ipptool >/dev/null || need+=(cups-ipp-utils)
command -v ippeveprinter >/dev/null || need+=(cups-ipp-utils)
command -v dbus-daemon >/dev/null || need+=(dbus)
command -v python3 >/dev/null || need+=(python3)
if ((${#need[@]})); then
  apt-get update
  apt-get install -y "${need[@]}"
fi

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

wait_for_port() {
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# ippeveprinter refuses to start without a D-Bus, even with DNS-SD off: give it a private one.
dbus_pid="$(dbus-daemon --session --address="unix:path=$work/dbus.sock" --fork --print-pid)"
pids+=("$dbus_pid")
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/dbus.sock"

mkdir -p "$work/spool" "$out"
ippeveprinter -2 -n localhost -p "$printer_port" -d "$work/spool" -c /bin/true -r off \
  -f application/pdf,image/jpeg,image/pwg-raster -l "Workbench lab" \
  -M Workbench -m "Fixture Printer" "Workbench Fixture Printer" >"$work/printer.log" 2>&1 &
pids+=("$!")
wait_for_port "$printer_port"

# The stock test files name sample documents that Debian does not ship: run them
# from a copy next to a placeholder document.
cp /usr/share/cups/ipptool/*.test "$work/"
cp "$repo/tools/ipp-syntax-capture.test" "$work/"
printf '%%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%%%EOF\n' >"$work/document.pdf"

capture() {
  local prefix="$1" test_file="$2"
  rm -f "$out/$prefix"-*.ipp
  python3 "$repo/tools/ipp-capture-proxy.py" --listen "$proxy_port" --upstream "$printer_port" \
    --out "$out" --prefix "$prefix" >"$work/proxy-$prefix.log" 2>&1 &
  local proxy_pid="$!"
  wait_for_port "$proxy_port"
  (cd "$work" && ipptool -tI -f document.pdf "ipp://localhost:$proxy_port/ipp/print" "$test_file") \
    >"$work/ipptool-$prefix.log" 2>&1 || true
  kill "$proxy_pid"
  wait "$proxy_pid" 2>/dev/null || true
  grep '^captured' "$work/proxy-$prefix.log" | sed "s|$out/||"
  if grep -q '\[FAIL\]' "$work/ipptool-$prefix.log"; then
    echo "note: ipptool reported [FAIL] for $test_file (fixtures are still valid captures):"
    grep -B1 -A3 '\[FAIL\]' "$work/ipptool-$prefix.log" | head -20
  fi
}

capture get-printer-attributes get-printer-attributes.test
capture print-job print-job.test
capture print-job-media-col print-job-media-col.test
capture create-job create-job.test
capture validate-job validate-job.test
capture get-jobs get-jobs.test
capture get-job-attributes get-job-attributes.test
capture syntax ipp-syntax-capture.test

echo "fixtures in $out:"
ls -l "$out"/*.ipp | awk '{print $5, $9}'
