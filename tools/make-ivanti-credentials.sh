#!/usr/bin/env bash
# Makes the TEST-ONLY derived-credential fixtures under Fixtures/ivanti/: for each use an app can send to the
# Ivanti client (authentication, signing, encryption, escrow) a self-signed DER certificate `<use>.cert.der`
# and its PKCS#8 DER private key `<use>.key.der`; plus two bad ones for the rejection tests:
#   expired.cert.der / expired.key.der       valid 2020-01-01 … 2021-01-01 only
#   mismatched.cert.der / mismatched.key.der the authentication certificate with a key that is not its own
#
# Usage: tools/make-ivanti-credentials.sh [OUT_DIR]   (default: Fixtures/ivanti)
#
# Validity is fixed (2025-01-01 … 2035-01-01) rather than relative to today, because the simulated wire's
# calendar starts on 2026-01-01 whatever the date: a relative start could make them "not yet valid" there.
# Authentication and signing use EC P-256, encryption and escrow RSA 2048, so both key families are
# checked. The generated files are committed, so tests never need openssl.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/Fixtures/ivanti}"
command -v openssl >/dev/null || { echo "make-ivanti-credentials: openssl is needed (apt-get install openssl)" >&2; exit 1; }

mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# `openssl ca -selfsign` is the way OpenSSL 3.0 sets fixed start and end dates.
mkdir -p "$work/ca/newcerts"
: >"$work/ca/index.txt"
cat >"$work/ca.cnf" <<CNF
[ ca ]
default_ca = fixture
[ fixture ]
dir = $work/ca
database = \$dir/index.txt
new_certs_dir = \$dir/newcerts
serial = \$dir/serial
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = none
[ anything ]
commonName = supplied
organizationName = optional
[ usage ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,\$ENV::KEY_USAGE
CNF

# make NAME KEY_ALGORITHM KEY_USAGE START END SERIAL
make() {
  local name="$1" algorithm="$2" usage="$3" start="$4" end="$5" serial="$6"
  case "$algorithm" in
    ec) openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/$name.key.pem" ;;
    rsa) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/$name.key.pem" ;;
  esac
  openssl req -new -key "$work/$name.key.pem" -subj "/O=Workbench Test/CN=Derived credential $name" -out "$work/$name.csr"
  echo "$serial" >"$work/ca/serial"
  KEY_USAGE="$usage" openssl ca -batch -notext -config "$work/ca.cnf" -selfsign -keyfile "$work/$name.key.pem" \
    -extensions usage -startdate "$start" -enddate "$end" -in "$work/$name.csr" -out "$work/$name.cert.pem" 2>/dev/null
  openssl x509 -in "$work/$name.cert.pem" -outform DER -out "$out/$name.cert.der"
  openssl pkcs8 -topk8 -nocrypt -in "$work/$name.key.pem" -outform DER -out "$out/$name.key.der"
}

make authentication ec  digitalSignature                 20250101000000Z 20350101000000Z 1001
make signing        ec  digitalSignature,nonRepudiation  20250101000000Z 20350101000000Z 1002
make encryption     rsa keyEncipherment,dataEncipherment 20250101000000Z 20350101000000Z 1003
make escrow         rsa keyEncipherment                  20250101000000Z 20350101000000Z 1004
make expired        ec  digitalSignature                 20200101000000Z 20210101000000Z 1005

# The authentication certificate with the signing key.
cp "$out/authentication.cert.der" "$out/mismatched.cert.der"
cp "$out/signing.key.der" "$out/mismatched.key.der"

echo "make-ivanti-credentials: wrote $(ls "$out"/*.der | wc -l) files to $out"
