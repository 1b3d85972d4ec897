#!/usr/bin/env python3
"""Independent synthetic ID-card photo generator (see README.md).

    python3 gen.py --out DIR [--per-type-capture N] [--seed S] [--types a,b] [--captures x,y]
    python3 gen.py --self-test
"""
import argparse
import datetime as dt
import hashlib
import io
import json
import math
import os
import random
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = os.path.expanduser("~/.cache/idv/tools/indep-venv/bin/python")

try:
    import numpy as np
    import qrcode  # noqa: F401
    from PIL import Image, ImageDraw, ImageFilter
    import cryptography  # noqa: F401
except ImportError:
    # run by a python3 without the packages: hand over to the venv setup.sh makes
    if os.path.exists(VENV_PY) and os.path.realpath(sys.prefix) != os.path.realpath(
            os.path.dirname(os.path.dirname(VENV_PY))):
        os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("missing packages: run benches/indep_cards/setup.sh first")

sys.path.insert(0, HERE)

import cards  # noqa: E402
import codes  # noqa: E402

CAPTURES = ["clean", "tilt", "perspective", "blur", "noise", "dark", "glare", "jpeg35",
            "hole", "cut", "hole_and_cut"]
SANITY = {"clean": "good", "tilt": "good", "perspective": "good", "noise": "good",
          "jpeg35": "good", "blur": "image_too_blur", "dark": "image_too_dark",
          "glare": "image_too_bright", "hole": "image_has_hole", "cut": "image_has_cut",
          "hole_and_cut": "image_has_hole_and_cut"}
TYPES = list(cards.RENDERERS)
KEY_FILE = os.path.join(HERE, "uidai_test_private.pem")


# ------------------------------------------------------------------ keys
def load_keys():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    if not os.path.exists(KEY_FILE):
        # Made once and kept beside this script, so every run signs with the same key.
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        with open(KEY_FILE, "wb") as fh:
            fh.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    with open(KEY_FILE, "rb") as fh:
        key = serialization.load_pem_private_key(fh.read(), password=None)
    return {"uidai": key}


def public_pem(key):
    from cryptography.hazmat.primitives import serialization
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


# ------------------------------------------------------------------ colour helpers
def to_lin(a):
    return np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4)


def to_srgb(a):
    a = np.clip(a, 0, 1)
    return np.where(a <= 0.0031308, a * 12.92, 1.055 * np.power(a, 1 / 2.4) - 0.055)


def smooth_noise(rng, h, w, cell):
    sh, sw = max(2, h // cell), max(2, w // cell)
    small = (rng.random((sh, sw)) * 255).astype(np.uint8)
    return np.asarray(Image.fromarray(small).resize((w, h), Image.BICUBIC), np.float32) / 255.0


# ------------------------------------------------------------------ backgrounds
BACKGROUNDS = ["wood", "dark_desk", "fabric", "grey_table", "white_paper"]


def background(rng, W, H, kind):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([(188, 146, 100), (120, 80, 52), (156, 104, 64), (206, 170, 124)]), np.float32)
        base *= rng.uniform(0.85, 1.1)
        ang = rng.uniform(-0.3, 0.3) + (math.pi / 2 if rng.random() < 0.3 else 0)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = smooth_noise(rng, H, W, 180) * 40 + smooth_noise(rng, H, W, 60) * 8
        rings = np.sin((v + warp) / rng.uniform(9, 22))
        streak = np.asarray(Image.fromarray((rng.random((max(2, H // 3), max(2, W // 60))) * 255).astype(np.uint8))
                            .resize((W, H), Image.BICUBIC), np.float32) / 255.0
        if abs(ang) > 0.8:
            streak = streak.T if streak.shape[::-1] == (H, W) else streak
        lum = 1 + 0.10 * rings + 0.10 * (streak - 0.5) + 0.08 * (smooth_noise(rng, H, W, 300) - 0.5)
        img = base[None, None, :] * lum[..., None]
        if rng.random() < 0.5:  # plank seam
            pos = rng.uniform(0.2, 0.8) * (H if abs(ang) < 0.8 else W)
            seam = np.exp(-((v - pos) ** 2) / 6.0)
            img *= (1 - 0.45 * seam)[..., None]
    elif kind == "dark_desk":
        base = np.array(rng.choice([(28, 28, 30), (40, 34, 30), (22, 26, 34), (48, 48, 50)]), np.float32)
        lum = 1 + 0.25 * (smooth_noise(rng, H, W, 200) - 0.5)
        img = base[None, None, :] * lum[..., None]
        img += (rng.random((H, W, 1)) < 0.002) * rng.uniform(20, 50)
    elif kind == "fabric":
        base = np.array(rng.choice([(60, 80, 130), (140, 40, 50), (110, 110, 115), (50, 100, 80),
                                    (170, 150, 120), (90, 60, 110)]), np.float32)
        p = rng.uniform(3.0, 6.0)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        weave = 0.5 * np.sin(2 * math.pi * u / p) * np.sign(np.sin(2 * math.pi * v / (2 * p))) \
            + 0.5 * np.sin(2 * math.pi * v / p) * np.sign(np.cos(2 * math.pi * u / (2 * p)))
        lum = 1 + 0.10 * weave + 0.18 * (smooth_noise(rng, H, W, 250) - 0.5) + 0.05 * (rng.random((H, W)) - 0.5)
        img = base[None, None, :] * lum[..., None]
    elif kind == "grey_table":
        g = rng.uniform(150, 205)
        tint = np.array([1 + rng.uniform(-0.03, 0.03) for _ in range(3)], np.float32)
        lum = 1 + 0.08 * (smooth_noise(rng, H, W, 300) - 0.5) + 0.03 * (smooth_noise(rng, H, W, 8) - 0.5)
        img = (g * tint)[None, None, :] * lum[..., None]
    else:  # white paper
        g = rng.uniform(222, 246)
        tint = np.array([1.0, 1.0, 1 + rng.uniform(-0.04, 0.02)], np.float32)
        lum = 1 + 0.05 * (smooth_noise(rng, H, W, 200) - 0.5) + 0.02 * (rng.random((H, W)) - 0.5)
        img = (g * tint)[None, None, :] * lum[..., None]
        fib = Image.new("L", (W, H), 0)
        d = ImageDraw.Draw(fib)
        for _ in range(200):
            x, y = rng.uniform(0, W), rng.uniform(0, H)
            a = rng.uniform(0, math.pi)
            L = rng.uniform(5, 30)
            d.line([x, y, x + L * math.cos(a), y + L * math.sin(a)], fill=40)
        img -= (np.asarray(fib, np.float32) / 255.0 * 25)[..., None]
    return np.clip(img, 0, 255) / 255.0


# ------------------------------------------------------------------ geometry
def homography(src, dst):
    """3x3 H with dst ~ H @ src for 4 point pairs."""
    A, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y]); b.append(v)
    h = np.linalg.solve(np.array(A, float), np.array(b, float))
    return np.append(h, 1).reshape(3, 3)


def card_quad(rng, W, H, ar, capture):
    """Corners (TL, TR, BR, BL) of the card in the photo, in pixels."""
    if capture == "tilt":
        rot = math.radians(rng.uniform(8, 20) * rng.choice([-1, 1]))
    else:
        rot = math.radians(rng.uniform(-4, 4))
    if capture == "perspective":
        theta = math.radians(rng.uniform(20, 35))
    else:
        theta = math.radians(rng.uniform(0, 4))  # a hand is never perfectly parallel
    phi = rng.uniform(0, 2 * math.pi)
    fw = rng.uniform(0.45, 0.85)
    ax, ay = theta * math.cos(phi), theta * math.sin(phi)
    # camera distance in card widths for a phone's ~65 degree field of view
    D = 1.0 / (fw * 2 * math.tan(math.radians(32.5)))
    pts = []
    for (x, y) in [(-0.5, -ar / 2), (0.5, -ar / 2), (0.5, ar / 2), (-0.5, ar / 2)]:
        # rotate about y (yaw) then x (pitch)
        X = x * math.cos(ax)
        Z = x * math.sin(ax)
        Y = y * math.cos(ay) - Z * math.sin(ay)
        Z = y * math.sin(ay) + Z * math.cos(ay)
        s = D / (D + Z)
        px, py = X * s, Y * s
        pts.append((px * math.cos(rot) - py * math.sin(rot), px * math.sin(rot) + py * math.cos(rot)))
    pts = np.array(pts)
    bw = pts[:, 0].max() - pts[:, 0].min()
    bh = pts[:, 1].max() - pts[:, 1].min()
    scale = fw * W / bw
    margin = 0.03
    scale = min(scale, (1 - 2 * margin) * W / bw, (1 - 2 * margin) * H / bh)
    pts *= scale
    lo, hi = pts.min(0), pts.max(0)
    cx = rng.uniform(margin * W - lo[0], (1 - margin) * W - hi[0])
    cy = rng.uniform(margin * H - lo[1], (1 - margin) * H - hi[1])
    pts += np.array([cx, cy])
    return pts, {"rotation_deg": round(math.degrees(rot), 2), "tilt_deg": round(math.degrees(theta), 2),
                 "card_width_frac": round(float((pts[:, 0].max() - pts[:, 0].min()) / W), 3)}


# ------------------------------------------------------------------ damage
def damage_plan(rng, capture, size_mm):
    w, h = size_mm
    plan = {}
    if capture in ("hole", "hole_and_cut"):
        dmm = rng.uniform(5.0, 8.0)
        edge = rng.choice(["left", "right", "top", "bottom"])
        gap = rng.uniform(2.0, 6.0) + dmm / 2
        t = rng.uniform(0.18, 0.82)
        if edge == "left":
            c = (gap, t * h)
        elif edge == "right":
            c = (w - gap, t * h)
        elif edge == "top":
            c = (t * w, gap)
        else:
            c = (t * w, h - gap)
        plan["hole"] = {"center_mm": [round(c[0], 2), round(c[1], 2)], "diameter_mm": round(dmm, 2), "edge": edge}
    if capture in ("cut", "hole_and_cut"):
        short = min(w, h)
        corner = rng.choice(["tl", "tr", "bl", "br"])
        if "hole" in plan:  # keep the cut away from the hole's corner region
            hx, hy = plan["hole"]["center_mm"]
            far = ("b" if hy < h / 2 else "t") + ("r" if hx < w / 2 else "l")
            corner = rng.choice([far, corner])
        plan["cut"] = {"corner": corner, "legs_mm": [round(rng.uniform(0.15, 0.28) * short, 2),
                                                      round(rng.uniform(0.15, 0.28) * short, 2)]}
    return plan


def mirror_plan(plan, size_mm):
    """The same hole and cut seen from the other side (card turned over left-right)."""
    w, _ = size_mm
    out = json.loads(json.dumps(plan))
    if "hole" in out:
        out["hole"]["center_mm"][0] = round(w - out["hole"]["center_mm"][0], 2)
        out["hole"]["edge"] = {"left": "right", "right": "left"}.get(out["hole"]["edge"], out["hole"]["edge"])
    if "cut" in out:
        c = out["cut"]["corner"]
        out["cut"]["corner"] = c[0] + {"l": "r", "r": "l"}[c[1]]
    return out


def card_rgba(img, size_mm, plan, corner_mm=3.18):
    W, H = img.size
    s = W / size_mm[0]
    rgb = img.copy()
    d = ImageDraw.Draw(rgb)
    mask = Image.new("L", (W, H), 0)
    md = ImageDraw.Draw(mask)
    md.rounded_rectangle([0, 0, W - 1, H - 1], radius=int(corner_mm * s), fill=255)
    if "hole" in plan:
        cx, cy = plan["hole"]["center_mm"]
        r = plan["hole"]["diameter_mm"] / 2
        rim = 0.35
        d.ellipse([(cx - r - rim) * s, (cy - r - rim) * s, (cx + r + rim) * s, (cy + r + rim) * s],
                  fill=(236, 236, 232))
        md.ellipse([(cx - r) * s, (cy - r) * s, (cx + r) * s, (cy + r) * s], fill=0)
    if "cut" in plan:
        a, b = plan["cut"]["legs_mm"]
        c = plan["cut"]["corner"]
        x0 = 0 if c[1] == "l" else size_mm[0]
        y0 = 0 if c[0] == "t" else size_mm[1]
        sx = 1 if c[1] == "l" else -1
        sy = 1 if c[0] == "t" else -1
        tri = [(x0 - sx * 2, y0 - sy * 2), (x0 + sx * a, y0 - sy * 2), (x0 + sx * a, y0),
               (x0, y0 + sy * b), (x0 - sx * 2, y0 + sy * b)]
        rimw = 0.35
        d.line([((x0 + sx * a) * s, y0 * s), (x0 * s, (y0 + sy * b) * s)], fill=(236, 236, 232),
               width=max(2, int(2 * rimw * s)))
        md.polygon([(x * s, y * s) for x, y in tri], fill=0)
    out = rgb.convert("RGBA")
    out.putalpha(mask)
    return out


# ------------------------------------------------------------------ optics
def gauss_blur(a, sigma):
    """Separable Gaussian blur of a 2-D float array (kernel radius 3 sigma)."""
    r = int(math.ceil(3 * sigma))
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    k /= k.sum()
    for axis in (0, 1):
        p = np.pad(a, [(r, r) if ax == axis else (0, 0) for ax in (0, 1)], mode="reflect")
        n = a.shape[axis]
        a = sum(w * np.take(p, np.arange(i, i + n), axis=axis) for i, w in enumerate(k))
    return a.astype(np.float32)


def disk_blur(arr, radius):
    """Defocus: convolution with a uniform disk (the lens aperture's image), via FFT."""
    H, W, _ = arr.shape
    r = int(math.ceil(radius))
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    k = np.clip(radius + 0.5 - np.sqrt(xx ** 2 + yy ** 2), 0, 1).astype(np.float64)
    k /= k.sum()
    pad = r + 2
    a = np.pad(arr, ((pad, pad), (pad, pad), (0, 0)), mode="reflect")
    Hp, Wp = a.shape[:2]
    K = np.zeros((Hp, Wp))
    K[:k.shape[0], :k.shape[1]] = k
    K = np.roll(K, (-r, -r), axis=(0, 1))
    FK = np.fft.rfft2(K)
    out = np.empty_like(a)
    for ch in range(3):
        out[..., ch] = np.fft.irfft2(np.fft.rfft2(a[..., ch]) * FK, s=(Hp, Wp))
    return out[pad:pad + H, pad:pad + W]


def photograph(rng, nrng, card_img, size_mm, capture, plan, bg_kind, photo_wh, corner_mm):
    W, H = photo_wh
    params = {"photo_size": [W, H], "background": bg_kind}
    ar = size_mm[1] / size_mm[0]
    quad, geo = card_quad(rng, W, H, ar, capture)
    params.update(geo)
    rgba = card_rgba(card_img, size_mm, plan, corner_mm)
    # pre-scale so the perspective warp never minifies by much (avoids aliasing)
    edge = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[3]))
    s = min(1.0, edge * 1.15 / rgba.size[0])
    if s < 1.0:
        rgba = rgba.resize((max(2, int(rgba.size[0] * s)), max(2, int(rgba.size[1] * s))), Image.LANCZOS)
    cw, ch = rgba.size
    Hm = homography(quad, [(0, 0), (cw, 0), (cw, ch), (0, ch)])  # photo -> card
    coeffs = (Hm / Hm[2, 2]).flatten()[:8].tolist()
    layer = rgba.transform((W, H), Image.PERSPECTIVE, coeffs, Image.BICUBIC)
    L = np.asarray(layer, np.float32) / 255.0
    alpha = L[..., 3:4]
    bg = background(nrng, W, H, bg_kind)
    # soft contact shadow of the card on the table
    sh = Image.fromarray((alpha[..., 0] * 255).astype(np.uint8)).filter(
        ImageFilter.GaussianBlur(W * rng.uniform(0.004, 0.01)))
    off = (int(W * rng.uniform(-0.006, 0.006)), int(W * rng.uniform(0.0, 0.008)))
    sh = np.roll(np.asarray(sh, np.float32) / 255.0, off[::-1], axis=(0, 1))[..., None]
    bg = bg * (1 - rng.uniform(0.2, 0.45) * sh)
    img = to_lin(bg) * (1 - alpha) + to_lin(L[..., :3]) * alpha

    # illumination: exposure, a gradient across the scene and a little vignetting
    expo = rng.uniform(0.85, 1.05)
    gdir = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    u = ((xx - W / 2) * math.cos(gdir) + (yy - H / 2) * math.sin(gdir)) / W
    grad = 1 + rng.uniform(0.08, 0.2) * u
    vig = 1 - 0.12 * (((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2) * 2
    light = (expo * grad * vig)[..., None]
    img = img * light
    params["exposure"] = round(expo, 3)

    cardmask = alpha[..., 0] > 0.5
    if capture == "dark":
        lum = img[..., 0] * 0.2126 + img[..., 1] * 0.7152 + img[..., 2] * 0.0722
        p98 = float(np.percentile(lum[cardmask], 98))
        target = rng.uniform(28, 55) / 255.0
        k = float(to_lin(np.array(target))) / max(p98, 1e-4)
        img = img * k
        params["card_white_srgb"] = round(target * 255, 1)
        params["exposure_factor"] = round(k, 4)
    elif capture == "glare":
        img, gp = add_glare(rng, img, alpha[..., 0], quad)
        params.update(gp)
    if capture == "blur":
        cw_px = float(np.linalg.norm(quad[1] - quad[0]))
        rel = rng.uniform(0.0045, 0.008)
        radius = max(3.0, rel * cw_px)
        img = disk_blur(img, radius)
        params["defocus_disk_radius_px"] = round(radius, 2)
        params["defocus_radius_per_1000px_card"] = round(rel * 1000, 2)

    out = to_srgb(img) * 255.0
    # sensor noise: luminance + weaker chroma, slightly signal dependent
    if capture == "noise":
        sl = rng.uniform(18, 28)
    elif capture == "dark":
        sl = rng.uniform(2.5, 4.5)
    else:
        sl = rng.uniform(1.5, 3.5)
    params["noise_sigma"] = round(sl, 2)
    lumn = nrng.standard_normal((H, W, 1)).astype(np.float32) * sl
    chroma = nrng.standard_normal((H, W, 3)).astype(np.float32) * sl * 0.45
    shot = np.sqrt(np.clip(out, 0, 255) / 255.0 + 0.2)
    out = out + (lumn + chroma) * shot
    if capture == "noise":
        # high-ISO phone noise is not white: demosaicing and the camera's own processing
        # give it a grain of 2-3 px and blotchy colour; half the luminance noise is grain
        out = out - (lumn + chroma) * shot * (1 - math.sqrt(0.5))
        g = nrng.standard_normal((H, W)).astype(np.float32)
        g = gauss_blur(g, 1.0)
        g *= sl * math.sqrt(0.5) / max(1e-6, float(g.std()))
        cn = nrng.standard_normal((H // 4 + 1, W // 4 + 1, 3)).astype(np.float32)
        cn = np.stack([np.asarray(Image.fromarray(np.ascontiguousarray(cn[..., k])).resize((W, H), Image.BICUBIC), np.float32)
                       for k in range(3)], axis=2)
        cn *= sl * 0.35 / max(1e-6, float(cn.std()))
        out += g[..., None] * shot + cn
    if capture == "glare":
        sat = (out.min(axis=2) >= 250) & cardmask
        params["card_saturated_frac"] = round(float(sat.sum() / max(1, cardmask.sum())), 3)
    out = np.clip(out, 0, 255).astype(np.uint8)
    q = 35 if capture == "jpeg35" else rng.randint(85, 95)
    params["jpeg_quality"] = q
    return Image.fromarray(out), params


def add_glare(rng, img, alpha, quad):
    """A lamp or flash reflected by the card's laminate: an elliptical saturated core with
    a soft halo and veiling light around it; or an overexposed photo with a hotspot."""
    H, W = alpha.shape
    mode = "reflection" if rng.random() < 0.7 else "overexposure"
    u, v = rng.uniform(0.28, 0.72), rng.uniform(0.3, 0.7)
    top = quad[0] + (quad[1] - quad[0]) * u
    bot = quad[3] + (quad[2] - quad[3]) * u
    c = top + (bot - top) * v
    area = 0.5 * abs(np.dot(quad[:, 0], np.roll(quad[:, 1], 1)) - np.dot(quad[:, 1], np.roll(quad[:, 0], 1)))
    tint = np.array(rng.choice([(1.0, 0.97, 0.9), (0.95, 0.98, 1.0), (1.0, 1.0, 1.0)]), np.float32)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    q = rng.uniform(1.2, 2.2)
    dx, dy = xx - c[0], yy - c[1]
    a1 = dx * math.cos(ang) + dy * math.sin(ang)
    a2 = -dx * math.sin(ang) + dy * math.cos(ang)
    params = {"glare_mode": mode}
    if mode == "reflection":
        frac = rng.uniform(0.20, 0.35)
        A = 3.0
        spill = alpha + (1 - alpha) * 0.15
        sat_lin = float(to_lin(np.array(250.5 / 255.0)))
        inside = alpha > 0.5

        def glare_for(t, sub=1):
            ab = t * area / math.pi
            sa, sb = math.sqrt(ab * q), math.sqrt(ab / q)
            d2 = (a1[::sub, ::sub] / sa) ** 2 + (a2[::sub, ::sub] / sb) ** 2
            return ((A * np.exp(-d2 / 2) + 0.18 * np.exp(-d2 / 18)) * spill[::sub, ::sub])[..., None] * tint

        # size the ellipse so that the saturated part covers `frac` of the card
        lo, hi = 0.002, 1.5
        base = img[::4, ::4]
        ins = inside[::4, ::4]
        for _ in range(14):
            mid = math.sqrt(lo * hi)
            sat = ((base + glare_for(mid, 4)).min(axis=2) >= sat_lin) & ins
            if sat.sum() / max(1, ins.sum()) < frac:
                lo = mid
            else:
                hi = mid
        img = img + glare_for(math.sqrt(lo * hi))
        params["glare_target_saturated_frac"] = round(frac, 3)
    else:
        k = rng.uniform(2.6, 4.0)
        img = img * k
        ab = 0.08 * area / math.pi
        sa, sb = math.sqrt(ab * q), math.sqrt(ab / q)
        d2 = (a1 / sa) ** 2 + (a2 / sb) ** 2
        img = img + (1.5 * np.exp(-d2 / 2) * (alpha + (1 - alpha) * 0.2))[..., None] * tint
        params["overexposure_factor"] = round(k, 2)
    return img, params


# ------------------------------------------------------------------ main loop
def seeded(seed, *parts):
    h = hashlib.sha256(("|".join([str(seed)] + [str(p) for p in parts])).encode()).digest()
    return int.from_bytes(h[:8], "big")


def generate(out, n, seed, types, captures, log=print):
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    keys = load_keys()
    with open(os.path.join(out, "uidai_test_public.pem"), "wb") as fh:
        fh.write(public_pem(keys["uidai"]))
    t0 = time.time()
    records = []
    for ctype in types:
        for capture in captures:
            for i in range(n):
                s = seeded(seed, ctype, capture, i)
                rng = random.Random(s)
                nrng = np.random.default_rng(s)
                card = cards.RENDERERS[ctype](rng, keys)
                cid = f"{ctype}-{capture}-{i + 1:03d}"
                plan = damage_plan(rng, capture, card["size_mm"])
                corner = 3.18 if card["size_mm"] == cards.ID1 else 4.0
                bg_kind = rng.choice(BACKGROUNDS)
                pw = rng.choice([1280, 1440, 1600, 1800, 2000])
                photo_wh = (pw, pw * 3 // 4)
                rec = {"id": cid, "card_type": ctype, "capture": capture}
                cp = {}
                for side in ("front", "back"):
                    if card[side] is None:
                        rec[side] = None
                        continue
                    sp = plan if side == "front" else mirror_plan(plan, card["size_mm"])
                    photo, params = photograph(rng, nrng, card[side], card["size_mm"], capture, sp,
                                               bg_kind, photo_wh, corner)
                    if sp:
                        params["damage"] = sp
                    rel = f"images/{cid}_{side}.jpg"
                    photo.save(os.path.join(out, rel), "JPEG", quality=params["jpeg_quality"],
                               subsampling=2 if params["jpeg_quality"] < 90 else 0)
                    rec[side] = rel
                    cp[side] = params
                rec["expected"] = card["expected"]
                rec["expected_sanity"] = SANITY[capture]
                rec["capture_params"] = cp
                meta = {k: v for k, v in card["meta"].items() if k != "qr"}
                rec["card_meta"] = meta
                records.append(rec)
        log(f"{ctype}: done ({time.time() - t0:.0f}s)")
    with open(os.path.join(out, "manifest.jsonl"), "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    log(f"{len(records)} cards, manifest at {os.path.join(out, 'manifest.jsonl')}")
    return records


# ------------------------------------------------------------------ self-test
def self_test():
    fails = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    # Verhoeff known answers (Verhoeff 1969; the worked example "236" -> 3)
    check(codes.verhoeff_check_digit("236") == "3", "verhoeff 236 -> 3")
    check(codes.verhoeff_check_digit("12345") == "1", "verhoeff 12345 -> 1")
    check(codes.verhoeff_check_digit("142857") == "0", "verhoeff 142857 -> 0")
    check(codes.verhoeff_valid("2363") and not codes.verhoeff_valid("2364"), "verhoeff validate 2363/2364")
    r = random.Random(7)
    nums = [codes.make_12digit_verhoeff(r) for _ in range(500)]
    check(all(len(x) == 12 and x[0] in "23456789" and codes.verhoeff_valid(x) for x in nums),
          "500 generated 12-digit numbers are Verhoeff-valid, first digit 2-9")
    # a single-digit error and an adjacent transposition are always caught
    x = nums[0]
    check(all(not codes.verhoeff_valid(x[:i] + str((int(x[i]) + 1) % 10) + x[i + 1:]) for i in range(12)),
          "verhoeff catches every single-digit change")
    check(all(x[i] == x[i + 1] or not codes.verhoeff_valid(x[:i] + x[i + 1] + x[i] + x[i + 2:])
              for i in range(11)), "verhoeff catches every adjacent transposition")
    # ICAO 9303 specimens
    l = codes.td3_lines("P", "UTO", "ERIKSSON", "ANNA MARIA", "L898902C3", "UTO", dt.date(1974, 8, 12), "F",
                        dt.date(2012, 4, 15), personal="ZE184226B")
    check(l == ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"],
          "TD3 ICAO specimen reproduced: " + " / ".join(l))
    l = codes.td1_lines("I", "UTO", "D23145890", "", dt.date(1974, 8, 12), "F", dt.date(2012, 4, 15), "UTO",
                        "", "ERIKSSON", "ANNA MARIA")
    check(l == ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
                "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"], "TD1 ICAO specimen reproduced: " + " / ".join(l))
    check(codes.mrz_check("520727") == "3", "MRZ check 520727 -> 3")
    # Secure QR round trip with signature verification
    keys = load_keys()
    addr = {"co": "S/O Test Person", "house": "12", "street": "MG Road", "lm": "", "loc": "Indiranagar",
            "vtc": "Bengaluru", "po": "", "dist": "Bengaluru Urban", "subdist": "", "state": "Karnataka",
            "pc": "560038"}
    qr = codes.aadhaar_secure_qr_v2(keys["uidai"], "234567890124", "Test Person", "M", dt.date(1990, 5, 17),
                                    addr, "9876543210", dt.datetime(2020, 1, 2, 3, 4, 5, 678000), b"\xff\x4f\xff\x51fake")
    dec = codes.decode_secure_qr(qr, keys["uidai"].public_key())
    check(qr.isdigit() and dec["version"] == "V2" and dec["ref"] == "012420200102030405678"
          and dec["name"] == "Test Person" and dec["dob"] == "17-05-1990" and dec["pc"] == "560038"
          and dec["mobile4"] == "3210" and dec["indicator"] == "2" and dec.get("signature") == "verified",
          "Secure QR V2 round trip, RSA-SHA256 signature verifies")
    # one card of each type: machine-checked values
    for ctype in TYPES:
        rr = random.Random(seeded(1, "selftest", ctype))
        c = cards.RENDERERS[ctype](rr, keys)
        e = c["expected"]
        if ctype in ("in.aadhaar", "in.national_id"):
            check(codes.verhoeff_valid(e["id"]) and e["id"][0] in "23456789", f"{ctype} id {e['id']} Verhoeff")
        if ctype == "in.pan":
            check(re.fullmatch(r"[A-Z]{3}P[A-Z]\d{4}[A-Z]", e["id"]) is not None
                  and e["id"][4] == e["name"].split()[-1][0], f"in.pan {e['id']} for {e['name']}")
        if ctype == "in.voter":
            check(re.fullmatch(r"[A-Z]{3}\d{7}", e["id"]) is not None, f"in.voter EPIC {e['id']}")
        if ctype == "in.passport":
            l1, l2 = c["meta"]["mrz"]
            check(codes.td3_valid(l1, l2) and l2[:8] == e["id"], f"in.passport TD3 valid: {l1} / {l2}")
        if ctype in ("in.national_id", "vn.national_id"):
            l1, l2, l3 = c["meta"]["mrz"]
            check(codes.td1_valid(l1, l2, l3) and l1[5:14] == e["document_number"],
                  f"{ctype} TD1 valid: {l1} / {l2} / {l3}")
        if ctype == "vn.national_id":
            i = e["id"]
            d, m, y = map(int, e["dob"].split("/"))
            sexd = ((y // 100) - 19) * 2 + (1 if e["gender"] == "F" else 0)
            check(len(i) == 12 and int(i[3]) == sexd and i[4:6] == "%02d" % (y % 100)
                  and i[:3] in {p[0] for p in cards.data.VN_PLACES}, f"vn.national_id {i} structure")
            q = c["meta"]["qr"].split("|")
            check(len(q) == 7 and q[0] == i and len(q[1]) == 9 and q[2] == e["name"] and q[4] in ("Nam", "Nữ"),
                  "CCCD QR text: " + c["meta"]["qr"])
    print(f"{len(fails)} failed")
    return 0 if not fails else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--per-type-capture", type=int, default=2, help="cards per (type, capture) pair")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--types", default=",".join(TYPES))
    ap.add_argument("--captures", default=",".join(CAPTURES))
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        sys.exit(self_test())
    if not a.out:
        ap.error("--out is required")
    types = [t for t in a.types.split(",") if t]
    caps = [c for c in a.captures.split(",") if c]
    for t in types:
        if t not in TYPES:
            ap.error(f"unknown type {t}")
    for c in caps:
        if c not in CAPTURES:
            ap.error(f"unknown capture {c}")
    generate(a.out, a.per_type_capture, a.seed, types, caps)


if __name__ == "__main__":
    main()
