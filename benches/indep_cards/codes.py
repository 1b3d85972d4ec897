"""Machine-checked values: Verhoeff, ICAO 9303 MRZ, PAN, CCCD number, Aadhaar QR codes.

Everything here is written from the public specifications (Verhoeff's dihedral-group
check, ICAO Doc 9303 parts 3/4/5, UIDAI's Secure QR description), not from any other
generator.
"""
import gzip
import hashlib
import io
import unicodedata

# ---------------------------------------------------------------- Verhoeff
# Multiplication table of the dihedral group D5, the permutation table and inverses.
_VD = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_VP = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
_VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_check_digit(digits: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(digits)):
        c = _VD[c][_VP[(i + 1) % 8][int(ch)]]
    return str(_VINV[c])


def verhoeff_valid(number: str) -> bool:
    c = 0
    for i, ch in enumerate(reversed(number)):
        c = _VD[c][_VP[i % 8][int(ch)]]
    return c == 0


def make_12digit_verhoeff(rng) -> str:
    """Aadhaar-style number: 12 digits, first 2-9, last the Verhoeff check digit."""
    while True:
        body = str(rng.randint(2, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(10))
        # UIDAI does not issue numbers that look like a run of one digit; avoid them too.
        if len(set(body)) < 4:
            continue
        return body + verhoeff_check_digit(body)


# ---------------------------------------------------------------- ICAO 9303 MRZ
def _mrz_value(ch: str) -> int:
    if ch.isdigit():
        return int(ch)
    if "A" <= ch <= "Z":
        return ord(ch) - ord("A") + 10
    if ch == "<":
        return 0
    raise ValueError(f"not an MRZ character: {ch!r}")


def mrz_check(field: str) -> str:
    weights = (7, 3, 1)
    return str(sum(_mrz_value(c) * weights[i % 3] for i, c in enumerate(field)) % 10)


def mrz_name_chars(text: str) -> str:
    """Transliterate a name to the MRZ alphabet (ICAO 9303 part 3: diacritics dropped,
    Vietnamese Đ -> D, spaces and hyphens become '<', other punctuation dropped)."""
    text = text.replace("Đ", "D").replace("đ", "d")
    text = unicodedata.normalize("NFKD", text)
    out = []
    for ch in text:
        if unicodedata.combining(ch):
            continue
        ch = ch.upper()
        if "A" <= ch <= "Z":
            out.append(ch)
        elif ch in " -":
            out.append("<")
    return "".join(out)


def mrz_name_field(surname: str, given: str, length: int) -> str:
    s = mrz_name_chars(surname)
    g = mrz_name_chars(given)
    name = s + ("<<" + g if g else "")
    if len(name) > length:
        # ICAO truncation: cut given names first (keep at least one letter of each).
        name = name[:length]
    return name.ljust(length, "<")


def _pad(s: str, n: int) -> str:
    if len(s) > n:
        raise ValueError(f"{s!r} longer than {n}")
    return s.ljust(n, "<")


def yymmdd(d) -> str:
    return d.strftime("%y%m%d")


def td3_lines(doc_type, state, surname, given, number, nationality, dob, sex, expiry,
              personal="", personal_cd_filler=True):
    """Two 44-character lines of a passport (TD3)."""
    l1 = _pad(doc_type, 2) + state + mrz_name_field(surname, given, 39)
    num = _pad(number, 9)
    pn = _pad(personal, 14)
    if personal.strip("<"):
        pcd = mrz_check(pn)
    else:
        pcd = "<" if personal_cd_filler else "0"
    l2 = (num + mrz_check(num) + nationality + yymmdd(dob) + mrz_check(yymmdd(dob)) + sex
          + yymmdd(expiry) + mrz_check(yymmdd(expiry)) + pn + pcd)
    comp = l2[0:10] + l2[13:20] + l2[21:43]
    l2 += mrz_check(comp)
    assert len(l1) == 44 and len(l2) == 44, (l1, l2)
    return [l1, l2]


def td1_lines(doc_code, state, number, optional1, dob, sex, expiry, nationality,
              optional2, surname, given):
    """Three 30-character lines of an identity card (TD1)."""
    num = _pad(number, 9)
    l1 = _pad(doc_code, 2) + state + num + mrz_check(num) + _pad(optional1, 15)
    exp = yymmdd(expiry) if expiry else "<<<<<<"  # no expiry (a card valid for life)
    l2 = (yymmdd(dob) + mrz_check(yymmdd(dob)) + sex + exp
          + mrz_check(exp) + nationality + _pad(optional2, 11))
    comp = l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]
    l2 += mrz_check(comp)
    l3 = mrz_name_field(surname, given, 30)
    assert len(l1) == len(l2) == len(l3) == 30, (l1, l2, l3)
    return [l1, l2, l3]


def td3_valid(l1, l2) -> bool:
    ok = (mrz_check(l2[0:9]) == l2[9] and mrz_check(l2[13:19]) == l2[19]
          and mrz_check(l2[21:27]) == l2[27])
    pn = l2[28:42]
    if pn.strip("<"):
        ok = ok and mrz_check(pn) == l2[42]
    else:
        ok = ok and l2[42] in "<0"
    return ok and mrz_check(l2[0:10] + l2[13:20] + l2[21:43]) == l2[43]


def td1_valid(l1, l2, l3) -> bool:
    return (mrz_check(l1[5:14]) == l1[14] and mrz_check(l2[0:6]) == l2[6]
            and mrz_check(l2[8:14]) == l2[14]
            and mrz_check(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]) == l2[29])


# ---------------------------------------------------------------- PAN
def make_pan(rng, surname: str, category: str = "P") -> str:
    """AAAAA9999A: 3 letters (series), 4th the holder category (P = individual),
    5th the first letter of the surname, 4 digits, a final letter."""
    L = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    series = "".join(rng.choice(L) for _ in range(3))
    initial = mrz_name_chars(surname)[:1] or "A"
    digits = "%04d" % rng.randint(1, 9999)
    return series + category + initial + digits + rng.choice(L)


# ---------------------------------------------------------------- CCCD
def cccd_century_sex_digit(year: int, female: bool) -> int:
    century = (year // 100) - 19  # 1900s -> 0, 2000s -> 1, ...
    return century * 2 + (1 if female else 0)


def make_cccd_number(rng, province_code: str, dob, female: bool) -> str:
    return (province_code + str(cccd_century_sex_digit(dob.year, female))
            + "%02d" % (dob.year % 100) + "".join(str(rng.randint(0, 9)) for _ in range(6)))


def cccd_qr_text(id12, old_id, name, dob, female, address, issue) -> str:
    return "|".join([id12, old_id, name, dob.strftime("%d%m%Y"), "Nữ" if female else "Nam",
                     address, issue.strftime("%d%m%Y")])


# ---------------------------------------------------------------- Aadhaar QR codes
def aadhaar_xml_qr(uid, name, gender, dob, yob_only, addr) -> str:
    """The original (pre-2018) printed-letter QR, an XML element with attributes."""
    def esc(s):
        return (s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
                .replace(">", "&gt;"))
    attrs = [("uid", uid), ("name", name), ("gender", gender), ("yob", str(dob.year))]
    for k in ("co", "house", "street", "lm", "loc", "vtc", "po", "dist", "subdist", "state"):
        if addr.get(k):
            attrs.append((k, addr[k]))
    attrs.append(("pc", addr["pc"]))
    if not yob_only:
        attrs.append(("dob", dob.strftime("%d/%m/%Y")))
    body = " ".join(f'{k}="{esc(v)}"' for k, v in attrs)
    return '<?xml version="1.0" encoding="UTF-8"?>\n<PrintLetterBarcodeData ' + body + "/>"


def _secure_qr_mobile_hash(mobile: str, last_digit: int) -> bytes:
    """UIDAI: SHA-256 applied (last digit of the Aadhaar number) times, once for 0 or 1."""
    n = max(1, last_digit)
    h = mobile.encode()
    for _ in range(n):
        h = hashlib.sha256(h).hexdigest().encode()
    return bytes.fromhex(h.decode())


def aadhaar_secure_qr_v2(private_key, uid, name, gender, dob, addr, mobile, timestamp,
                         photo_jp2: bytes, email=None) -> str:
    """UIDAI Secure QR, version 2 (2022): fields separated by byte 255, in this order:
    'V2', email/mobile indicator, reference id (last 4 digits + timestamp), name, dob
    (DD-MM-YYYY), gender, care of, district, landmark, house, location, pin code, post
    office, state, street, sub district, VTC, last 4 digits of the mobile, then the JPEG
    2000 photo, the mobile/e-mail hashes (32 bytes each, only when present), and a
    256-byte RSA (PKCS#1 v1.5, SHA-256) signature of everything before it. The whole is
    gzip-compressed and written as one big integer in decimal digits."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    indicator = (1 if email else 0) + (2 if mobile else 0)
    ref = uid[-4:] + timestamp.strftime("%Y%m%d%H%M%S") + "%03d" % (timestamp.microsecond // 1000)
    fields = ["V2", str(indicator), ref, name, dob.strftime("%d-%m-%Y"), gender,
              addr.get("co", ""), addr.get("dist", ""), addr.get("lm", ""),
              addr.get("house", ""), addr.get("loc", ""), addr["pc"], addr.get("po", ""),
              addr.get("state", ""), addr.get("street", ""), addr.get("subdist", ""),
              addr.get("vtc", ""), mobile[-4:] if mobile else ""]
    text = b"".join(f.encode("ISO-8859-1") + b"\xff" for f in fields)
    signed = text + photo_jp2
    last = int(uid[-1])
    if email:
        signed += _secure_qr_mobile_hash(email, last)
    if mobile:
        signed += _secure_qr_mobile_hash(mobile, last)
    sig = private_key.sign(signed, padding.PKCS1v15(), hashes.SHA256())
    assert len(sig) == 256
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(signed + sig)
    return str(int.from_bytes(buf.getvalue(), "big"))


def decode_secure_qr(text: str, public_key=None) -> dict:
    """Our own decoder, used by the self-test to prove the round trip."""
    raw = int(text).to_bytes((int(text).bit_length() + 7) // 8, "big")
    data = gzip.decompress(raw)
    parts = data.split(b"\xff", 18)
    names = ["version", "indicator", "ref", "name", "dob", "gender", "co", "dist", "lm",
             "house", "loc", "pc", "po", "state", "street", "subdist", "vtc", "mobile4"]
    out = {k: parts[i].decode("ISO-8859-1") for i, k in enumerate(names)}
    if public_key is not None:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding
        public_key.verify(data[-256:], data[:-256], padding.PKCS1v15(), hashes.SHA256())
        out["signature"] = "verified"
    return out
