#!/bin/sh
# Regenerates the independent (OpenSSL CLI / Python `cryptography`) vectors used by
# crypto/src/device.rs tests. The keys (*.der) are fixed TEST-ONLY keys; do not use them
# anywhere else. OAEP and PSS are randomized, so every run writes different but equally
# valid vectors. Run from this directory: sh make_vectors.sh
#
# The keys were made once with (PKCS#8 for the private keys; genpkey -outform DER alone
# writes PKCS#1):
#   openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:BITS -out k.pem
#   openssl pkcs8 -topk8 -nocrypt -in k.pem -outform DER -out NAME.pk8.der
#   openssl pkey -in k.pem -pubout -outform DER -out NAME.spki.der
# for server_2048, device_2048, rsa_1024 (private and public), rsa_4096 and rsa_6144
# (public only); ec_p256 from -algorithm EC -pkeyopt ec_paramgen_curve:P-256;
# rsa_pss_oid_2048 from -algorithm RSA-PSS (id-RSASSA-PSS SubjectPublicKeyInfo);
# device_2048.pkcs1pub.der with openssl rsa -pubin -RSAPublicKey_out.
set -eu
printf '%s' 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f | xxd -r -p > /tmp/idv_k32
head -c 16 /tmp/idv_k32 > /tmp/idv_k16
{ cat /tmp/idv_k32; printf 'x'; } > /tmp/idv_k33
SRV="-pubin -inkey server_2048.spki.der -keyform DER"
oaep() { # $1 = input, $2 = output name, rest = extra pkeyopts
  in=$1; out=$2; shift 2
  openssl pkeyutl -encrypt $SRV -in "$in" "$@" | base64 -w0 > "$out"
}
OAEP256="-pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 -pkeyopt rsa_mgf1_md:sha256"
# Good: the protocol's RSA-OAEP(SHA-256, MGF1-SHA-256, empty label) of bytes 00..1f.
oaep /tmp/idv_k32 esk_ok.b64 $OAEP256
# Must fail: wrong hash, wrong MGF1 hash (Java's default for OAEPWithSHA-256AndMGF1Padding),
# non-empty label, PKCS#1 v1.5, wrong plaintext lengths, another key.
oaep /tmp/idv_k32 esk_sha1.b64 -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha1 -pkeyopt rsa_mgf1_md:sha1
oaep /tmp/idv_k32 esk_mgf1_sha1.b64 -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 -pkeyopt rsa_mgf1_md:sha1
oaep /tmp/idv_k32 esk_label.b64 $OAEP256 -pkeyopt rsa_oaep_label:696476
oaep /tmp/idv_k32 esk_pkcs1v15.b64 -pkeyopt rsa_padding_mode:pkcs1
oaep /tmp/idv_k16 esk_len16.b64 $OAEP256
oaep /tmp/idv_k33 esk_len33.b64 $OAEP256
openssl pkeyutl -encrypt -pubin -inkey device_2048.spki.der -keyform DER -in /tmp/idv_k32 $OAEP256 | base64 -w0 > esk_other_key.b64

# Device signature over the protocol's string to sign (no trailing newline).
ESK=$(cat esk_ok.b64)
printf 'POST\n/v1/behavior/challenges\n2026-01-01T00:00:00Z\n%s\nq1Ybkpk0ubXWX+0YnSEhqg==' "$ESK" > /tmp/idv_sts
DEV="-keyform DER -sign device_2048.pk8.der"
openssl dgst -sha256 $DEV -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32 -sigopt rsa_mgf1_md:sha256 /tmp/idv_sts | base64 -w0 > sig_device_ok.b64
openssl dgst -sha256 $DEV -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:20 -sigopt rsa_mgf1_md:sha256 /tmp/idv_sts | base64 -w0 > sig_device_salt20.b64
openssl dgst -sha256 $DEV /tmp/idv_sts | base64 -w0 > sig_device_pkcs1v15.b64

# AES-256-GCM envelopes under key 00..1f, fixed nonce (Python `cryptography`).
python3 - <<'PY'
import base64
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
k = bytes(range(32)); n = bytes.fromhex("cafebabefacedbaddecaf888")
g = AESGCM(k)
def w(name, pt):
    open(name, "w").write(base64.b64encode(n + g.encrypt(n, pt, None)).decode())
w("dpk_encrypted.b64", open("device_2048.spki.der", "rb").read())
w("body_encrypted.b64", b'{"session_id":"s-1"}')
PY
# A complete encrypted success response to device_2048, signed by server_2048:
# response key 00..1f (OAEP by openssl), data (Python AES-GCM, nonce above) of
# {"data":{"status":"success"}}, signature (openssl PSS, salt 32) over response_key ‖ data.
openssl pkeyutl -encrypt -pubin -inkey device_2048.spki.der -keyform DER -in /tmp/idv_k32 $OAEP256 | base64 -w0 > /tmp/idv_rk
python3 - <<'PY'
import base64
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
n = bytes.fromhex("cafebabefacedbaddecaf888")
d = base64.b64encode(n + AESGCM(bytes(range(32))).encrypt(n, b'{"data":{"status":"success"}}', None)).decode()
rk = open("/tmp/idv_rk").read()
open("/tmp/idv_resp_data", "w").write(d)
open("/tmp/idv_resp_sts", "w").write(rk + d)
PY
openssl dgst -sha256 -keyform DER -sign server_2048.pk8.der -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32 -sigopt rsa_mgf1_md:sha256 /tmp/idv_resp_sts | base64 -w0 > /tmp/idv_resp_sig
printf '{"data": "%s", "response_key": "%s", "signature": "%s"}\n' "$(cat /tmp/idv_resp_data)" "$(cat /tmp/idv_rk)" "$(cat /tmp/idv_resp_sig)" > response_ok.json
rm -f /tmp/idv_rk /tmp/idv_resp_data /tmp/idv_resp_sts /tmp/idv_resp_sig
rm -f /tmp/idv_k32 /tmp/idv_k16 /tmp/idv_k33 /tmp/idv_sts
