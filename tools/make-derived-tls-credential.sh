#!/usr/bin/env bash
# Issues the TEST-ONLY derived credential an app can both vault with the Ivanti client and present in TLS:
# Fixtures/ivanti/tls-client.cert.der (DER X.509, CN "Derived credential tls-client", extendedKeyUsage clientAuth)
# and tls-client.key.der (its unencrypted PKCS#8 DER key), issued by the workbench's test CA (Fixtures/tls/ca.pem),
# which MiG's TLS proxy and MiG's `secure` account trust. The other Ivanti fixtures are self-signed, so no proxy
# would accept them; this one closes the chain in Simulations/ecosystem-day.scn (vaulted, read back through
# AppConnect, presented by the MiG client, verified by the proxy, accepted by MiG).
#
# Usage: tools/make-derived-tls-credential.sh [TLS_DIR] [OUT_DIR]   (defaults: Fixtures/tls, Fixtures/ivanti)
# tools/make-test-certs.sh runs it after remaking the CA, so the credential is always the current CA's.
#
# RSA 2048, as every TLS fixture: RSA signatures have a fixed length, so the simulated handshake carries the same
# bytes every run. Validity is fixed (2025-01-01 … 2035-01-01), valid on the simulated calendar (from 2026-01-01).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tls="${1:-$repo/Fixtures/tls}"
out="${2:-$repo/Fixtures/ivanti}"
command -v openssl >/dev/null || { echo "make-derived-tls-credential: openssl is needed (apt-get install openssl)" >&2; exit 1; }
for file in ca.pem ca.key; do
  [[ -r "$tls/$file" ]] || { echo "make-derived-tls-credential: $tls/$file is missing; run tools/make-test-certs.sh" >&2; exit 1; }
done

mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/db"
: >"$work/db/index.txt"
echo 2001 >"$work/db/serial"
cat >"$work/ca.cnf" <<CNF
[ ca ]
default_ca = test
[ test ]
dir = $work/db
database = \$dir/index.txt
serial = \$dir/serial
new_certs_dir = \$dir
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = none
[ anything ]
organizationName = optional
commonName = supplied
[ usage ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
subjectKeyIdentifier = hash
CNF

openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/key.pem"
openssl req -new -key "$work/key.pem" -subj "/O=Workbench Test/CN=Derived credential tls-client" -out "$work/csr.pem"
openssl ca -batch -notext -config "$work/ca.cnf" -cert "$tls/ca.pem" -keyfile "$tls/ca.key" -extensions usage \
  -startdate 20250101000000Z -enddate 20350101000000Z -in "$work/csr.pem" -out "$work/cert.pem" 2>/dev/null
openssl verify -CAfile "$tls/ca.pem" -purpose sslclient "$work/cert.pem" >/dev/null
openssl x509 -in "$work/cert.pem" -outform DER -out "$out/tls-client.cert.der"
openssl pkcs8 -topk8 -nocrypt -in "$work/key.pem" -outform DER -out "$out/tls-client.key.der"
chmod 644 "$out/tls-client.cert.der" "$out/tls-client.key.der"
echo "make-derived-tls-credential: wrote $out/tls-client.cert.der and tls-client.key.der (issued by $tls/ca.pem)"
