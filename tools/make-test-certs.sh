#!/usr/bin/env bash
# Makes the TEST-ONLY TLS fixtures under Fixtures/tls/: a CA, a server certificate for the simulated hosts,
# a client certificate (CN demo) and a password-protected PKCS#12 of the client certificate and key.
#
# Usage: tools/make-test-certs.sh [OUT_DIR]   (default: Fixtures/tls)
#
# Keys are RSA 2048 on purpose: RSA signatures have a fixed length, so TLS handshakes over the simulated
# wire always carry the same number of bytes, which keeps virtual timings and the trace digest identical
# across runs (ECDSA signatures vary by a byte or two). Validity is fixed, 2025-01-01 to 2036-01-01, so the
# certificates are valid on the simulated calendar (which starts 2026-01-01) whenever they were made; the
# generated files are committed, so tests never need openssl.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/Fixtures/tls}"
start=20250101000000Z
end=20360101000000Z
p12_password="workbench"

if ! command -v openssl >/dev/null; then
  apt-get update
  apt-get install -y openssl
fi

mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# `openssl ca` is how OpenSSL 3.0 sets fixed start and end dates (x509 -req has no -not_before before 3.4).
mkdir -p "$work/db"
touch "$work/db/index.txt"
echo 1000 >"$work/db/serial"
cat >"$work/ca.cnf" <<CONF
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
[ ca_ext ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
CONF
sign() {  # sign CSR CERT [openssl ca options…]
  local csr="$1" cert="$2"
  shift 2
  openssl ca -batch -notext -config "$work/ca.cnf" -startdate "$start" -enddate "$end" -in "$csr" -out "$cert" "$@" 2>/dev/null
}

# Test CA.
openssl req -quiet -new -newkey rsa:2048 -nodes -sha256 -keyout "$out/ca.key" -out "$work/ca.csr" \
  -subj "/O=Workbench Test/CN=Workbench Test CA"
sign "$work/ca.csr" "$out/ca.pem" -selfsign -keyfile "$out/ca.key" -extensions ca_ext

# Server certificate: localhost, loopback, and every simulated host name that may serve TLS.
cat >"$work/server.ext" <<'EOF'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:mig,DNS:proxy,DNS:echo,DNS:sunfire,DNS:mysoc,DNS:scpms,DNS:ims,DNS:ims-signer,DNS:tls-server
authorityKeyIdentifier=keyid
subjectKeyIdentifier=hash
EOF
openssl req -quiet -new -newkey rsa:2048 -nodes -sha256 \
  -keyout "$out/server.key" -out "$work/server.csr" \
  -subj "/O=Workbench Test/CN=tls-server"
sign "$work/server.csr" "$out/server.pem" -cert "$out/ca.pem" -keyfile "$out/ca.key" -extfile "$work/server.ext"

# Client certificate, CN demo.
cat >"$work/client.ext" <<'EOF'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth
authorityKeyIdentifier=keyid
subjectKeyIdentifier=hash
EOF
openssl req -quiet -new -newkey rsa:2048 -nodes -sha256 \
  -keyout "$out/client.key" -out "$work/client.csr" \
  -subj "/O=Workbench Test/CN=demo"
sign "$work/client.csr" "$out/client.pem" -cert "$out/ca.pem" -keyfile "$out/ca.key" -extfile "$work/client.ext"

# PKCS#12 of the client certificate and key (OpenSSL 3 defaults: AES-256-CBC, PBKDF2, SHA-256 MAC; no -legacy).
openssl pkcs12 -export -in "$out/client.pem" -inkey "$out/client.key" -certfile "$out/ca.pem" \
  -name demo -out "$out/client.p12" -passout "pass:$p12_password"

# Check what was made.
openssl verify -CAfile "$out/ca.pem" "$out/server.pem" "$out/client.pem"
openssl pkcs12 -info -noout -in "$out/client.p12" -passin "pass:$p12_password"
chmod 644 "$out"/*.pem "$out"/*.key "$out"/*.p12
echo "TLS test fixtures written to $out"

# The derived credential the Ivanti client vaults and the MiG client presents is issued by this CA: reissue it.
"$repo/tools/make-derived-tls-credential.sh" "$out"
