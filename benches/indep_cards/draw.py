"""Drawing helpers: fonts with Devanagari/Latin runs, guilloche, emblems, portraits,
signatures, QR codes, chips. All shapes are drawn procedurally (no artwork copied)."""
import functools
import math
import re

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_FILES = {
    "liberation_sans": "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "liberation_sans_bold": "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf",
    "liberation_serif": "/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf",
    "liberation_serif_bold": "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf",
    "noto_sans": "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "noto_sans_bold": "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf",
    "noto_serif": "/usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf",
    "noto_serif_bold": "/usr/share/fonts/truetype/noto/NotoSerif-Bold.ttf",
    "dejavu_sans": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "dejavu_sans_bold": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "dejavu_serif": "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "dejavu_serif_bold": "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "free_sans": "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "free_sans_bold": "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
    "deva_sans": "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf",
    "deva_sans_bold": "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Bold.ttf",
    "deva_serif": "/usr/share/fonts/truetype/noto/NotoSerifDevanagari-Regular.ttf",
    "deva_serif_bold": "/usr/share/fonts/truetype/noto/NotoSerifDevanagari-Bold.ttf",
    "ocrb": "/usr/share/fonts/opentype/ocr-b/OCRB.otf",
}

LATIN_FAMILIES = ["liberation_sans", "noto_sans", "dejavu_sans", "free_sans",
                  "noto_serif", "liberation_serif", "dejavu_serif"]
SANS_FAMILIES = ["liberation_sans", "noto_sans", "dejavu_sans", "free_sans"]


@functools.lru_cache(maxsize=512)
def font(key: str, px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(FONT_FILES[key], max(6, int(px)),
                              layout_engine=ImageFont.Layout.RAQM)


def bold(key: str) -> str:
    return key if key.endswith("_bold") or key == "ocrb" else key + "_bold"


_DEVA = re.compile(r"([\u0900-\u097F\u200c\u200d]+(?:[ \u0900-\u097F\u200c\u200d]*[\u0900-\u097F])?)")


def runs(text):
    """Split into (is_devanagari, chunk) runs; spaces between Devanagari words stay in."""
    out = []
    pos = 0
    for m in _DEVA.finditer(text):
        if m.start() > pos:
            out.append((False, text[pos:m.start()]))
        out.append((True, m.group(0)))
        pos = m.end()
    if pos < len(text):
        out.append((False, text[pos:]))
    return out


class Card:
    """A flat card canvas measured in millimetres."""

    def __init__(self, w_mm, h_mm, px_w, bg=(245, 245, 240)):
        self.w_mm, self.h_mm = w_mm, h_mm
        self.s = px_w / w_mm  # px per mm
        self.img = Image.new("RGB", (px_w, int(round(h_mm * self.s))), bg)
        self.d = ImageDraw.Draw(self.img)

    def p(self, mm):
        return int(round(mm * self.s))

    def pt(self, x, y):
        return (self.p(x), self.p(y))

    def size_px(self, size_mm):
        return max(6, int(round(size_mm * self.s)))

    def text(self, x, y, text, fam, size_mm, fill=(20, 20, 20), deva="deva_sans",
             anchor="ls", is_bold=False, max_w=None):
        """Draw text with its left baseline at (x, y) mm. size_mm is the em size.
        Returns the advance in mm. max_w (mm) squeezes the size to fit."""
        if max_w is not None:
            w = self.measure(text, fam, size_mm, deva, is_bold)
            if w > max_w:
                size_mm *= max_w / w
        px = self.size_px(size_mm)
        lf = font(bold(fam) if is_bold else fam, px)
        df = font(bold(deva) if is_bold else deva, int(px * 0.95))
        total = self.measure(text, fam, size_mm, deva, is_bold)
        if anchor[0] == "m":
            x = x - total / 2
        elif anchor[0] == "r":
            x = x - total
        cx = self.p(x)
        by = self.p(y)
        for is_d, chunk in runs(text):
            f = df if is_d else lf
            self.d.text((cx, by), chunk, font=f, fill=fill, anchor="ls")
            cx += f.getlength(chunk)
        return total

    def measure(self, text, fam, size_mm, deva="deva_sans", is_bold=False):
        px = self.size_px(size_mm)
        lf = font(bold(fam) if is_bold else fam, px)
        df = font(bold(deva) if is_bold else deva, int(px * 0.95))
        return sum((df if d else lf).getlength(c) for d, c in runs(text)) / self.s

    def wrap(self, text, fam, size_mm, max_w, deva="deva_sans", is_bold=False, sep=", "):
        """Break at `sep` boundaries (kept at the line end), else at spaces."""
        parts = text.split(sep)
        lines, cur = [], ""
        for i, part in enumerate(parts):
            piece = part + (sep.rstrip() if i < len(parts) - 1 else "")
            cand = (cur + " " + piece) if cur else piece
            if cur and self.measure(cand, fam, size_mm, deva, is_bold) > max_w:
                lines.append(cur)
                cur = piece
            else:
                cur = cand
        if cur:
            lines.append(cur)
        # a single piece still too long: split at spaces
        out = []
        for ln in lines:
            words, cur = ln.split(" "), ""
            for wd in words:
                cand = (cur + " " + wd) if cur else wd
                if cur and self.measure(cand, fam, size_mm, deva, is_bold) > max_w:
                    out.append(cur)
                    cur = wd
                else:
                    cur = cand
            out.append(cur)
        return out

    def paste(self, im, x, y, w=None, h=None, mask=None):
        if w is not None:
            im = im.resize((self.p(w), self.p(h)), Image.LANCZOS)
            if mask is not None:
                mask = mask.resize(im.size, Image.LANCZOS)
        self.img.paste(im, self.pt(x, y), mask)


# ---------------------------------------------------------------- backgrounds on cards
def tint_gradient(card: Card, c1, c2, vertical=False):
    w, h = card.img.size
    t = np.linspace(0, 1, h if vertical else w)[:, None] if vertical else np.linspace(0, 1, w)[None, :]
    a = np.array(c1, float)[None, None, :]
    b = np.array(c2, float)[None, None, :]
    grad = a + (b - a) * t[..., None]
    grad = np.broadcast_to(grad, (h, w, 3))
    card.img.paste(Image.fromarray(grad.astype(np.uint8)))
    card.d = ImageDraw.Draw(card.img)


def guilloche(card: Card, rng, color, n_curves=14, width_px=1, alpha=0.35, region=None,
              kind=None):
    """Fine interlaced sinusoidal line work like the security print of ID cards."""
    w, h = card.img.size
    x0, y0, x1, y1 = region or (0, 0, w, h)
    layer = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(layer)
    kind = kind or rng.choice(["waves", "rosette", "mesh"])
    t = np.linspace(0, 1, 900)
    if kind == "waves":
        for i in range(n_curves):
            amp = (y1 - y0) * rng.uniform(0.04, 0.12)
            freq = rng.uniform(2, 6)
            ph = rng.uniform(0, 6.28)
            base = y0 + (y1 - y0) * (i + 0.5) / n_curves
            xs = x0 + (x1 - x0) * t
            for k in range(3):
                ys = base + amp * np.sin(2 * np.pi * freq * t + ph + k * 0.7) \
                    + amp * 0.4 * np.sin(2 * np.pi * freq * 2.3 * t + ph * 1.7)
                d.line(list(zip(xs.tolist(), ys.tolist())), fill=255, width=width_px)
    elif kind == "rosette":
        cx, cy = rng.uniform(x0 + 0.3 * (x1 - x0), x0 + 0.7 * (x1 - x0)), (y0 + y1) / 2
        R = min(x1 - x0, y1 - y0) * rng.uniform(0.35, 0.5)
        tt = np.linspace(0, 2 * np.pi, 2400)
        for i in range(n_curves):
            r = R * (0.45 + 0.55 * i / n_curves)
            k = rng.choice([7, 9, 11, 13])
            rr = r * (1 + 0.12 * np.sin(k * tt + i * 0.4))
            xs = cx + rr * np.cos(tt)
            ys = cy + rr * np.sin(tt)
            d.line(list(zip(xs.tolist(), ys.tolist())), fill=255, width=width_px)
    else:
        step = (x1 - x0) / (n_curves * 2.5)
        for i in range(int(n_curves * 3)):
            xs = x0 + i * step + (y1 - y0) * 0.2 * np.sin(np.pi * 2 * t * 1.5)
            ys = y0 + (y1 - y0) * t
            d.line(list(zip(xs.tolist(), ys.tolist())), fill=255, width=width_px)
            xs2 = x1 - i * step - (y1 - y0) * 0.2 * np.sin(np.pi * 2 * t * 1.5)
            d.line(list(zip(xs2.tolist(), ys.tolist())), fill=255, width=width_px)
    mask = layer.point(lambda v: int(v * alpha))
    card.img.paste(Image.new("RGB", (w, h), color), (0, 0), mask)
    card.d = ImageDraw.Draw(card.img)


def faint_pattern_text(card: Card, text, fam, size_mm, color, alpha=0.10, angle=0):
    """Micro-text / repeated watermark words across the card."""
    w, h = card.img.size
    layer = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(layer)
    f = font(fam, card.size_px(size_mm))
    step_y = int(card.size_px(size_mm) * 1.6)
    line = (text + "  ") * 40
    for i, y in enumerate(range(0, h, step_y)):
        d.text((-(i * 37) % 200 - 200, y), line, font=f, fill=255)
    if angle:
        layer = layer.rotate(angle, resample=Image.BICUBIC)
    mask = layer.point(lambda v: int(v * alpha))
    card.img.paste(Image.new("RGB", (w, h), color), (0, 0), mask)
    card.d = ImageDraw.Draw(card.img)


# ---------------------------------------------------------------- emblems and logos
def india_emblem(card: Card, cx, cy, h_mm, color=(60, 50, 40), motto=True):
    """A stylised Lion Capital: abacus with a wheel, three lion busts, motto below."""
    d, p = card.d, card.p
    s = h_mm
    # lions: three rounded heads with manes
    for dx, r in ((-0.17, 0.15), (0.17, 0.15), (0.0, 0.18)):
        x, y = cx + dx * s, cy - 0.18 * s
        d.ellipse([p(x - r * s), p(y - r * s * 1.1), p(x + r * s), p(y + r * s * 0.9)],
                  outline=color, width=max(1, p(0.05 * s)))
        d.ellipse([p(x - r * s * 0.45), p(y - r * s * 0.5), p(x + r * s * 0.45), p(y + r * s * 0.35)],
                  fill=color)
    # abacus
    d.rectangle([p(cx - 0.36 * s), p(cy + 0.02 * s), p(cx + 0.36 * s), p(cy + 0.16 * s)],
                outline=color, width=max(1, p(0.03 * s)))
    wr = 0.055 * s
    d.ellipse([p(cx - wr), p(cy + 0.09 * s - wr), p(cx + wr), p(cy + 0.09 * s + wr)],
              outline=color, width=max(1, p(0.015 * s)))
    for k in range(12):
        a = k * math.pi / 6
        d.line([p(cx), p(cy + 0.09 * s), p(cx + wr * math.cos(a)), p(cy + 0.09 * s + wr * math.sin(a))],
               fill=color, width=1)
    d.polygon([card.pt(cx - 0.3 * s, cy + 0.16 * s), card.pt(cx + 0.3 * s, cy + 0.16 * s),
               card.pt(cx + 0.22 * s, cy + 0.3 * s), card.pt(cx - 0.22 * s, cy + 0.3 * s)],
              outline=color)
    if motto:
        card.text(cx, cy + 0.5 * s, "सत्यमेव जयते", "noto_sans", 0.17 * s, fill=color,
                  anchor="ms", deva="deva_sans")


def aadhaar_logo(card: Card, cx, cy, r_mm):
    """Sun-like Aadhaar mark: red/yellow rays around fingerprint arcs, word 'आधार'."""
    d, p = card.d, card.p
    for k in range(16):
        a = k * math.pi / 8
        col = (230, 40, 30) if k % 2 else (250, 190, 20)
        pts = [card.pt(cx + r_mm * 0.55 * math.cos(a - 0.12), cy + r_mm * 0.55 * math.sin(a - 0.12)),
               card.pt(cx + r_mm * math.cos(a), cy + r_mm * math.sin(a)),
               card.pt(cx + r_mm * 0.55 * math.cos(a + 0.12), cy + r_mm * 0.55 * math.sin(a + 0.12))]
        d.polygon(pts, fill=col)
    d.ellipse([p(cx - 0.55 * r_mm), p(cy - 0.55 * r_mm), p(cx + 0.55 * r_mm), p(cy + 0.55 * r_mm)],
              fill=(255, 255, 255))
    for k in range(1, 5):
        rr = 0.12 * k * r_mm
        d.arc([p(cx - rr), p(cy - rr), p(cx + rr), p(cy + rr)], 200, 520,
              fill=(200, 40, 30), width=max(1, p(0.04 * r_mm)))
    card.text(cx, cy + r_mm * 1.45, "आधार", "noto_sans", r_mm * 0.7, fill=(200, 30, 30),
              anchor="ms", is_bold=True)


def eci_logo(card: Card, cx, cy, r_mm):
    d, p = card.d, card.p
    d.ellipse([p(cx - r_mm), p(cy - r_mm), p(cx + r_mm), p(cy + r_mm)], outline=(30, 60, 140),
              width=max(1, p(0.08 * r_mm)))
    d.rectangle([p(cx - 0.45 * r_mm), p(cy - 0.1 * r_mm), p(cx + 0.45 * r_mm), p(cy + 0.55 * r_mm)],
                outline=(30, 60, 140), width=max(1, p(0.07 * r_mm)))
    d.line([card.pt(cx - 0.2 * r_mm, cy - 0.1 * r_mm), card.pt(cx + 0.05 * r_mm, cy - 0.6 * r_mm)],
           fill=(30, 60, 140), width=max(1, p(0.12 * r_mm)))
    d.line([card.pt(cx - 0.5 * r_mm, cy - 0.3 * r_mm), card.pt(cx - 0.3 * r_mm, cy - 0.1 * r_mm),
            card.pt(cx + 0.4 * r_mm, cy - 0.55 * r_mm)], fill=(240, 130, 20), width=max(1, p(0.1 * r_mm)))


def vn_emblem(card: Card, cx, cy, r_mm):
    """Vietnam's emblem, simplified: red disc, gold five-pointed star, gold ring and cog."""
    d, p = card.d, card.p
    d.ellipse([p(cx - r_mm), p(cy - r_mm), p(cx + r_mm), p(cy + r_mm)], fill=(215, 170, 40))
    d.ellipse([p(cx - 0.8 * r_mm), p(cy - 0.8 * r_mm), p(cx + 0.8 * r_mm), p(cy + 0.8 * r_mm)],
              fill=(205, 30, 35))
    star = []
    for k in range(10):
        a = -math.pi / 2 + k * math.pi / 5
        rr = 0.55 * r_mm if k % 2 == 0 else 0.22 * r_mm
        star.append(card.pt(cx + rr * math.cos(a), cy - 0.08 * r_mm + rr * math.sin(a)))
    d.polygon(star, fill=(250, 210, 40))
    d.chord([p(cx - 0.5 * r_mm), p(cy + 0.3 * r_mm), p(cx + 0.5 * r_mm), p(cy + 0.95 * r_mm)], 180, 360,
            fill=(215, 170, 40))


def chip(card: Card, x, y, w_mm, h_mm):
    d, p = card.d, card.p
    d.rounded_rectangle([p(x), p(y), p(x + w_mm), p(y + h_mm)], radius=p(1.2), fill=(212, 180, 100),
                        outline=(150, 120, 60), width=max(1, p(0.15)))
    for fx in (0.33, 0.67):
        d.line([p(x + w_mm * fx), p(y), p(x + w_mm * fx), p(y + h_mm)], fill=(150, 120, 60), width=max(1, p(0.15)))
    for fy in (0.33, 0.67):
        d.line([p(x), p(y + h_mm * fy), p(x + w_mm), p(y + h_mm * fy)], fill=(150, 120, 60), width=max(1, p(0.15)))
    d.rounded_rectangle([p(x + w_mm * 0.33), p(y + h_mm * 0.25), p(x + w_mm * 0.67), p(y + h_mm * 0.75)],
                        radius=p(0.6), fill=(225, 195, 115), outline=(150, 120, 60), width=max(1, p(0.15)))


def signature(card: Card, x, y, w_mm, h_mm, rng, color=(20, 30, 90)):
    t = np.linspace(0, 1, 400)
    n = rng.randint(3, 6)
    xs = t.copy()
    ys = np.zeros_like(t)
    for k in range(n):
        ys += rng.uniform(0.1, 0.35) * np.sin(2 * np.pi * (rng.uniform(1, 5)) * t + rng.uniform(0, 6))
        xs += rng.uniform(0.01, 0.05) * np.sin(2 * np.pi * rng.uniform(3, 9) * t + rng.uniform(0, 6))
    ys = ys / (np.abs(ys).max() + 1e-6)
    pts = [card.pt(x + w_mm * xx, y + h_mm * 0.5 + h_mm * 0.45 * yy) for xx, yy in zip(xs, ys)]
    card.d.line(pts, fill=color, width=max(2, card.p(0.25)), joint="curve")
    card.d.line([card.pt(x + w_mm * 0.1, y + h_mm * 0.95), card.pt(x + w_mm * 0.8, y + h_mm * 0.85)],
                fill=color, width=max(2, card.p(0.2)))


# ---------------------------------------------------------------- portrait
SKIN = [(241, 194, 160), (224, 172, 135), (198, 140, 100), (172, 118, 82), (141, 94, 62), (110, 72, 48)]
HAIR = [(20, 16, 14), (40, 28, 20), (70, 50, 35), (110, 110, 110), (30, 30, 35)]
CLOTH = [(40, 60, 120), (200, 200, 205), (150, 30, 40), (30, 90, 60), (60, 60, 60), (230, 230, 230),
         (120, 80, 150), (210, 150, 40)]


def portrait(rng, w=300, h=380, bg=None, female=False, gray=False, bindi=True):
    """Head-and-shoulders drawing: face with eyes, brows, nose, mouth, ears, hair, neck,
    shirt. Drawn at 2x and downsampled for smooth edges."""
    W, H = w * 2, h * 2
    bg = bg or rng.choice([(250, 250, 250), (225, 235, 248), (235, 235, 235), (210, 225, 240)])
    im = Image.new("RGB", (W, H), bg)
    d = ImageDraw.Draw(im)
    skin = rng.choice(SKIN)
    hair = rng.choice(HAIR)
    cloth = rng.choice(CLOTH)
    cx = W * rng.uniform(0.46, 0.54)
    fw, fh = W * rng.uniform(0.44, 0.52), H * rng.uniform(0.46, 0.52)
    fy = H * rng.uniform(0.42, 0.47)
    long_hair = female and rng.random() < 0.8
    if long_hair:  # hair falling behind the head down to the shoulders
        d.rounded_rectangle([cx - fw * 0.62, fy - fh * 0.62, cx + fw * 0.62, fy + fh * 0.85],
                            radius=int(fw * 0.5), fill=hair)
    # shoulders
    d.ellipse([cx - W * 0.66, fy + fh * 0.62, cx + W * 0.66, H * 1.6], fill=cloth)
    if rng.random() < 0.5:  # collar
        d.polygon([(cx - W * 0.12, fy + fh * 0.64), (cx, fy + fh * 0.85), (cx + W * 0.12, fy + fh * 0.64)],
                  fill=tuple(min(255, c + 60) for c in cloth))
    # neck
    d.rectangle([cx - fw * 0.2, fy + fh * 0.3, cx + fw * 0.2, fy + fh * 0.68],
                fill=tuple(int(c * 0.9) for c in skin))
    # ears
    for sx in (-1, 1):
        d.ellipse([cx + sx * fw * 0.5 - fw * 0.07, fy - fh * 0.08, cx + sx * fw * 0.5 + fw * 0.07, fy + fh * 0.12],
                  fill=tuple(int(c * 0.93) for c in skin))
    # face
    d.ellipse([cx - fw / 2, fy - fh / 2, cx + fw / 2, fy + fh / 2], fill=skin)
    # hair top
    d.chord([cx - fw * 0.54, fy - fh * 0.62, cx + fw * 0.54, fy + fh * 0.05], 180, 360, fill=hair)
    if long_hair:
        for sx in (-1, 1):
            d.ellipse([cx + sx * fw * 0.47 - fw * 0.1, fy - fh * 0.4, cx + sx * fw * 0.47 + fw * 0.1, fy + fh * 0.3],
                      fill=hair)
    elif rng.random() < 0.3:
        d.rectangle([cx - fw * 0.5, fy - fh * 0.35, cx + fw * 0.5, fy - fh * 0.26], fill=hair)
    # eyes and brows
    ey = fy - fh * 0.02
    for sx in (-1, 1):
        ex = cx + sx * fw * 0.2
        d.ellipse([ex - fw * 0.08, ey - fh * 0.035, ex + fw * 0.08, ey + fh * 0.035], fill=(250, 250, 250))
        d.ellipse([ex - fw * 0.035, ey - fh * 0.035, ex + fw * 0.035, ey + fh * 0.035], fill=(50, 35, 25))
        d.line([ex - fw * 0.1, ey - fh * 0.1 + sx * 0, ex + fw * 0.1, ey - fh * 0.11], fill=hair, width=int(W * 0.012))
    # nose
    d.line([cx, ey + fh * 0.02, cx - fw * 0.04, fy + fh * 0.17, cx + fw * 0.03, fy + fh * 0.19],
           fill=tuple(int(c * 0.75) for c in skin), width=int(W * 0.008))
    # mouth
    my = fy + fh * 0.3
    d.arc([cx - fw * 0.15, my - fh * 0.07, cx + fw * 0.15, my + fh * 0.05], 20, 160, fill=(150, 60, 60),
          width=int(W * 0.01))
    if not female and rng.random() < 0.35:  # moustache
        d.chord([cx - fw * 0.16, my - fh * 0.12, cx + fw * 0.16, my], 180, 360, fill=hair)
    if female and bindi and rng.random() < 0.5:  # bindi
        d.ellipse([cx - fw * 0.02, ey - fh * 0.16, cx + fw * 0.02, ey - fh * 0.12], fill=(190, 20, 40))
    im = im.filter(ImageFilter.GaussianBlur(1.2)).resize((w, h), Image.LANCZOS)
    if gray:
        im = im.convert("L").convert("RGB")
    return im


def ghost(im, alpha=0.35, tint=(255, 255, 255)):
    """A faded greyscale copy of the portrait, as printed for the 'ghost image'."""
    g = im.convert("L").convert("RGB")
    return Image.blend(g, Image.new("RGB", g.size, tint), 1 - alpha)


# ---------------------------------------------------------------- QR
def qr_image(data, ec="M", border=2, dark=(0, 0, 0), light=(255, 255, 255)):
    import qrcode
    from qrcode.constants import ERROR_CORRECT_H, ERROR_CORRECT_L, ERROR_CORRECT_M, ERROR_CORRECT_Q
    lvl = {"L": ERROR_CORRECT_L, "M": ERROR_CORRECT_M, "Q": ERROR_CORRECT_Q, "H": ERROR_CORRECT_H}[ec]
    q = qrcode.QRCode(error_correction=lvl, box_size=1, border=border)
    q.add_data(data)
    q.make(fit=True)
    m = np.array(q.get_matrix(), dtype=bool)
    out = np.where(m[..., None], np.array(dark, np.uint8), np.array(light, np.uint8))
    return Image.fromarray(out.astype(np.uint8)), q.version


def paste_qr(card: Card, qr_img, x, y, size_mm):
    n = qr_img.size[0]
    px = card.p(size_mm)
    scale = max(1, px // n)
    big = qr_img.resize((n * scale, n * scale), Image.NEAREST)
    big = big.resize((px, px), Image.NEAREST)
    card.img.paste(big, card.pt(x, y))
