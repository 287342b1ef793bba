#!/usr/bin/env bash
# Fuzzes the JWT parsers (compact form, strict JSON, base64url) with libFuzzer (the SwiftPM target JWTFuzz, -sanitize=fuzzer,address).
#
# Usage: tools/fuzz-jwt.sh [RUNS]   (default 10000000 executions, one job)
# Seeds are written to Fuzz/corpus-jwt/ (ignored by
# git); their first byte picks the parser (0 token, 1 JSON, 2 base64url, see Fuzz/JWTFuzz/JWTFuzz.swift). Crashes go
# to Fuzz/corpus-jwt/crashes/. Reproduce one with: .build/fuzz/debug/JWTFuzz Fuzz/corpus-jwt/crashes/crash-…
source "$(dirname "${BASH_SOURCE[0]}")/fuzz-lib.sh"
fuzz_prepare jwt "${1:-10000000}"
fuzz_build JWTFuzz

b64url() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
seed=0
# Tokens: header and payload JSON (tab-separated), each made into header.payload.signature and header.payload.
while IFS=$'\t' read -r header payload; do
  printf '0%s.%s.%s' "$(b64url "$header")" "$(b64url "$payload")" "$(b64url "signature-$seed")" > "Fuzz/corpus-jwt/seed-$seed"
  printf '0%s.%s' "$(b64url "$header")" "$(b64url "$payload")" > "Fuzz/corpus-jwt/seed-$seed-prototype"
  printf '1%s' "$header" > "Fuzz/corpus-jwt/seed-$seed-header"
  printf '1%s' "$payload" > "Fuzz/corpus-jwt/seed-$seed-payload"
  seed=$((seed + 1))
done <<'TOKENS'
{"alg":"RS256","typ":"JWT"}	{"iss":"63d9a389-4ddc-4df1-8dd1-af6a10c7226e","sub":"14","jti":"j1","nbf":1497577381,"exp":1497578281}
{"alg":"RS256","typ":"jwt","kid":"host-key-2"}	{"iss":"api-key","sub":"user","jti":"0f8c","nbf":1700000000,"exp":1700000900,"iat":1700000000,"aud":["ims"]}
{"alg":"none","typ":"JWT"}	{"iss":"a","sub":"b","jti":"c","nbf":0,"exp":9223372036854775807}
{"alg":"HS256"}	{"iss":"a","sub":"b","jti":"c","nbf":1497577381.0,"exp":"1497578281"}
{"alg":"RS256","crit":["exp"],"jku":"https://x/"}	{"iss":"a","iss":"b"}
{ "alg" : "RS256" , "typ" : "JWT" }	{"iss":"\u00e9\ud83d\ude00\n\"\\\/","sub":"\u0000","jti":"é","nbf":-1,"exp":1e3}
TOKENS
# JSON objects and hostile tokens, as they are.
while IFS= read -r line; do
  printf '%s' "$line" > "Fuzz/corpus-jwt/seed-$seed"
  seed=$((seed + 1))
done <<'SEEDS'
1{"a":[1,-0,0.5,-1.5e-7,1E+2,true,false,null,{"b":{"c":[[]]}}],"d":{}}
1{"a":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}
1{"n":-9223372036854775808,"m":9223372036854775808,"o":18446744073709551616}
1{"s":"\ud800\udc00 \udbff\udfff \ud800 \udc00 \u12","t":"\b\f\r\t"}
1{"x":01,"y":1.,"z":.5}
1{} trailing
0eyJhbGciOiJSUzI1NiJ9.e30.
0eyJhbGciOiJSUzI1NiJ9.e30
0....
0eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJhIn0=.c2ln
2AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8
2_-_-
2QQ
2QR
2QUI
2QUJ
2Q
SEEDS
fuzz_run 8448
