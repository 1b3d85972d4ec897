#!/bin/sh
# Regenerates the independent (OpenSSL CLI + Python's gzip) Aadhaar Secure QR vectors used
# by cards/src/in_aadhaar_secure.rs tests, so the known answers do not come from the
# crate's own encoder. The keys are fixed TEST-ONLY keys standing in for UIDAI's signing
# key; do not use them anywhere else. Run from this directory: sh make_vectors.sh
#
# The keys and the certificate were made once with:
#   openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out k.pem
#   openssl pkcs8 -topk8 -nocrypt -in k.pem -outform DER -out secure_qr_test.pk8.der
#   openssl pkey -in k.pem -pubout -out secure_qr_test.spki.pem
#   openssl pkey -in k.pem -pubout -outform DER -out secure_qr_test.spki.der
#   openssl req -x509 -new -key k.pem -sha256 -days 36500 \
#     -subj "/CN=idv TEST ONLY Aadhaar Secure QR signer" -out secure_qr_test.cert.pem
#   (and other_2048.spki.pem, another key, for the wrong-key tests; rsa_1024.spki.der and
#   ec_p256.spki.pem, keys the reader must refuse)
# PKCS#1 v1.5 signatures are deterministic and gzip is written with mtime 0, so every run
# writes the same vectors.
set -eu
openssl pkey -in secure_qr_test.pk8.der -inform DER -out /tmp/idv_sqr_key.pem
python3 - <<'PY'
import gzip, subprocess

def sign(data):
    return subprocess.run(["openssl", "dgst", "-sha256", "-sign", "/tmp/idv_sqr_key.pem"],
                          input=data, capture_output=True, check=True).stdout

def qr(fields, tail):
    signed = b"\xff".join(f.encode("latin-1") for f in fields) + b"\xff" + tail
    sig = sign(signed)
    assert len(sig) == 256
    return str(int.from_bytes(gzip.compress(signed + sig, mtime=0), "big"))

# A stand-in for the JPEG 2000 photo: SOC/SIZ markers, 0xFF bytes inside, EOC.
photo = b"\xff\x4f\xff\x51\x00\x2f" + bytes(range(256)) + b"\xff\xff\x00\xff\xd9"
v2 = ["V2", "2", "234620190612163521011", "Rahul Kumar", "15-08-1990", "M", "S/O Ram Kumar",
      "Gurgaon", "Near Temple", "12", "Sector 5", "122001", "Gurgaon", "Haryana", "MG Road",
      "Gurgaon", "Gurgaon", "5678"]
open("secure_qr_v2.txt", "w").write(qr(v2, photo))
# The original 2019 layout: no version, the indicator first, no mobile digits; indicator 3:
# an email hash and a mobile hash (32 bytes each) between the photo and the signature.
legacy = ["3", "890120190305150137123", "Zo\u00eb D'Souza", "29-02-1992", "F", "D/O Ivan D'Souza",
          "North Goa", "", "H.No. 4", "Panjim", "403001", "Panjim", "Goa", "Rua de Ourem",
          "Tiswadi", "Panaji"]
open("secure_qr_legacy.txt", "w").write(qr(legacy, photo + b"\xee" * 32 + b"\xdd" * 32))
PY
rm -f /tmp/idv_sqr_key.pem
