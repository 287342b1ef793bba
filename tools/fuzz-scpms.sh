#!/usr/bin/env bash
# Fuzzes the SCPms parsers (request routes, OData bodies and dates, client log uploads) with libFuzzer
# (the SwiftPM target SCPmsFuzz, -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-scpms.sh [RUNS]   (default 10000000 executions, one job)
# Seeds are written to Fuzz/corpus-scpms/ (ignored by git); their first byte picks the parser (0 route, 1 OData body,
# 2 OData date, 3 log upload, see Fuzz/SCPmsFuzz/SCPmsFuzz.swift). Crashes go to Fuzz/corpus-scpms/crashes/.
# Reproduce one with: .build/fuzz/debug/SCPmsFuzz Fuzz/corpus-scpms/crashes/crash-…
source "$(dirname "${BASH_SOURCE[0]}")/fuzz-lib.sh"
fuzz_prepare scpms "${1:-10000000}"
fuzz_build SCPmsFuzz

seed=0
# As they are (JSON keeps its backslashes).
while IFS= read -r line; do
  printf '%s' "$line" > "Fuzz/corpus-scpms/seed-$seed"
  seed=$((seed + 1))
done <<'SEEDS'
0/odata/applications/latest/com.sap.demo/Connections
0/odata/applications/v1/com.sap.demo/Connections('4f1b-AB_12.x')
0/odata/applications/v22/com.sap.demo/Connections(%27AB-12%27)
0/mobileservices/application/com.x/clientlogs/v1/runtime/log/application/com.x
0/com.sap.demo/some/resource
0/odata/applications/beta/a/Connections('')
0/a%zz/%C3%A9/%ff
1{"DeviceType":"iPhone","DeviceModel":"iPhone15,2","UserName":"demo","Email":null,"CustomCustom1":"\u00e9\ud83d\ude00\n"}
1{"d":{"DeviceType":"Toaster","ApnsDeviceToken":"a1b2"}}
1{"ETag":"x"}
1{"DeviceType":1}
1[{"DeviceType":"Android"}]
1{"d":{"d":{}}}
1  
2/Date(1767225600000)/
2/Date(-1767225600000+0100)/
2/Date(9223372036854775807)/
2/Date(-9223372036854775808-0000)/
2/Date(12a)/
3#2026-01-01 00:00:00.000#INFO#corr-1#MyApp#Main.swift:12#started#
3#2026-01-01 00:00:00#FATAL####a \# hash and a \\ backslash, é, 😀#
3#2026-01-01 00:00:00#WARN#c#s#l#m\x#
3#9999-12-31 23:59:59.999#DEBUG#c#s#l#m#extra#
SEEDS
# With escapes (several lines, CR LF).
while IFS= read -r line; do
  printf '%b' "$line" > "Fuzz/corpus-scpms/seed-$seed"
  seed=$((seed + 1))
done <<'SEEDS'
3#2026-01-01 00:00:00#INFO#a#b#c#one#\n\n  \t\n#2026-01-02 00:00:00.5#ERROR#a#b#c#two#\r\n
3#2026-01-01 00:00:00#INFO#a#b#c#tab\there#\r\n\r\n#2026-01-01 00:00:00#INFO#a#b#c#cafe\u0301 (decomposed)#\n
3\n\n
SEEDS
fuzz_run 4096
