#!/usr/bin/env bash
# Fuzzes the Ivanti derived-credential parsers (bus URLs, AppConnect requests and replies, the credential payload,
# base64url) with libFuzzer (the SwiftPM target IvantiFuzz, -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-ivanti.sh [RUNS]   (default 10000000 executions, one job)
# Seeds are written to Fuzz/corpus-ivanti/ (ignored by git); their first byte picks the parser (0 URL, 1 request, 2 reply,
# 3 payload, 4 base64url, see Fuzz/IvantiFuzz/IvantiFuzz.swift). Crashes go to Fuzz/corpus-ivanti/crashes/.
# Reproduce one with: .build/fuzz/debug/IvantiFuzz Fuzz/corpus-ivanti/crashes/crash-…
source "$(dirname "${BASH_SOURCE[0]}")/fuzz-lib.sh"
fuzz_prepare ivanti "${1:-10000000}"
fuzz_build IvantiFuzz

key="$(head -c 32 /dev/zero | tr '\0' '\011' | base64 -w0 | tr '+/' '-_' | tr -d '=')"
seed=0
while IFS= read -r line; do
  printf '%s' "${line//KEY/$key}" > "Fuzz/corpus-ivanti/seed-$seed"
  seed=$((seed + 1))
done <<'SEEDS'
0myapp://certificate?serial=12%2034%2F%C3%A9&tag=Signing&empty=
0Scheme+x.y-z://new
0appconnectdc:credential
0appconnectdc://credential?v&=1&a=%G1&b=%FF&c=%
1appconnect://register?scheme=Mail-AC
1appconnectdc://credential?v=1&epk=KEY&nonce=AQEBAQEBAQEBAQEB&box=AwQF
1appconnectdc://credential?v=2&epk=KEY&nonce=AQEBAQEBAQEBAQE=&box=
1appconnectdc://certificate?serial=S%201&tag=Escrow
1appconnectdc://certificate?serial=1&tag=Bogus
2mail-ac://state?auth=authorized&policy=managed&secure=available&ready=true&key=KEY
2mail-ac://state?auth=retired&policy=unknown&secure=unavailable&ready=false&key=KEY
2mail-ac://certificate?serial=1&tag=Signing&status=granted&der=MIIBCgKCAQEA
2mail-ac://certificate?serial=1&tag=Signing&status=denied&reason=not%20yours
2callback://new
3{"Brand":"Acme","CallbackScheme":"acme-dc","CredentialArray":[{"Cert":"MIIBCgKCAQEA","PrivateKey":"MIIEvQIBADAN","Tag":"Authentication"},{"Cert":"AQID","PrivateKey":"BAUG","Tag":"Signing"}],"ExpirationDate":1798761600,"Name":"Jane Doe","SerialNumber":"0A:1B"}
3{"Brand":"","CallbackScheme":"1x","CredentialArray":[],"ExpirationDate":-1,"Name":"\u00e9\ud83d\ude00","SerialNumber":"s"}
3{"Brand":"b","CallbackScheme":"s","CredentialArray":[{"Cert":"AQ==","PrivateKey":"","Tag":"Escrow"},{"Cert":"AQ","PrivateKey":"AQ","Tag":"Escrow"}],"ExpirationDate":1e3,"Name":"n","SerialNumber":"s"}
4AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA
4-_-_
4QQ==
4QR
4Q
SEEDS
fuzz_run 4096
