"""Flat renderings of the six card types, each with the truth it shows or encodes.

Every renderer returns {"front": Image, "back": Image|None, "expected": {...},
"size_mm": (w, h), "meta": {...}}. Layouts follow the public descriptions of the real
cards named in README.md; positions, sizes, fonts and wording vary within a plausible
range from card to card."""
import datetime as dt
import io
import unicodedata

from PIL import Image

import codes
import data
import draw
from draw import Card

ID1 = (85.6, 54.0)
TD3_PAGE = (125.0, 88.0)
PX_W = 1800  # flat render width in pixels (ID-1: about 534 dpi)


def nfc(s):
    return unicodedata.normalize("NFC", s)


def dmy(d):
    return d.strftime("%d/%m/%Y")


def rand_date(rng, y0, y1):
    start = dt.date(y0, 1, 1).toordinal()
    end = dt.date(y1, 12, 31).toordinal()
    return dt.date.fromordinal(rng.randint(start, end))


def add_years(d, n):
    try:
        return d.replace(year=d.year + n)
    except ValueError:  # 29 February
        return d.replace(year=d.year + n, day=28)


class Style:
    """Per-card typographic choices."""

    def __init__(self, rng, families=None, deva=None):
        self.fam = rng.choice(families or draw.LATIN_FAMILIES)
        self.deva = deva or rng.choice(["deva_sans", "deva_sans", "deva_serif"])
        self.k = rng.uniform(0.9, 1.1)  # overall text size factor
        self.jx = rng.uniform(-1.2, 1.2)  # layout shifts (mm)
        self.jy = rng.uniform(-1.0, 1.0)
        self.value_bold = rng.random() < 0.6

    def sz(self, mm):
        return mm * self.k


def in_person(rng, female=None):
    female = rng.random() < 0.45 if female is None else female
    first = rng.choice(data.IN_FEMALE if female else data.IN_MALE)
    sur = rng.choice(data.IN_SURNAMES)
    parts = [first]
    r = rng.random()
    mids = [m for m in (data.IN_MIDDLE_F if female else data.IN_MIDDLE_M) if m[0] != sur[0]]
    if r < 0.3:
        parts.append(rng.choice(mids))
    parts.append(sur)
    # a father with the same surname
    fparts = [rng.choice(data.IN_MALE)]
    if rng.random() < 0.3:
        fparts.append(rng.choice([m for m in data.IN_MIDDLE_M if m[0] != sur[0]]))
    fparts.append(sur)
    mparts = [rng.choice(data.IN_FEMALE), sur]
    husband = [rng.choice(data.IN_MALE), sur]
    return {
        "female": female,
        "first": " ".join(p[0] for p in parts[:-1]),
        "surname": sur[0],
        "name": " ".join(p[0] for p in parts),
        "name_hi": " ".join(p[1] for p in parts),
        "father": " ".join(p[0] for p in fparts),
        "father_hi": " ".join(p[1] for p in fparts),
        "mother": " ".join(p[0] for p in mparts),
        "husband": " ".join(p[0] for p in husband),
        "husband_hi": " ".join(p[1] for p in husband),
    }


def in_address(rng, person):
    city, dist, state, pin3, locs, city_hi, dist_hi, state_hi = rng.choice(data.IN_PLACES)
    loc, loc_hi = rng.choice(locs)
    street, street_hi = rng.choice(data.IN_STREETS)
    lm, lm_hi = rng.choice(data.IN_LANDMARKS) if rng.random() < 0.55 else ("", "")
    r = rng.random()
    if r < 0.35:
        n = str(rng.randint(1, 480))
        house, house_hi = f"House No. {n}", f"मकान नं. {n}"
    elif r < 0.65:
        n = f"{rng.randint(1, 9)}-{rng.randint(1, 12)}-{rng.randint(10, 400)}"
        house, house_hi = n, n
    else:
        b, b_hi = rng.choice(data.IN_BUILDINGS)
        n = rng.randint(101, 904)
        house, house_hi = f"Flat {n}, {b}", f"फ्लैट {n}, {b_hi}"
    if person["female"] and rng.random() < 0.4:
        co, co_hi = f"W/O {person['husband']}", f"पत्नी: {person['husband_hi']}"
    elif person["female"]:
        co, co_hi = f"D/O {person['father']}", f"आत्मजा: {person['father_hi']}"
    elif rng.random() < 0.85:
        co, co_hi = f"S/O {person['father']}", f"आत्मज: {person['father_hi']}"
    else:
        co, co_hi = f"C/O {person['father']}", f"द्वारा: {person['father_hi']}"
    pc = pin3 + "0" + "%02d" % rng.randint(1, 99)
    addr = {"co": co, "house": house, "street": street, "lm": lm, "loc": loc, "vtc": city,
            "po": "", "dist": dist if dist != city else "", "subdist": "", "state": state, "pc": pc}
    addr_hi = {"co": co_hi, "house": house_hi, "street": street_hi, "lm": lm_hi, "loc": loc_hi,
               "vtc": city_hi, "dist": dist_hi if dist != city else "", "state": state_hi}
    order = ["co", "house", "street", "lm", "loc", "vtc", "po", "dist", "subdist", "state"]
    text = ", ".join(addr[k] for k in order if addr.get(k))
    text_hi = ", ".join(addr_hi[k] for k in order if addr_hi.get(k))
    return addr, text, text_hi


def draw_photo(card, rng, x, y, w, h, female, gray=False, frame=None, bindi=True):
    ph = draw.portrait(rng, card.p(w), card.p(h), female=female, gray=gray, bindi=bindi)
    card.img.paste(ph, card.pt(x, y))
    if frame:
        card.d.rectangle([card.p(x), card.p(y), card.p(x + w), card.p(y + h)], outline=frame,
                         width=max(1, card.p(0.2)))
    return ph


def jp2_photo(rng, female):
    """Small JPEG 2000 portrait for the Secure QR (real codes carry one of ~1 kB)."""
    ph = draw.portrait(rng, 44, 56, female=female)
    buf = io.BytesIO()
    ph.save(buf, "JPEG2000", quality_mode="rates", quality_layers=[60], irreversible=True)
    return buf.getvalue()


# ============================================================ in.aadhaar
def aadhaar(rng, keys):
    st = Style(rng)
    person = in_person(rng, female=None)
    gender = "F" if person["female"] else "M"
    if rng.random() < 0.04:
        gender = "T"
    dob = rand_date(rng, 1950, 2006)
    variant = rng.choice(["pvc", "pvc", "letter", "letter", "old"])
    yob_only = variant == "old" and rng.random() < 0.5
    uid = codes.make_12digit_verhoeff(rng)
    addr, addr_text, addr_hi = in_address(rng, person)
    issue = rand_date(rng, max(dob.year + 5, 2012), 2024)
    mobile = ("9" if rng.random() < 0.5 else rng.choice("678")) + "".join(
        str(rng.randint(0, 9)) for _ in range(9))
    has_mobile = rng.random() < 0.85
    secure = variant != "old"

    expected = {"id": uid, "name": person["name"], "gender": gender,
                "address": addr_text, "pin_code": addr["pc"]}
    if yob_only:
        expected["year_of_birth"] = str(dob.year)
    else:
        expected["dob"] = dmy(dob)

    if secure:
        ts = dt.datetime(issue.year, issue.month, issue.day, rng.randint(8, 19), rng.randint(0, 59),
                         rng.randint(0, 59), rng.randint(0, 999) * 1000)
        qr_text = codes.aadhaar_secure_qr_v2(keys["uidai"], uid, person["name"], gender, dob, addr,
                                             mobile if has_mobile else None, ts,
                                             jp2_photo(rng, person["female"]))
        expected["id_last4"] = uid[-4:]
        if has_mobile:
            expected["mobile_last4"] = mobile[-4:]
        qr_img, qv = draw.qr_image(qr_text, ec="M", border=2)
    else:
        qr_text = codes.aadhaar_xml_qr(uid, person["name"], gender, dob, yob_only, addr)
        qr_img, qv = draw.qr_image(qr_text, ec="M", border=2)

    gender_txt = {"M": rng.choice(["पुरुष / MALE", "पुरुष/ Male", "पुरुष / Male"]),
                  "F": rng.choice(["महिला / FEMALE", "महिला/ Female", "महिला / Female"]),
                  "T": "ट्रांसजेंडर / TRANSGENDER"}[gender]
    dob_label = rng.choice(["जन्म तिथि/DOB: ", "जन्म तिथि / DOB : ", "जन्म तिथि/ DOB: "])
    yob_label = rng.choice(["जन्म वर्ष / Year of Birth : ", "जन्म वर्ष/Year of Birth: "])

    # ---------------- front
    f = Card(*ID1, PX_W, bg=(252, 252, 250))
    draw.tint_gradient(f, rng.choice([(255, 250, 240), (250, 250, 252), (255, 252, 245)]),
                       rng.choice([(248, 244, 236), (242, 246, 250), (250, 244, 240)]))
    draw.guilloche(f, rng, rng.choice([(235, 190, 150), (190, 200, 225), (215, 200, 200)]),
                   n_curves=16, alpha=0.22)
    # header: saffron/green stripes, emblem, Government of India, logo
    f.d.rectangle([0, 0, f.img.size[0], f.p(1.3)], fill=(245, 150, 45))
    f.d.rectangle([0, f.p(11.8), f.img.size[0], f.p(12.3)], fill=(30, 130, 60))
    draw.india_emblem(f, 7.5 + st.jx * 0.3, 5.6, 7.5, motto=False)
    hx = 42 + st.jx
    f.text(hx, 6.0, "भारत सरकार", st.fam, st.sz(3.6), fill=(30, 30, 30), anchor="ms",
           deva=st.deva, is_bold=True)
    f.text(hx, 10.4, rng.choice(["Government of India", "GOVERNMENT OF INDIA"]), st.fam,
           st.sz(3.0), fill=(30, 30, 30), anchor="ms", is_bold=True)
    draw.aadhaar_logo(f, 78.5, 5.0, 3.4)
    # photo
    px, py, pw, ph = 4.5 + st.jx * 0.5, 15.5 + st.jy * 0.5, 18.5, 23.5
    draw_photo(f, rng, px, py, pw, ph, person["female"])
    if variant == "pvc":
        # issue date written vertically beside the photo
        c2 = Card(22, 2.6, f.p(22), bg=(252, 250, 246))
        c2.text(0.3, 2.0, "Issue Date: " + dmy(issue), "noto_sans", 1.9, fill=(60, 60, 60))
        lab = c2.img.rotate(90, expand=True)
        f.img.paste(lab, f.pt(px - 3.2, py))
    tx = 26.5 + st.jx
    ty = 19.5 + st.jy
    qs = rng.uniform(23, 26)
    col_w = (ID1[0] - qs - 3.5 - tx) if variant == "pvc" else (ID1[0] - 3 - tx)
    ls = st.sz(rng.uniform(2.5, 3.0))
    f.text(tx, ty, person["name_hi"], st.fam, ls, deva=st.deva, fill=(20, 20, 20), max_w=col_w)
    f.text(tx, ty + ls * 1.55, person["name"], st.fam, ls, fill=(10, 10, 10), is_bold=st.value_bold,
           max_w=col_w)
    if yob_only:
        f.text(tx, ty + ls * 3.1, yob_label + str(dob.year), st.fam, ls * 0.92, deva=st.deva, max_w=col_w)
    else:
        f.text(tx, ty + ls * 3.1, dob_label + dmy(dob), st.fam, ls * 0.92, deva=st.deva, max_w=col_w)
    f.text(tx, ty + ls * 4.6, gender_txt, st.fam, ls * 0.92, deva=st.deva, max_w=col_w)
    num = " ".join(uid[i:i + 4] for i in range(0, 12, 4))
    nfam = rng.choice(["liberation_sans", "noto_sans", "dejavu_sans", "free_sans"])
    nsz = st.sz(rng.uniform(4.4, 5.2))
    f.text(42.8 + st.jx * 0.5 if variant != "pvc" else 30.0, 46.0, num, nfam, nsz, fill=(10, 10, 10),
           anchor="ms", is_bold=True)
    if variant == "letter" and rng.random() < 0.5:
        vid = str(rng.randint(9000, 9199)) + "".join(str(rng.randint(0, 9)) for _ in range(12))
        f.text(42.8, 49.3, "VID : " + " ".join(vid[i:i + 4] for i in range(0, 16, 4)), nfam,
               st.sz(2.0), anchor="ms")
    f.d.rectangle([0, f.p(50.6), f.img.size[0], f.p(50.9)], fill=(220, 30, 40))
    slogan = rng.choice(["मेरा आधार, मेरी पहचान", "आधार – आम आदमी का अधिकार"])
    f.text(42.8, 53.3, slogan, st.fam, st.sz(2.3), fill=(200, 20, 30), anchor="ms", deva=st.deva,
           is_bold=True)
    if variant == "pvc":
        draw.paste_qr(f, qr_img, ID1[0] - qs - 2.5, 14.5 + st.jy * 0.3, qs)

    # ---------------- back
    b = Card(*ID1, PX_W, bg=(252, 252, 250))
    draw.tint_gradient(b, rng.choice([(255, 250, 240), (250, 250, 252)]),
                       rng.choice([(248, 244, 236), (242, 246, 250)]))
    draw.guilloche(b, rng, rng.choice([(235, 190, 150), (190, 200, 225)]), n_curves=14, alpha=0.2)
    b.d.rectangle([0, 0, b.img.size[0], b.p(1.3)], fill=(245, 150, 45))
    b.text(43, 5.4, "भारतीय विशिष्ट पहचान प्राधिकरण", st.fam, st.sz(3.1), anchor="ms", deva=st.deva,
           is_bold=True, fill=(40, 40, 40))
    b.text(43, 9.4, "Unique Identification Authority of India", st.fam, st.sz(2.7), anchor="ms",
           is_bold=True, fill=(40, 40, 40))
    draw.aadhaar_logo(b, 80, 5.0, 3.2)
    b.d.rectangle([0, b.p(11.4), b.img.size[0], b.p(11.8)], fill=(30, 130, 60))
    qr_on_back = variant != "pvc"
    right_limit = ID1[0] - (31 if qr_on_back else 4)
    asz = st.sz(rng.uniform(2.25, 2.6))
    y = 16.0 + st.jy
    stacked = qr_on_back or rng.random() < 0.5
    if stacked:
        col_w = right_limit - 4.5
        lines_hi = b.wrap("पता: " + addr_hi + " - " + addr["pc"], st.fam, asz, col_w, deva=st.deva)
        lines_en = b.wrap("Address: " + addr_text + " - " + addr["pc"], st.fam, asz, col_w)
        for ln in lines_hi[:4]:
            b.text(4.5, y, ln, st.fam, asz, deva=st.deva)
            y += asz * 1.45
        y += asz * 0.6
        for ln in lines_en:
            b.text(4.5, y, ln, st.fam, asz)
            y += asz * 1.45
    else:
        col_w = (right_limit - 4.5) / 2 - 2
        y0 = y
        for ln in b.wrap("पता: " + addr_hi + " - " + addr["pc"], st.fam, asz, col_w, deva=st.deva)[:6]:
            b.text(4.5, y, ln, st.fam, asz, deva=st.deva)
            y += asz * 1.5
        y = y0
        for ln in b.wrap("Address: " + addr_text + " - " + addr["pc"], st.fam, asz, col_w):
            b.text(4.5 + col_w + 4, y, ln, st.fam, asz)
            y += asz * 1.5
    if qr_on_back:
        qs = rng.uniform(26, 29)
        draw.paste_qr(b, qr_img, ID1[0] - qs - 2.0, 13.0 + st.jy * 0.3, qs)
    b.text(36 if qr_on_back else 42.8, 47.2, num, nfam, nsz, fill=(10, 10, 10), anchor="ms", is_bold=True)
    b.d.rectangle([0, b.p(50.6), b.img.size[0], b.p(50.9)], fill=(220, 30, 40))
    b.text(42.8, 53.3, "1947   |   help@uidai.gov.in   |   www.uidai.gov.in", "noto_sans", st.sz(1.8),
           anchor="ms", fill=(60, 60, 60))
    return {"front": f.img, "back": b.img, "expected": expected, "size_mm": ID1,
            "meta": {"variant": variant, "qr_kind": "secure_qr_v2" if secure else "xml", "qr_version": qv,
                     "qr_side": "front" if variant == "pvc" else "back", "font": st.fam}}


# ============================================================ in.pan
def pan(rng, keys):
    st = Style(rng, families=draw.SANS_FAMILIES + ["noto_serif"])
    person = in_person(rng)
    dob = rand_date(rng, 1950, 2006)
    pan_no = codes.make_pan(rng, person["surname"], "P")
    mother = rng.random() < 0.12
    parent = person["mother"] if mother else person["father"]
    expected = {"id": pan_no, "name": person["name"].upper(), "dob": dmy(dob)}
    expected["mother_name" if mother else "father_name"] = parent.upper()

    c = Card(*ID1, PX_W)
    base = rng.choice([((212, 228, 240), (236, 244, 250)), ((220, 236, 232), (240, 248, 244)),
                       ((226, 232, 244), (246, 246, 252))])
    draw.tint_gradient(c, *base, vertical=rng.random() < 0.5)
    draw.guilloche(c, rng, rng.choice([(120, 160, 200), (130, 170, 160)]), n_curves=18, alpha=0.25)
    draw.faint_pattern_text(c, "INCOME TAX DEPARTMENT", "noto_sans", 1.1, (90, 120, 160), alpha=0.08)
    hc = (20, 20, 60)
    c.text(3.5, 4.2, "आयकर विभाग", st.fam, st.sz(2.5), deva=st.deva, fill=hc, is_bold=True)
    c.text(3.5, 8.0, "INCOME TAX DEPARTMENT", st.fam, st.sz(2.9), fill=hc, is_bold=True, max_w=34)
    draw.india_emblem(c, 42.8, 5.0, 6.5, color=(50, 50, 70), motto=False)
    c.text(82.0, 4.2, "भारत सरकार", st.fam, st.sz(2.5), deva=st.deva, fill=hc, is_bold=True, anchor="rs")
    c.text(82.0, 8.0, "GOVT. OF INDIA", st.fam, st.sz(2.9), fill=hc, is_bold=True, anchor="rs", max_w=30)
    draw_photo(c, rng, 3.5 + st.jx * 0.3, 10.5, 15.5, 19.0, person["female"], frame=(80, 80, 80))
    c.text(43.0 + st.jx * 0.3, 14.6, "स्थायी लेखा संख्या कार्ड", st.fam, st.sz(2.3), anchor="ms",
           deva=st.deva, fill=hc)
    c.text(43.0 + st.jx * 0.3, 17.6, "Permanent Account Number Card", st.fam, st.sz(2.4), anchor="ms",
           fill=hc, max_w=40)
    c.text(43.0 + st.jx * 0.3, 22.6, pan_no, rng.choice(["liberation_sans", "dejavu_sans", "noto_sans"]),
           st.sz(rng.uniform(4.0, 4.6)), anchor="ms", is_bold=True, fill=(10, 10, 10))
    # opaque signed "enhanced QR" (its content format is proprietary: random payload)
    payload = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
                      for _ in range(rng.randint(300, 420)))
    qr_img, _ = draw.qr_image(payload, ec="M", border=1)
    draw.paste_qr(c, qr_img, 64.5, 11.0 + st.jy * 0.3, 17.5)
    lsz, vsz = st.sz(1.9), st.sz(rng.uniform(2.6, 3.0))
    x = 3.5 + st.jx * 0.4
    y = 33.0 + st.jy * 0.5
    c.text(x, y, "नाम / Name", st.fam, lsz, deva=st.deva, fill=(50, 50, 70))
    c.text(x, y + vsz * 1.25, expected["name"], st.fam, vsz, is_bold=st.value_bold, max_w=58)
    y += vsz * 2.6
    lab = "माता का नाम / Mother's Name" if mother else "पिता का नाम / Father's Name"
    c.text(x, y, lab, st.fam, lsz, deva=st.deva, fill=(50, 50, 70))
    c.text(x, y + vsz * 1.25, parent.upper(), st.fam, vsz, is_bold=st.value_bold, max_w=58)
    y += vsz * 2.6
    c.text(x, y, rng.choice(["जन्म की तारीख / Date of Birth", "जन्म की तारीख/Date of Birth"]), st.fam,
           lsz, deva=st.deva, fill=(50, 50, 70))
    c.text(x, y + vsz * 1.25, dmy(dob), st.fam, vsz, is_bold=st.value_bold)
    draw.signature(c, 46.0, 42.0, 18.0, 6.5, rng)
    c.text(55.0, 51.8, "हस्ताक्षर / Signature", st.fam, lsz, deva=st.deva, anchor="ms", fill=(50, 50, 70))
    return {"front": c.img, "back": None, "expected": expected, "size_mm": ID1,
            "meta": {"parent": "mother" if mother else "father", "font": st.fam}}


# ============================================================ in.voter
def voter(rng, keys):
    st = Style(rng)
    person = in_person(rng)
    dob = rand_date(rng, 1950, 2005)
    letters = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3))
    epic = letters + "".join(str(rng.randint(0, 9)) for _ in range(7))
    old = rng.random() < 0.3
    upper = old or rng.random() < 0.5
    nm = person["name"].upper() if upper else person["name"]
    rel_opts = [("father", "पिता का नाम / Father's Name", person["father"])]
    if person["female"]:
        rel_opts += [("husband", "पति का नाम / Husband's Name", person["husband"])] * 2
    rel_opts += [("mother", "माता का नाम / Mother's Name", person["mother"]),
                 (None, "पिता/पति का नाम / Father's/Husband's Name", person["father"]),
                 (None, "संबंधी का नाम / Relative's Name", person["father"])]
    relation, rel_label, rel_name = rng.choice(rel_opts)
    if old:
        rel_label = rel_label.split(" / ")[1]
    rel_name = rel_name.upper() if upper else rel_name
    addr, addr_text, _ = in_address(rng, person)
    vaddr = ", ".join(v for v in [addr["house"], addr["street"], addr["loc"], addr["vtc"],
                                  addr["dist"], addr["state"]] if v)
    use_age = old and rng.random() < 0.6
    ref_year = rng.choice([2008, 2010, 2012, 2014])
    age = ref_year - dob.year - (1 if (dob.month, dob.day) > (1, 1) else 0)
    if use_age and age < 18:
        use_age = False
    expected = {"id": epic, "name": nm, "father_name": rel_name,
                "gender": "F" if person["female"] else "M", "address": vaddr}
    if relation:
        expected["relation"] = relation
    if use_age:
        expected["age"] = str(age)
    else:
        expected["dob"] = dmy(dob)

    c = Card(*ID1, PX_W)
    draw.tint_gradient(c, rng.choice([(250, 250, 246), (246, 248, 252), (252, 246, 240)]),
                       rng.choice([(236, 240, 248), (246, 238, 228), (240, 246, 240)]))
    draw.guilloche(c, rng, rng.choice([(170, 180, 215), (220, 180, 150), (170, 200, 170)]),
                   n_curves=14, alpha=0.22)
    draw.eci_logo(c, 6.5, 6.5, 4.0)
    hc = (20, 40, 110)
    c.text(46.0, 4.6, "भारत निर्वाचन आयोग", st.fam, st.sz(3.0), anchor="ms", deva=st.deva,
           is_bold=True, fill=hc)
    c.text(46.0, 8.6, "ELECTION COMMISSION OF INDIA", st.fam, st.sz(2.9), anchor="ms", is_bold=True, fill=hc)
    c.text(46.0, 12.2, rng.choice(["निर्वाचक फोटो पहचान पत्र / ELECTOR PHOTO IDENTITY CARD",
                                   "निर्वाचक फोटो पहचान पत्र / Elector Photo Identity Card"]),
           st.fam, st.sz(2.1), anchor="ms", deva=st.deva, fill=(120, 30, 30), max_w=74)
    draw.india_emblem(c, 80.5, 6.5, 6.0, color=(60, 60, 80), motto=False)
    px, py = 4.0 + st.jx * 0.4, 15.5 + st.jy * 0.4
    draw_photo(c, rng, px, py, 18.0, 22.5, person["female"], frame=(90, 90, 90))
    efam = rng.choice(["liberation_sans", "dejavu_sans", "noto_sans", "free_sans"])
    epic_top = rng.random() < 0.5
    if epic_top:
        c.text(26.0 + st.jx, 19.0 + st.jy, epic, efam, st.sz(3.8), is_bold=True, fill=(10, 10, 10))
        y = 24.5 + st.jy
    else:
        c.text(px + 9.0, py + 26.0, epic, efam, st.sz(3.2), is_bold=True, anchor="ms", fill=(10, 10, 10))
        # a barcode-like strip under the number
        bx = px + 1.0
        for i in range(60):
            if rng.random() < 0.55:
                c.d.rectangle([c.p(bx + i * 0.27), c.p(py + 27.3), c.p(bx + i * 0.27 + 0.18), c.p(py + 30.3)],
                              fill=(15, 15, 15))
        y = 19.0 + st.jy
    x = 26.0 + st.jx
    lsz = st.sz(rng.uniform(2.2, 2.5))
    sep = rng.choice([" : ", ": "])
    name_label = "Elector's Name" if old else "नाम / Name"
    gender_val = ("Female" if person["female"] else "Male") if not old else ("F" if person["female"] else "M")
    if not old:
        gender_val = ("महिला / Female" if person["female"] else "पुरुष / Male")
    rows = [(name_label, nm), (rel_label, rel_name),
            ("Sex" if old else "लिंग / Gender", gender_val)]
    if use_age:
        rows.append((f"Age as on 1.1.{ref_year}", str(age)))
    else:
        dsep = rng.choice(["/", "-"])
        rows.append(("Date of Birth" if old else rng.choice(["जन्म तिथि / Date of Birth", "जन्म की तारीख / Date of Birth"]),
                     dob.strftime(f"%d{dsep}%m{dsep}%Y")))
    for lab, val in rows:
        two_line = c.measure(lab + sep + val, st.fam, lsz, st.deva) > ID1[0] - x - 2.5
        if two_line:
            c.text(x, y, lab + sep.rstrip(), st.fam, lsz * 0.9, deva=st.deva, fill=(50, 50, 60))
            y += lsz * 1.35
            c.text(x + 2.0, y, val, st.fam, lsz, deva=st.deva, is_bold=st.value_bold, max_w=ID1[0] - x - 4.5)
        else:
            w = c.text(x, y, lab + sep, st.fam, lsz, deva=st.deva, fill=(50, 50, 60))
            c.text(x + w, y, val, st.fam, lsz, deva=st.deva, is_bold=st.value_bold)
        y += lsz * 1.7
    # back
    b = Card(*ID1, PX_W)
    draw.tint_gradient(b, rng.choice([(250, 250, 246), (246, 248, 252)]), rng.choice([(236, 240, 248), (246, 238, 228)]))
    draw.guilloche(b, rng, rng.choice([(170, 180, 215), (220, 180, 150)]), n_curves=12, alpha=0.2)
    asz = st.sz(rng.uniform(2.3, 2.6))
    y = 7.0 + st.jy
    lab = rng.choice(["पता / Address : ", "Address : ", "पता / Address: "])
    lines = b.wrap(lab + vaddr, st.fam, asz, 76, deva=st.deva)
    for ln in lines:
        b.text(4.5, y, ln, st.fam, asz, deva=st.deva)
        y += asz * 1.5
    y += 2.0
    ac = rng.randint(1, 290)
    b.text(4.5, y, f"Assembly Constituency No. & Name : {ac} - {rng.choice(data.IN_CONSTITUENCIES)}",
           st.fam, st.sz(2.0), deva=st.deva, max_w=76)
    b.text(4.5, y + 3.4, f"Part No. & Name : {rng.randint(1, 300)} - Govt. Primary School", st.fam,
           st.sz(2.0), max_w=76)
    issue = rand_date(rng, 2015, 2024)
    b.text(4.5, 46.0, "Date : " + dmy(issue), st.fam, st.sz(2.1))
    draw.signature(b, 52.0, 36.0, 20.0, 6.0, rng)
    b.text(62.0, 46.0, "निर्वाचक रजिस्ट्रीकरण अधिकारी", st.fam, st.sz(1.9), anchor="ms", deva=st.deva)
    b.text(62.0, 49.0, "Electoral Registration Officer", st.fam, st.sz(1.9), anchor="ms")
    return {"front": c.img, "back": b.img, "expected": expected, "size_mm": ID1,
            "meta": {"old_design": old, "relation_label": rel_label, "font": st.fam}}


# ============================================================ in.passport
def passport(rng, keys):
    st = Style(rng, families=["liberation_sans", "noto_sans", "dejavu_sans", "free_sans", "noto_serif"])
    person = in_person(rng)
    dob = rand_date(rng, 1950, 2006)
    issue = rand_date(rng, max(2014, dob.year + 1), 2024)
    adult = (issue - dob).days / 365.25 >= 18
    expiry = add_years(issue, 10 if adult else 5) - dt.timedelta(days=1)
    number = rng.choice("JKLMNPRSTUVWZ") + str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(6))
    surname = person["surname"].upper()
    given = person["first"].upper()
    sex = "F" if person["female"] else "M"
    pob = rng.choice(data.IN_BIRTH_PLACES)
    poi = rng.choice(data.IN_PASSPORT_OFFICES)
    mrz = codes.td3_lines("P", "IND", surname, given, number, "IND", dob, sex, expiry,
                          personal_cd_filler=rng.random() < 0.5)
    expected = {"document_type": "P", "issuing_state": "IND", "id": number, "last_name": surname,
                "first_name": given, "name": f"{surname} {given}", "nationality": "IND",
                "dob": dmy(dob), "gender": sex, "expiry_date": dmy(expiry),
                "place_of_birth": pob, "issue_date": dmy(issue)}

    c = Card(*TD3_PAGE, PX_W)
    draw.tint_gradient(c, rng.choice([(238, 232, 242), (236, 240, 246), (244, 236, 232)]),
                       rng.choice([(246, 242, 236), (232, 238, 244), (238, 244, 238)]))
    draw.guilloche(c, rng, rng.choice([(160, 130, 180), (130, 150, 190), (190, 140, 130)]),
                   n_curves=22, alpha=0.22, kind="rosette")
    draw.guilloche(c, rng, rng.choice([(160, 130, 180), (130, 150, 190)]), n_curves=10, alpha=0.15,
                   kind="waves")
    hc = (40, 30, 70)
    c.text(62.5, 6.5, "भारत गणराज्य", st.fam, st.sz(3.6), anchor="ms", deva=st.deva, is_bold=True, fill=hc)
    c.text(62.5, 11.2, "REPUBLIC OF INDIA", st.fam, st.sz(3.6), anchor="ms", is_bold=True, fill=hc)
    draw.india_emblem(c, 14.0, 7.0, 8.0, color=(70, 60, 90), motto=False)
    # photo
    px, py, pw, ph = 5.0 + st.jx * 0.3, 17.0 + st.jy * 0.3, 31.0, 39.0
    photo = draw_photo(c, rng, px, py, pw, ph, person["female"])
    draw.signature(c, px + 2, py + ph + 1.0, pw - 4, 6.0, rng)
    # fields
    lsz = st.sz(2.15)
    vsz = st.sz(rng.uniform(3.3, 3.8))
    vf = rng.choice(["liberation_sans", "dejavu_sans", "noto_sans", "free_sans"])
    lc = (70, 60, 90)
    x0 = 41.0 + st.jx
    y = 15.5 + st.jy * 0.4
    gap = 7.55

    def field(x, y, label, value, w=None):
        c.text(x, y, label, st.fam, lsz, deva=st.deva, fill=lc)
        c.text(x, y + vsz * 1.2, value, vf, vsz, is_bold=True, fill=(15, 15, 20), max_w=w or 80)

    field(x0, y, "प्रकार / Type", "P")
    field(x0 + 16, y, "कोड / Country Code", "IND")
    field(x0 + 44, y, "पासपोर्ट न. / Passport No.", number)
    y += gap
    field(x0, y, "उपनाम / Surname", surname)
    y += gap
    field(x0, y, "दिया गया नाम / Given Name(s)", given)
    y += gap
    field(x0, y, "राष्ट्रीयता / Nationality", "INDIAN")
    field(x0 + 30, y, "लिंग / Sex", sex)
    field(x0 + 46, y, "जन्मतिथि / Date of Birth", dmy(dob))
    y += gap
    field(x0, y, "जन्म स्थान / Place of Birth", pob)
    y += gap
    field(x0, y, "जारी करने का स्थान / Place of Issue", poi)
    y += gap
    field(x0, y, "जारी करने की तिथि / Date of Issue", dmy(issue))
    field(x0 + 40, y, "समाप्ति की तिथि / Date of Expiry", dmy(expiry))
    # ghost portrait
    g = draw.ghost(photo, 0.28).resize((c.p(11), c.p(13.5)), Image.LANCZOS)
    c.img.paste(g, c.pt(109, 22.0))
    # MRZ: clear zone with OCR-B, 44 characters over about 114 mm
    c.d.rectangle([0, c.p(70.5), c.img.size[0], c.img.size[1]], fill=(246, 246, 244))
    mf = draw.font("ocrb", 100)
    adv = mf.getlength("<" * 44) / 100.0  # em units per 44 chars
    em = 114.0 / adv
    for i, line in enumerate(mrz):
        c.d.text(c.pt(5.5, 78.0 + i * 6.2), line, font=draw.font("ocrb", c.size_px(em)), fill=(10, 10, 10),
                 anchor="ls")
    return {"front": c.img, "back": None, "expected": expected, "size_mm": TD3_PAGE,
            "meta": {"mrz": mrz, "font": st.fam}}


# ============================================================ in.national_id (invented)
def national_id(rng, keys):
    st = Style(rng)
    person = in_person(rng)
    dob = rand_date(rng, 1950, 2006)
    issue = rand_date(rng, 2022, 2025)
    expiry = add_years(issue, 10) - dt.timedelta(days=1)
    idn = codes.make_12digit_verhoeff(rng)
    docno = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2)) + "".join(
        str(rng.randint(0, 9)) for _ in range(7))
    sex = "F" if person["female"] else "M"
    upper = rng.random() < 0.6
    nm = person["name"].upper() if upper else person["name"]
    mrz = codes.td1_lines("ID", "IND", docno, "", dob, sex, expiry, "IND", "",
                          person["surname"], person["first"])
    expected = {"id": idn, "name": nm, "dob": dmy(dob), "gender": sex, "nationality": "IND",
                "expiry_date": dmy(expiry), "document_number": docno}
    c = Card(*ID1, PX_W)
    draw.tint_gradient(c, rng.choice([(253, 238, 220), (250, 244, 230)]), rng.choice([(226, 242, 228), (232, 240, 246)]))
    draw.guilloche(c, rng, rng.choice([(200, 150, 110), (120, 160, 130), (140, 150, 190)]), n_curves=16, alpha=0.22)
    hc = (30, 40, 80)
    draw.india_emblem(c, 7.0, 6.5, 8.0, color=(60, 50, 60), motto=True)
    c.text(47, 4.8, "भारत सरकार  GOVERNMENT OF INDIA", st.fam, st.sz(2.6), anchor="ms", deva=st.deva,
           is_bold=True, fill=hc, max_w=66)
    c.text(47, 9.4, rng.choice(["राष्ट्रीय पहचान पत्र / NATIONAL IDENTITY CARD",
                                "राष्ट्रीय पहचान पत्र / National Identity Card"]),
           st.fam, st.sz(2.5), anchor="ms", deva=st.deva, fill=(150, 40, 30), is_bold=True, max_w=66)
    px, py = 4.0 + st.jx * 0.3, 15.0 + st.jy * 0.3
    photo = draw_photo(c, rng, px, py, 19.0, 24.0, person["female"])
    draw.chip(c, 70.0, 13.0 + st.jy * 0.3, 10.5, 8.5)
    x = 26.0 + st.jx
    y = 17.5 + st.jy
    lsz = st.sz(1.75)
    vsz = st.sz(rng.uniform(2.5, 2.9))
    grouped = rng.random() < 0.6
    idtxt = " ".join(idn[i:i + 4] for i in range(0, 12, 4)) if grouped else idn

    def field(x, y, label, value, w=None):
        c.text(x, y, label, st.fam, lsz, deva=st.deva, fill=(70, 70, 80))
        c.text(x, y + vsz * 1.2, value, st.fam, vsz, is_bold=st.value_bold, max_w=w or 56)

    field(x, y, "नाम / Name", nm, w=42)
    y += vsz * 2.55
    field(x, y, "जन्म तिथि / Date of Birth", dmy(dob))
    field(x + 25, y, "लिंग / Sex", sex)
    y += vsz * 2.55
    field(x, y, "राष्ट्रीयता / Nationality", "IND")
    field(x + 25, y, "समाप्ति तिथि / Date of Expiry", dmy(expiry))
    c.text(4.0, 47.5, "पहचान संख्या / ID No.", st.fam, lsz, deva=st.deva, fill=(70, 70, 80))
    c.text(4.0, 52.0, idtxt, rng.choice(["liberation_sans", "dejavu_sans", "noto_sans"]),
           st.sz(rng.uniform(3.6, 4.2)), is_bold=True, fill=(10, 10, 10))
    g = draw.ghost(photo, 0.3).resize((c.p(11), c.p(14)), Image.LANCZOS)
    c.img.paste(g, c.pt(71, 37))
    # back
    b = Card(*ID1, PX_W)
    draw.tint_gradient(b, rng.choice([(250, 244, 230), (246, 246, 240)]), rng.choice([(232, 240, 246), (226, 242, 228)]))
    draw.guilloche(b, rng, rng.choice([(200, 150, 110), (140, 150, 190)]), n_curves=12, alpha=0.2)
    b.text(4.5, 6.0, "जारी करने की तिथि / Date of Issue: " + dmy(issue), st.fam, st.sz(2.1), deva=st.deva)
    b.text(4.5, 10.0, "जारीकर्ता / Issuing Authority: Registrar General of India", st.fam, st.sz(2.0),
           deva=st.deva, max_w=60)
    draw.signature(b, 50.0, 13.0, 18.0, 6.0, rng)
    b.text(4.5, 18.5, "In case found, please drop in the nearest post box.", st.fam, st.sz(1.8), max_w=44)
    draw.india_emblem(b, 76.0, 9.0, 7.0, color=(150, 150, 160), motto=False)
    b.d.rectangle([0, b.p(31.0), b.img.size[0], b.img.size[1]], fill=(248, 248, 246))
    mf = draw.font("ocrb", 100)
    em = 76.5 / (mf.getlength("<" * 30) / 100.0)
    for i, line in enumerate(mrz):
        b.d.text(b.pt(4.5, 38.0 + i * 6.4), line, font=draw.font("ocrb", b.size_px(em)), fill=(10, 10, 10),
                 anchor="ls")
    return {"front": c.img, "back": b.img, "expected": expected, "size_mm": ID1,
            "meta": {"mrz": mrz, "id_grouped": grouped, "font": st.fam, "layout": "invented"}}


# ============================================================ vn.national_id (CCCD 2021)
def vn_person(rng):
    female = rng.random() < 0.5
    sur = rng.choice(data.VN_SURNAMES)
    mid = rng.choice(data.VN_MIDDLE_F if female else data.VN_MIDDLE_M)
    given = rng.choice(data.VN_GIVEN_F if female else data.VN_GIVEN_M)
    parts = [sur, mid, given]
    if rng.random() < 0.2:
        parts.insert(2, rng.choice(data.VN_MIDDLE_F if female else data.VN_MIDDLE_M))
    name = nfc(" ".join(parts))
    return female, sur, " ".join(parts[1:]), name


def vn_place(rng, with_street):
    code, prov, wards = rng.choice(data.VN_PLACES)
    ward, district = rng.choice(wards)
    parts = []
    if with_street:
        r = rng.random()
        if r < 0.4:
            parts.append(f"Số {rng.randint(1, 250)} {rng.choice(data.VN_STREETS)}")
        elif r < 0.7:
            parts.append(f"Tổ {rng.randint(1, 30)}")
        else:
            parts.append(rng.choice(["Thôn Đông", "Thôn Trung", "Xóm 5", "Ấp 3", "Khu phố 2", "Thôn Hạ"]))
    parts += [ward, district, prov]
    return code, nfc(", ".join(parts))


def cccd(rng, keys):
    st = Style(rng, families=["liberation_sans", "noto_sans", "dejavu_sans", "free_sans", "noto_serif",
                              "liberation_serif"])
    female, sur, given, name = vn_person(rng)
    dob = rand_date(rng, 1950, 2007)
    issue = rand_date(rng, max(2021, dob.year + 14), 2024)
    age = issue.year - dob.year - (1 if (issue.month, issue.day) < (dob.month, dob.day) else 0)
    expiry = None
    for m in (25, 40, 60):
        if age < m - 2:
            expiry = add_years(dob, m)
            break
    code, origin = vn_place(rng, with_street=False)
    _, residence = vn_place(rng, with_street=True)
    if rng.random() < 0.6:
        code = rng.choice(data.VN_PLACES)[0]
    idn = codes.make_cccd_number(rng, code, dob, female)
    old_id = str(rng.randint(1, 3)) + "".join(str(rng.randint(0, 9)) for _ in range(8))
    qr = codes.cccd_qr_text(idn, old_id, name, dob, female, residence, issue)
    mrz = codes.td1_lines("ID", "VNM", idn[3:], idn + "<<" + codes.mrz_check(idn), dob,
                          "F" if female else "M", expiry, "VNM", "",
                          sur, given)
    expected = {"id": idn, "old_id": old_id, "name": name, "dob": dmy(dob),
                "gender": "F" if female else "M", "nationality": "Việt Nam",
                "place_of_origin": origin, "address": residence, "issue_date": dmy(issue),
                "document_number": idn[3:]}
    if expiry:
        expected["expiry_date"] = dmy(expiry)

    c = Card(*ID1, PX_W)
    draw.tint_gradient(c, rng.choice([(214, 234, 240), (220, 236, 228), (226, 236, 244)]),
                       rng.choice([(240, 246, 236), (236, 242, 248), (244, 244, 236)]))
    draw.guilloche(c, rng, rng.choice([(120, 170, 190), (140, 180, 150)]), n_curves=20, alpha=0.28,
                   kind="rosette")
    draw.guilloche(c, rng, (150, 190, 200), n_curves=8, alpha=0.15, kind="waves")
    draw.vn_emblem(c, 9.5, 9.0, 6.0)
    red = (200, 30, 35)
    hc = (20, 20, 30)
    hx = 44.5 + st.jx * 0.3
    HW = 44.0
    c.text(hx, 4.0, "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM", st.fam, st.sz(2.1), anchor="ms", is_bold=True,
           fill=hc, max_w=HW)
    c.text(hx, 6.8, "Độc lập - Tự do - Hạnh phúc", st.fam, st.sz(1.9), anchor="ms", is_bold=True, fill=hc,
           max_w=HW)
    c.text(hx, 9.3, "SOCIALIST REPUBLIC OF VIET NAM", st.fam, st.sz(1.65), anchor="ms", fill=hc, max_w=HW)
    c.text(hx, 11.6, "Independence - Freedom - Happiness", st.fam, st.sz(1.55), anchor="ms", fill=hc,
           max_w=HW)
    c.text(hx, 15.9, "CĂN CƯỚC CÔNG DÂN", st.fam, st.sz(3.1), anchor="ms", is_bold=True, fill=red, max_w=HW)
    c.text(hx, 18.8, "Citizen Identity Card", st.fam, st.sz(1.95), anchor="ms", is_bold=True, fill=hc,
           max_w=HW)
    qr_img, qv = draw.qr_image(qr, ec="M", border=1)
    qs = rng.uniform(13.0, 14.5)
    draw.paste_qr(c, qr_img, ID1[0] - qs - 2.2, 2.4, qs)
    px, py = 3.0 + st.jx * 0.3, 17.5 + st.jy * 0.3
    draw_photo(c, rng, px, py, 18.5, 24.5, female, bindi=False)
    lsz = st.sz(1.6)
    vsz = st.sz(rng.uniform(2.05, 2.35))
    c.text(px, py + 28.2, "Có giá trị đến:", st.fam, st.sz(1.5), fill=hc, max_w=19)
    c.text(px, py + 30.5, "Date of expiry", st.fam, st.sz(1.4), fill=hc, max_w=19)
    c.text(px + 0.3, py + 33.8, dmy(expiry) if expiry else "Không thời hạn", st.fam, st.sz(2.0), fill=hc,
           is_bold=True, max_w=18.5)
    x = 23.0 + st.jx * 0.3
    right = ID1[0] - 2.0
    y = 23.6 + st.jy * 0.3
    w = c.text(x, y, "Số / No.: ", st.fam, lsz, fill=hc)
    c.text(x + w + 1.0, y + 0.3, idn, rng.choice(["liberation_sans", "dejavu_sans", "noto_sans"]),
           st.sz(3.0), is_bold=True, fill=red if rng.random() < 0.6 else hc, max_w=right - x - w - 1)
    y += 3.2
    c.text(x, y, "Họ và tên / Full name:", st.fam, lsz, fill=hc)
    y += vsz * 1.3
    c.text(x + 2.0, y, name.upper(), st.fam, vsz * 1.05, is_bold=True, fill=hc, max_w=right - x - 2)
    y += vsz * 1.35

    def row(x, y, label, value, maxw):
        w = c.text(x, y, label, st.fam, lsz, fill=hc, max_w=maxw * 0.7)
        c.text(x + w, y, value, st.fam, vsz * 0.95, fill=hc, is_bold=st.value_bold, max_w=maxw - w)

    row(x, y, "Ngày sinh / Date of birth: ", dmy(dob), right - x)
    y += vsz * 1.3
    row(x, y, "Giới tính / Sex: ", "Nữ" if female else "Nam", 24)
    row(x + 25, y, "Quốc tịch / Nationality: ", "Việt Nam", right - x - 25)
    y += vsz * 1.3
    c.text(x, y, "Quê quán / Place of origin:", st.fam, lsz, fill=hc)
    y += vsz * 1.2
    for ln in c.wrap(origin, st.fam, vsz * 0.95, right - x)[:2]:
        c.text(x, y, ln, st.fam, vsz * 0.95, fill=hc, is_bold=st.value_bold)
        y += vsz * 1.15
    lab = "Nơi thường trú / Place of residence: "
    wl = c.measure(lab, st.fam, lsz)
    # first part of the residence on the label line, the rest below (as the real card does)
    parts = residence.split(", ")
    first = parts[0] + ","
    c.text(x, y, lab, st.fam, lsz, fill=hc)
    if c.measure(first, st.fam, vsz * 0.95) < right - x - wl and len(parts) > 1:
        c.text(x + wl, y, first, st.fam, vsz * 0.95, fill=hc, is_bold=st.value_bold)
        rest = ", ".join(parts[1:])
    else:
        rest = residence
    y += vsz * 1.15
    lines = c.wrap(rest, st.fam, vsz * 0.95, right - x)
    if len(lines) > 2:
        lines = [lines[0], " ".join(lines[1:])]
    for ln in lines:
        c.text(x, y, ln, st.fam, vsz * 0.95, fill=hc, is_bold=st.value_bold, max_w=right - x)
        y += vsz * 1.15

    # back
    b = Card(*ID1, PX_W)
    draw.tint_gradient(b, rng.choice([(214, 234, 240), (226, 236, 244)]), rng.choice([(240, 246, 236), (236, 242, 248)]))
    draw.guilloche(b, rng, rng.choice([(120, 170, 190), (140, 180, 150)]), n_curves=16, alpha=0.24, kind="rosette")
    bs = st.sz(1.75)
    y = 5.0
    b.text(3.5, y, "Đặc điểm nhân dạng / Personal identification:", st.fam, bs, fill=hc)
    y += 3.0
    for ln in b.wrap(rng.choice(data.VN_MARKS), st.fam, bs * 1.05, 50):
        b.text(3.5, y, ln, st.fam, bs * 1.05, fill=hc)
        y += 2.8
    y += 0.8
    w = b.text(3.5, y, "Ngày, tháng, năm / Date, month, year: ", st.fam, bs, fill=hc)
    b.text(3.5 + w, y, dmy(issue), st.fam, bs * 1.2, fill=hc, is_bold=True)
    y += 3.2
    for ln in ["CỤC TRƯỞNG CỤC CẢNH SÁT", "QUẢN LÝ HÀNH CHÍNH VỀ TRẬT TỰ XÃ HỘI",
               "DIRECTOR GENERAL OF THE POLICE DEPARTMENT", "FOR ADMINISTRATIVE MANAGEMENT OF SOCIAL ORDER"]:
        b.text(28.0, y, ln, st.fam, bs * 0.85, anchor="ms", fill=hc, is_bold=ln.isupper() and "CỤC" in ln,
               max_w=50)
        y += 2.2
    # seal + signature
    sx, sy = 18.0, y + 3.5
    b.d.ellipse([b.p(sx - 5), b.p(sy - 5), b.p(sx + 5), b.p(sy + 5)], outline=(210, 50, 50), width=b.p(0.35))
    b.d.ellipse([b.p(sx - 3.6), b.p(sy - 3.6), b.p(sx + 3.6), b.p(sy + 3.6)], outline=(210, 50, 50), width=b.p(0.2))
    draw.signature(b, 22.0, sy - 3.5, 14.0, 5.0, rng)
    b.text(30.0, sy + 4.8, rng.choice(["Nguyễn Văn Thành", "Trần Quốc Bảo", "Lê Minh Khang"]), st.fam,
           bs * 1.05, anchor="ms", fill=hc, is_bold=True)
    for i, (l1, l2) in enumerate([("Ngón trỏ trái", "Left index finger"), ("Ngón trỏ phải", "Right index finger")]):
        bx = 55.0 + i * 15.0
        b.d.rectangle([b.p(bx), b.p(4.0), b.p(bx + 13.5), b.p(20.5)], outline=(90, 110, 120), width=b.p(0.15))
        b.text(bx + 6.75, 22.7, l1, st.fam, bs * 0.8, anchor="ms", fill=hc)
        b.text(bx + 6.75, 24.7, l2, st.fam, bs * 0.8, anchor="ms", fill=hc)
        # fingerprint whorl
        cx, cy = bx + 6.75, 12.2
        for k in range(1, 9):
            r = k * 0.75
            b.d.arc([b.p(cx - r * 0.8), b.p(cy - r), b.p(cx + r * 0.8), b.p(cy + r)], 200 + k * 7, 520 - k * 5,
                    fill=(70, 70, 80), width=max(1, b.p(0.18)))
    draw.chip(b, 66.0, 26.0, 9.5, 7.5)
    b.d.rectangle([0, b.p(34.0), b.img.size[0], b.img.size[1]], fill=(244, 246, 246))
    mf = draw.font("ocrb", 100)
    em = 77.0 / (mf.getlength("<" * 30) / 100.0)
    for i, line in enumerate(mrz):
        b.d.text(b.pt(4.3, 40.2 + i * 6.0), line, font=draw.font("ocrb", b.size_px(em)), fill=(10, 10, 10),
                 anchor="ls")
    return {"front": c.img, "back": b.img, "expected": expected, "size_mm": ID1,
            "meta": {"qr": qr, "qr_version": qv, "mrz": mrz, "font": st.fam}}


RENDERERS = {
    "in.aadhaar": aadhaar,
    "in.pan": pan,
    "in.voter": voter,
    "in.passport": passport,
    "in.national_id": national_id,
    "vn.national_id": cccd,
}
