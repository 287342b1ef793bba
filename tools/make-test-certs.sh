#!/usr/bin/env bash
# Makes the TEST-ONLY TLS fixtures under Fixtures/tls/: a CA, a server certificate for the simulated hosts,
# a client certificate (CN demo) and a password-protected PKCS#12 of the client certificate and key.
#
# Usage: tools/make-test-certs.sh [OUT_DIR]   (default: Fixtures/tls)
#
# Keys are RSA 2048 on purpose: RSA signatures have a fixed length, so TLS handshakes over the simulated
# wire always carry the same number of bytes, which keeps virtual timings and the trace digest identical
# across runs (ECDSA signatures vary by a byte or two). Validity is 3650 days. The generated files are
# committed, so tests never need openssl.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/Fixtures/tls}"
days=3650
p12_password="workbench"

if ! command -v openssl >/dev/null; then
  apt-get update
  apt-get install -y openssl
fi

mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Test CA.
openssl req -quiet -x509 -new -newkey rsa:2048 -nodes -sha256 -days "$days" \
  -keyout "$out/ca.key" -out "$out/ca.pem" \
  -subj "/O=Workbench Test/CN=Workbench Test CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash"

# Server certificate: localhost, loopback, and every simulated host name that may serve TLS.
cat >"$work/server.ext" <<'EOF'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:mig,DNS:echo,DNS:sunfire,DNS:scpms,DNS:ims,DNS:tls-server
authorityKeyIdentifier=keyid
subjectKeyIdentifier=hash
EOF
openssl req -quiet -new -newkey rsa:2048 -nodes -sha256 \
  -keyout "$out/server.key" -out "$work/server.csr" \
  -subj "/O=Workbench Test/CN=tls-server"
openssl x509 -req -in "$work/server.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" -CAcreateserial \
  -CAserial "$work/ca.srl" -days "$days" -sha256 -extfile "$work/server.ext" -out "$out/server.pem"

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
openssl x509 -req -in "$work/client.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" \
  -CAserial "$work/ca.srl" -days "$days" -sha256 -extfile "$work/client.ext" -out "$out/client.pem"

# PKCS#12 of the client certificate and key (OpenSSL 3 defaults: AES-256-CBC, PBKDF2, SHA-256 MAC; no -legacy).
openssl pkcs12 -export -in "$out/client.pem" -inkey "$out/client.key" -certfile "$out/ca.pem" \
  -name demo -out "$out/client.p12" -passout "pass:$p12_password"

# Check what was made.
openssl verify -CAfile "$out/ca.pem" "$out/server.pem" "$out/client.pem"
openssl pkcs12 -info -noout -in "$out/client.p12" -passin "pass:$p12_password"
chmod 644 "$out"/*.pem "$out"/*.key "$out"/*.p12
echo "TLS test fixtures written to $out"
