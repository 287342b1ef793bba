// OpenSSL libcrypto (Debian: libssl-dev) for the JWT core's RS256 and the IMS actors' X.509 parsing.
// Only the EVP, PEM and X.509 interfaces are used: they are OpenSSL 3's supported, non-deprecated API.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
