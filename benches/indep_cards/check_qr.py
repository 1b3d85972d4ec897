#!/usr/bin/env python3
"""Optional check of a generated set with a third-party QR reader (zxing-cpp, `pip install
zxing-cpp`; not needed to generate): every QR code in the photos of one capture kind is
decoded, Aadhaar Secure QR signatures are verified with DIR/uidai_test_public.pem, and
the decoded values are compared with the manifest's truth.

    python check_qr.py DIR [--captures clean,tilt,...]
"""
import argparse
import json
import os
import sys

import zxingcpp
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codes  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--captures", default="clean")
    a = ap.parse_args()
    from cryptography.hazmat.primitives import serialization
    pub = serialization.load_pem_public_key(open(os.path.join(a.dir, "uidai_test_public.pem"), "rb").read())
    caps = set(a.captures.split(","))
    n = ok = 0
    for line in open(os.path.join(a.dir, "manifest.jsonl"), encoding="utf-8"):
        r = json.loads(line)
        if r["capture"] not in caps or r["card_type"] not in ("in.aadhaar", "vn.national_id"):
            continue
        n += 1
        texts = []
        for side in ("front", "back"):
            if r[side]:
                im = Image.open(os.path.join(a.dir, r[side]))
                texts += [b.text for b in zxingcpp.read_barcodes(im) if b.format == zxingcpp.BarcodeFormat.QRCode]
        e = r["expected"]
        good = False
        for t in texts:
            if r["card_type"] == "vn.national_id":
                f = t.split("|")
                good = (f[0] == e["id"] and f[1] == e["old_id"] and f[2] == e["name"]
                        and f[5] == e["address"] and f[4] == ("Nữ" if e["gender"] == "F" else "Nam"))
            elif t.isdigit():
                d = codes.decode_secure_qr(t, pub)
                good = (d["ref"][:4] == e["id"][-4:] and d["name"] == e["name"] and d["pc"] == e["pin_code"]
                        and d["gender"] == e["gender"] and d.get("signature") == "verified")
            else:
                good = f'uid="{e["id"]}"' in t and f'pc="{e["pin_code"]}"' in t
            if good:
                break
        ok += good
        print(("ok   " if good else "FAIL ") + r["id"] + ("" if texts else " (no QR decoded)"))
    print(f"{ok}/{n} cards: QR decoded and matching the truth")


if __name__ == "__main__":
    main()
