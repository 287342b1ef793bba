#!/usr/bin/env bash
# Makes the IMS test key material in Fixtures/ims/ with the openssl CLI (run once; the files are committed so
# signatures, and so traces, are the same on every machine — RSA PKCS#1 v1.5 signatures are deterministic).
#   host.key / host.pem   the host signing back end's 2048-bit RSA key and its self-signed SHA-256-with-RSA
#                         certificate, which the host registers with IMS
#   other.key / other.pem an unrelated key pair, for "signed by someone else" tests
set -euo pipefail
cd "$(dirname "$0")/../Fixtures/ims"
for name in host other; do
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$name.key"
  openssl req -new -x509 -sha256 -key "$name.key" -out "$name.pem" -days 36500 \
    -subj "/O=Workbench/CN=IMS DriveSync $name signing key"
done
openssl x509 -in host.pem -noout -text | grep -E "Signature Algorithm|Public-Key" | sort -u
