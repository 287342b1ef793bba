#!/usr/bin/env python3
"""PyJWT side of the IMS interop tests (Tests/IMSTests/PyJWTInteropTests.swift); run with .venv-interop/bin/python.

  verify TOKEN CERT.pem              decode an RS256 token with the certificate's key; print the claims as JSON
  sign KEY.pem ISS SUB JTI NBF EXP   print an RS256 token made by PyJWT
  forge CERT.pem ISS SUB JTI NBF EXP print an HS256 token keyed with the certificate's public key PEM (the
                                     key-confusion forgery; PyJWT refuses such keys, so its check is bypassed here)
"""
import json
import sys

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from jwt.algorithms import HMACAlgorithm


def claims(iss, sub, jti, nbf, exp):
    return {"iss": iss, "sub": sub, "jti": jti, "nbf": int(nbf), "exp": int(exp)}


def public_key(cert_path):
    with open(cert_path, "rb") as f:
        return x509.load_pem_x509_certificate(f.read()).public_key()


class UncheckedHMAC(HMACAlgorithm):
    def prepare_key(self, key):
        return key if isinstance(key, bytes) else key.encode()


def main(argv):
    command = argv[1]
    if command == "verify":
        decoded = jwt.decode(argv[2], public_key(argv[3]), algorithms=["RS256"],
                             options={"require": ["iss", "sub", "jti", "nbf", "exp"]})
        print(json.dumps(decoded, sort_keys=True))
    elif command == "sign":
        with open(argv[2], "rb") as f:
            key = f.read()
        print(jwt.encode(claims(*argv[3:8]), key, algorithm="RS256", headers={"typ": "JWT"}))
    elif command == "forge":
        pem = public_key(argv[2]).public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        jws = jwt.PyJWS()
        jws.unregister_algorithm("HS256")
        jws.register_algorithm("HS256", UncheckedHMAC(UncheckedHMAC.SHA256))
        payload = json.dumps(claims(*argv[3:8]), separators=(",", ":")).encode()
        print(jws.encode(payload, pem, algorithm="HS256"))
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main(sys.argv)
