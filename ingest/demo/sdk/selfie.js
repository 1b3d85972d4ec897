/**
 * Selfie, gesture and flash capture helpers for the face operations `face_auth_register`
 * and `face_auth` (docs/API.md "ImageData", "Video and FrameData", "Gestures",
 * "Videos, gestures and flash"; docs/VISION.md "Flash liveness").
 *
 * These helpers never touch the network: they return the request fields (`faces`,
 * `videos`, `gesture_videos`, `selfie_type`, ...) for the caller to hand to its backend,
 * which adds `cus_user_id` and sends them with its Access Key. The pure part (field
 * building, limits, flash colour sequences, a DOM-free PNG encoder) runs anywhere; the
 * browser glue (`captureSelfie`, `runFlashSequence`, `captureGesture`) needs a DOM.
 *
 * A flash capture, as the server expects it:
 *
 * ```json
 * {"faces": [{"base64": "<selfie JPEG>"}], "selfie_type": "flash_8",
 *  "videos": [{"frames": [{"base64": "<JPEG>", "index": 0, "metadata": {"flash_color": "#FF0000"}},
 *                         {"base64": "<JPEG>", "index": 1, "metadata": {"flash_color": "#00FFFF"}}, ...]}]}
 * ```
 */
import { base64Encode, utf8Encode } from "./encoding.js";
import { IdvError } from "./protocol.js";
/** Server limits on face media (docs/API.md "ImageData", "Video and FrameData", "Limits"). */
export const SELFIE_LIMITS = {
    /** One decoded image or frame, bytes. */
    imageBytes: 10 * 1024 * 1024,
    /** Entries of `faces`, `videos`, `gesture_faces`, `gesture_videos`, and of a gesture's `images` / `videos`. */
    mediaEntries: 50,
    /** Frames of one inline Video. */
    framesPerVideo: 300,
    /** `label` characters. */
    label: 128,
    /** `metadata` (string_json): keys, key length, string value length. */
    metadataKeys: 64,
    metadataKeyLen: 128,
    metadataValueLen: 4096,
    /** `selfie_type` on registration (any string up to this). */
    selfieTypeLen: 64,
    /** Request body of a face operation, bytes (the media fields are checked against it). */
    bodyBytes: 64 * 1024 * 1024,
    /** Least wait after a flash colour is shown before its frame is grabbed, ms. */
    flashSettleMs: 150,
    /** Flash frames the server analyses at most (flash_32 plus slack; more are sampled). */
    flashFrames: 40,
};
/** Head movements of the active liveness gestures (the person's own left / right). */
export const GESTURES = ["left", "right", "up", "down"];
/** `selfie_type` values face_auth accepts (anything else: 400). */
export const AUTH_SELFIE_TYPES = ["light", "passive", "active", "flash", "flash_8", "flash_16", "flash_32", "flash_edge", "flash_advanced"];
/** Colour frames each flash `selfie_type` requires (docs/VISION.md "Flash liveness" 1). */
export const FLASH_TYPES = Object.freeze({
    flash: 8,
    flash_8: 8,
    flash_edge: 8,
    flash_16: 16,
    flash_advanced: 16,
    flash_32: 32,
});
/** The screen colours a flash sequence is drawn from: the 8 corners of the RGB cube. */
export const FLASH_PALETTE = ["#000000", "#FF0000", "#00FF00", "#0000FF", "#00FFFF", "#FF00FF", "#FFFF00", "#FFFFFF"];
function invalid(message) {
    return new IdvError("invalid", message);
}
// ---------------------------------------------------------------------------------------
// Pure: images, frames, videos
/** The image format of `bytes` by its signature: the server decodes JPEG, PNG and WebP only. */
export function imageFormat(bytes) {
    const b = (i) => bytes[i] ?? -1;
    if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff)
        return "jpeg";
    if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47 && b(4) === 0x0d && b(5) === 0x0a && b(6) === 0x1a && b(7) === 0x0a)
        return "png";
    const ascii = (i, s) => [...s].every((c, k) => b(i + k) === c.charCodeAt(0));
    if (ascii(0, "RIFF") && ascii(8, "WEBP"))
        return "webp";
    return undefined;
}
/** Decoded size of a base64 field as the server counts it (a `data:` prefix and padding ignored). */
export function base64DecodedLength(text) {
    const comma = text.startsWith("data:") ? text.indexOf(",") : -1;
    let body = comma >= 0 ? text.slice(comma + 1) : text;
    body = body.replace(/=+$/, "");
    return Math.floor((body.length * 3) / 4);
}
/** Throws unless `metadata` is string_json within the server's limits. */
export function checkStringJson(field, metadata) {
    if (metadata === undefined)
        return;
    if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))
        throw invalid(`${field}: metadata must be an object`);
    const entries = Object.entries(metadata);
    if (entries.length > SELFIE_LIMITS.metadataKeys)
        throw invalid(`${field}: ${entries.length} metadata keys, at most ${SELFIE_LIMITS.metadataKeys}`);
    for (const [k, v] of entries) {
        if (k.length > SELFIE_LIMITS.metadataKeyLen)
            throw invalid(`${field}.${k.slice(0, 16)}…: metadata key over ${SELFIE_LIMITS.metadataKeyLen} characters`);
        if (typeof v === "string") {
            if (v.length > SELFIE_LIMITS.metadataValueLen)
                throw invalid(`${field}.${k}: string over ${SELFIE_LIMITS.metadataValueLen} characters`);
        }
        else if (typeof v === "number") {
            if (!Number.isFinite(v))
                throw invalid(`${field}.${k}: not a finite number`);
        }
        else if (typeof v !== "boolean") {
            throw invalid(`${field}.${k}: string_json values are strings, numbers or booleans`);
        }
    }
}
function checkLabel(field, label) {
    if (label !== undefined && label.length > SELFIE_LIMITS.label)
        throw invalid(`${field}.label: over ${SELFIE_LIMITS.label} characters`);
}
function checkId(field, id) {
    if (!/\S/.test(id) || id.length > 128)
        throw invalid(`${field}.id: an id is 1 to 128 characters`);
}
function encodeImage(field, bytes) {
    if (bytes.length > SELFIE_LIMITS.imageBytes)
        throw invalid(`${field}: ${bytes.length} bytes, at most ${SELFIE_LIMITS.imageBytes} (10 MiB) per image`);
    if (!imageFormat(bytes))
        throw invalid(`${field}: not a JPEG, PNG or WebP image (the only formats the server decodes)`);
    return base64Encode(bytes);
}
/** Throws unless `img` is an ImageData the server accepts (checked before sending). */
export function checkImageData(field, img) {
    if ((img.id === undefined) === (img.base64 === undefined))
        throw invalid(`${field}: exactly one of id and base64`);
    if (img.id !== undefined) {
        checkId(field, img.id);
        if (img.label !== undefined || img.metadata !== undefined)
            throw invalid(`${field}: label and metadata go with base64 only`);
        return;
    }
    const size = base64DecodedLength(img.base64);
    if (size === 0)
        throw invalid(`${field}.base64: empty`);
    if (size > SELFIE_LIMITS.imageBytes)
        throw invalid(`${field}: ${size} bytes, at most ${SELFIE_LIMITS.imageBytes} (10 MiB) per image`);
    checkLabel(field, img.label);
    checkStringJson(`${field}.metadata`, img.metadata);
}
/** An ImageData from encoded bytes (base64) or an upload_image id. */
export function imageData(input, opts = {}, field = "image") {
    let out;
    if (input instanceof Uint8Array) {
        out = { base64: encodeImage(field, input) };
        if (opts.label !== undefined)
            out.label = opts.label;
        if (opts.metadata !== undefined)
            out.metadata = { ...opts.metadata };
    }
    else {
        if (opts.label !== undefined || opts.metadata !== undefined)
            throw invalid(`${field}: label and metadata go with base64 only`);
        out = { id: input.id };
    }
    checkImageData(field, out);
    return out;
}
/** Throws unless `video` is a Video the server accepts. */
export function checkVideo(field, video) {
    if ((video.id === undefined) === (video.frames === undefined))
        throw invalid(`${field}: give either id or frames`);
    if (video.id !== undefined) {
        checkId(field, video.id);
        if (video.metadata !== undefined)
            throw invalid(`${field}: metadata goes with frames, not with id`);
        return;
    }
    const frames = video.frames;
    if (frames.length === 0)
        throw invalid(`${field}.frames: must not be empty`);
    if (frames.length > SELFIE_LIMITS.framesPerVideo)
        throw invalid(`${field}.frames: ${frames.length} frames, at most ${SELFIE_LIMITS.framesPerVideo}`);
    checkStringJson(`${field}.metadata`, video.metadata);
    frames.forEach((f, i) => {
        const at = `${field}.frames[${i}]`;
        if ((f.id === undefined) === (f.base64 === undefined))
            throw invalid(`${at}: exactly one of base64 and id`);
        if (f.id !== undefined)
            checkId(at, f.id);
        else {
            const size = base64DecodedLength(f.base64);
            if (size === 0)
                throw invalid(`${at}.base64: empty`);
            if (size > SELFIE_LIMITS.imageBytes)
                throw invalid(`${at}: ${size} bytes, at most ${SELFIE_LIMITS.imageBytes} (10 MiB) per frame`);
        }
        if (f.index !== undefined && !Number.isSafeInteger(f.index))
            throw invalid(`${at}.index: an integer`);
        checkLabel(at, f.label);
        checkStringJson(`${at}.metadata`, f.metadata);
    });
}
/**
 * An inline Video from frames in capture order: each frame gets `index` 0, 1, ...
 * (`metadata` per frame optional). Used for selfie videos and gesture videos.
 */
export function frameVideo(frames, opts = {}, field = "video") {
    const out = {
        frames: frames.map((f, i) => {
            const frame = f instanceof Uint8Array ? { base64: encodeImage(`${field}.frames[${i}]`, f) } : { id: f.id };
            frame.index = i;
            const m = opts.frameMetadata?.[i];
            if (m !== undefined)
                frame.metadata = { ...m };
            return frame;
        }),
    };
    if (opts.metadata !== undefined)
        out.metadata = { ...opts.metadata };
    checkVideo(field, out);
    return out;
}
// ---------------------------------------------------------------------------------------
// Pure: flash
/** Colour frames a flash `selfie_type` requires; `undefined` when it is not a flash type. */
export function flashColourCount(selfieType) {
    return Object.hasOwn(FLASH_TYPES, selfieType) ? FLASH_TYPES[selfieType] : undefined;
}
const COLOUR = /^#[0-9A-Fa-f]{6}$/;
function rgb(colour) {
    return [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
}
/**
 * Throws unless `colours` is a flash sequence for `selfieType` as docs/VISION.md "Flash
 * liveness" has the SDK pick it: at least the required count (at most 40, what the server
 * analyses), each `#RRGGBB`, and every RGB channel on (≥ 128) in some colours and off in others.
 */
export function checkFlashSequence(colours, selfieType) {
    const required = flashColourCount(selfieType);
    if (required === undefined)
        throw invalid(`selfie_type ${JSON.stringify(selfieType)} is not a flash type (${Object.keys(FLASH_TYPES).join(", ")})`);
    if (colours.length < required)
        throw invalid(`${selfieType} needs ${required} flash colours, got ${colours.length}`);
    if (colours.length > SELFIE_LIMITS.flashFrames)
        throw invalid(`${colours.length} flash colours, the server analyses at most ${SELFIE_LIMITS.flashFrames}`);
    colours.forEach((c, i) => {
        if (typeof c !== "string" || !COLOUR.test(c))
            throw invalid(`flash colour ${i} ${JSON.stringify(c)} is not #RRGGBB`);
    });
    for (let ch = 0; ch < 3; ch++) {
        const on = colours.filter((c) => rgb(c)[ch] >= 128).length;
        if (on === 0 || on === colours.length)
            throw invalid(`flash colours: the ${"RGB"[ch]} channel must be on in some colours and off in others`);
    }
}
/** Sequences handed out by {@link chooseFlashSequence} in this page's lifetime (never reused). */
const issuedSequences = new Set();
/**
 * A fresh random flash sequence for `selfieType`, drawn from {@link FLASH_PALETTE} with
 * every channel varying, never one this page handed out before. `randomBytes` defaults to
 * `crypto.getRandomValues` (a test may pass its own).
 */
export function chooseFlashSequence(selfieType, randomBytes = (n) => globalThis.crypto.getRandomValues(new Uint8Array(n))) {
    const required = flashColourCount(selfieType);
    if (required === undefined)
        throw invalid(`selfie_type ${JSON.stringify(selfieType)} is not a flash type (${Object.keys(FLASH_TYPES).join(", ")})`);
    for (let attempt = 0; attempt < 100; attempt++) {
        const bytes = randomBytes(required);
        if (bytes.length < required)
            throw invalid("randomBytes returned too few bytes");
        // 256 is a multiple of 8: `& 7` is unbiased.
        const colours = Array.from(bytes.subarray(0, required), (b) => FLASH_PALETTE[b & 7]);
        try {
            checkFlashSequence(colours, selfieType);
        }
        catch {
            continue;
        }
        const key = colours.join(",");
        if (issuedSequences.has(key))
            continue;
        issuedSequences.add(key);
        return colours;
    }
    throw invalid("could not draw a flash sequence whose channels all vary (is randomBytes random?)");
}
/**
 * The flash Video (it goes in `videos[0]`): frames in capture order with `index` and
 * metadata `{"flash_color": "#RRGGBB"}` (colours sent uppercase).
 */
export function flashVideo(frames, selfieType, opts = {}) {
    checkFlashSequence(frames.map((f) => f.colour), selfieType);
    return frameVideo(frames.map((f) => f.image), { ...opts, frameMetadata: frames.map((f) => ({ flash_color: f.colour.toUpperCase() })) }, "videos[0]");
}
// ---------------------------------------------------------------------------------------
// Pure: gestures and the request fields
function checkGesture(field, gesture) {
    if (!GESTURES.includes(gesture))
        throw invalid(`${field}.gesture: one of ${GESTURES.join(", ")}, got ${JSON.stringify(gesture)}`);
}
/** A gesture_image: still images taken after asking for `gesture` (1 to 50). */
export function gestureImage(gesture, images) {
    checkGesture("gesture_faces[]", gesture);
    if (images.length === 0 || images.length > SELFIE_LIMITS.mediaEntries)
        throw invalid(`gesture_faces[].images: 1 to ${SELFIE_LIMITS.mediaEntries} images, got ${images.length}`);
    return { gesture, images: images.map((img, i) => imageData(img, {}, `gesture_faces[].images[${i}]`)) };
}
/** A gesture_video: one inline video of the movement, frames in capture order. */
export function gestureVideo(gesture, frames) {
    checkGesture("gesture_videos[]", gesture);
    return { gesture, videos: [frameVideo(frames, {}, "gesture_videos[].videos[0]")] };
}
/** Checks gesture entries (`gesture_faces` or `gesture_videos`): their count, each gesture, and 1 to 50 media each. */
function checkGestureEntries(field, media, entries, check) {
    if (entries.length > SELFIE_LIMITS.mediaEntries)
        throw invalid(`${field}: ${entries.length}, at most ${SELFIE_LIMITS.mediaEntries}`);
    entries.forEach(([gesture, items], i) => {
        checkGesture(`${field}[${i}]`, gesture);
        if (items.length === 0 || items.length > SELFIE_LIMITS.mediaEntries)
            throw invalid(`${field}[${i}].${media}: 1 to ${SELFIE_LIMITS.mediaEntries}`);
        items.forEach((m, j) => check(`${field}[${i}].${media}[${j}]`, m));
    });
}
/**
 * The media fields of `face_auth` or `face_auth_register`, checked against the server's
 * limits (docs/API.md operations 1 and 2). A flash video needs a flash `selfie_type` (else
 * the server would judge it as a selfie video), and a flash `selfie_type` needs the flash
 * video (else the server reports flash `not_performed`).
 */
export function faceRequestFields(operation, evidence) {
    const toImage = (x, field) => {
        if (x instanceof Uint8Array)
            return imageData(x, {}, field);
        const img = { ...x };
        checkImageData(field, img);
        return img;
    };
    const faces = [evidence.selfie, ...(evidence.moreFaces ?? [])].map((f, i) => toImage(f, `faces[${i}]`));
    if (faces.length > SELFIE_LIMITS.mediaEntries)
        throw invalid(`faces: ${faces.length}, at most ${SELFIE_LIMITS.mediaEntries}`);
    const out = { faces };
    const st = evidence.selfieType;
    if (st !== undefined) {
        if (operation === "face_auth" && !AUTH_SELFIE_TYPES.includes(st))
            throw invalid(`selfie_type on face_auth: one of ${AUTH_SELFIE_TYPES.join(", ")}, got ${JSON.stringify(st)}`);
        if (st.length > SELFIE_LIMITS.selfieTypeLen)
            throw invalid(`selfie_type: over ${SELFIE_LIMITS.selfieTypeLen} characters`);
        out.selfie_type = st;
    }
    const isFlash = st !== undefined && flashColourCount(st) !== undefined;
    if (evidence.flash && !isFlash)
        throw invalid(`a flash video needs a flash selfie_type (${Object.keys(FLASH_TYPES).join(", ")}), got ${JSON.stringify(st)}`);
    if (isFlash && !evidence.flash)
        throw invalid(`selfie_type ${st} needs the flash frames (flash: flashVideo(...) or runFlashSequence(...))`);
    if (evidence.flash) {
        const colours = (evidence.flash.frames ?? []).map((f) => f.metadata?.flash_color);
        if (colours.some((c) => typeof c !== "string"))
            throw invalid("videos[0]: every flash frame needs metadata flash_color");
        checkFlashSequence(colours, st);
    }
    const videos = [...(evidence.flash ? [evidence.flash] : []), ...(evidence.videos ?? [])];
    if (videos.length > SELFIE_LIMITS.mediaEntries)
        throw invalid(`videos: ${videos.length}, at most ${SELFIE_LIMITS.mediaEntries}`);
    videos.forEach((v, i) => checkVideo(`videos[${i}]`, v));
    if (videos.length)
        out.videos = videos;
    const gf = evidence.gestureFaces ?? [];
    checkGestureEntries("gesture_faces", "images", gf.map((g) => [g.gesture, g.images]), checkImageData);
    if (gf.length)
        out.gesture_faces = gf;
    const gv = evidence.gestureVideos ?? [];
    checkGestureEntries("gesture_videos", "videos", gv.map((g) => [g.gesture, g.videos]), checkVideo);
    if (gv.length)
        out.gesture_videos = gv;
    const bytes = utf8Encode(JSON.stringify(out)).length;
    if (bytes > SELFIE_LIMITS.bodyBytes)
        throw invalid(`the media fields are ${bytes} bytes of JSON, over the ${SELFIE_LIMITS.bodyBytes} (64 MiB) request body cap: send fewer or smaller frames, or upload them`);
    return out;
}
// ---------------------------------------------------------------------------------------
// Pure: a DOM-free PNG encoder (the server decodes PNG; browsers can use captureSelfie's JPEG)
const CRC_TABLE = (() => {
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
        let c = n;
        for (let k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
        t[n] = c >>> 0;
    }
    return t;
})();
/** CRC-32 (PNG, zlib polynomial). */
export function crc32(bytes) {
    let c = 0xffffffff;
    for (let i = 0; i < bytes.length; i++)
        c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
}
function adler32(bytes) {
    let a = 1;
    let b = 0;
    for (let i = 0; i < bytes.length; i += 5552) {
        const end = Math.min(i + 5552, bytes.length);
        for (let j = i; j < end; j++) {
            a += bytes[j];
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    return ((b << 16) | a) >>> 0;
}
/** zlib stream of stored (uncompressed) deflate blocks. */
function zlibStored(data) {
    const blocks = Math.max(1, Math.ceil(data.length / 65535));
    const out = new Uint8Array(2 + data.length + blocks * 5 + 4);
    out[0] = 0x78;
    out[1] = 0x01;
    let o = 2;
    for (let i = 0; i < blocks; i++) {
        const chunk = data.subarray(i * 65535, Math.min((i + 1) * 65535, data.length));
        out[o++] = i === blocks - 1 ? 1 : 0;
        out[o++] = chunk.length & 0xff;
        out[o++] = chunk.length >>> 8;
        out[o++] = ~chunk.length & 0xff;
        out[o++] = (~chunk.length >>> 8) & 0xff;
        out.set(chunk, o);
        o += chunk.length;
    }
    new DataView(out.buffer).setUint32(o, adler32(data));
    return out;
}
async function zlibCompress(data) {
    const CS = globalThis.CompressionStream;
    if (!CS)
        return zlibStored(data);
    const stream = new Blob([data]).stream().pipeThrough(new CS("deflate"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
}
/**
 * Encodes an RGBA frame as an RGB PNG (alpha dropped) without a DOM: deflate by
 * `CompressionStream` where there is one (browsers, Node 18+), else stored blocks.
 */
export async function encodePng(frame, opts = {}) {
    const { width, height, data } = frame;
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > 4096 || height > 4096)
        throw invalid(`frame size ${width}×${height}: 1 to 4096 pixels a side`);
    if (data.length !== width * height * 4)
        throw invalid(`frame data is ${data.length} bytes, ${width}×${height} RGBA needs ${width * height * 4}`);
    const raw = new Uint8Array(height * (1 + width * 3));
    for (let y = 0, o = 0; y < height; y++) {
        raw[o++] = 0; // filter: none
        for (let x = 0, i = y * width * 4; x < width; x++, i += 4) {
            raw[o++] = data[i];
            raw[o++] = data[i + 1];
            raw[o++] = data[i + 2];
        }
    }
    const idat = opts.compress === false ? zlibStored(raw) : await zlibCompress(raw);
    const ihdr = new Uint8Array(13);
    const hv = new DataView(ihdr.buffer);
    hv.setUint32(0, width);
    hv.setUint32(4, height);
    ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, RGB, deflate, adaptive filtering, no interlace
    const chunks = [
        ["IHDR", ihdr],
        ["IDAT", idat],
        ["IEND", new Uint8Array(0)],
    ];
    const size = 8 + chunks.reduce((n, [, d]) => n + 12 + d.length, 0);
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    let o = 8;
    for (const [type, d] of chunks) {
        view.setUint32(o, d.length);
        const typed = new Uint8Array(4 + d.length);
        for (let k = 0; k < 4; k++)
            typed[k] = type.charCodeAt(k);
        typed.set(d, 4);
        out.set(typed, o + 4);
        view.setUint32(o + 4 + typed.length, crc32(typed));
        o += 8 + typed.length;
    }
    return out;
}
// ---------------------------------------------------------------------------------------
// Browser glue (needs a DOM; not unit-tested in Node)
function requireDom(what) {
    if (typeof document === "undefined")
        throw new IdvError("unsupported", `${what} needs a browser DOM (document is undefined)`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** One JPEG of the video's current frame, as the camera sees it (never mirrored). */
async function grabJpeg(video, opts) {
    requireDom("capturing a frame");
    const w = video.videoWidth;
    const h = video.videoHeight;
    if (!w || !h || video.readyState < 2)
        throw new IdvError("capture", "the video has no frame yet (is the camera stream playing?)");
    const scale = Math.min(1, (opts.maxSide ?? 1280) / Math.max(w, h));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(w * scale);
    canvas.height = Math.round(h * scale);
    const ctx = canvas.getContext("2d");
    if (!ctx)
        throw new IdvError("capture", "no 2D canvas context");
    ctx.drawImage(video, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", opts.quality ?? 0.92));
    if (!blob)
        throw new IdvError("capture", "the canvas could not be encoded as JPEG");
    const bytes = new Uint8Array(await blob.arrayBuffer());
    if (imageFormat(bytes) !== "jpeg")
        throw new IdvError("capture", "the canvas did not produce a JPEG");
    return bytes;
}
/** A selfie from a playing camera `<video>`: the JPEG and its ImageData for `faces[0]`. */
export async function captureSelfie(video, opts = {}) {
    const jpeg = await grabJpeg(video, opts);
    return { jpeg, image: imageData(jpeg, {}, "faces[0]") };
}
/**
 * Shows each colour of the sequence on `screen` (made full-screen while it runs) and
 * grabs one frame per colour after it settled; returns the colours and the flash Video
 * for `videos[0]` (pass it as `flash` to {@link faceRequestFields}). The user should
 * face the screen at full brightness; browsers cannot set the brightness.
 */
export async function runFlashSequence(video, screen, opts) {
    requireDom("runFlashSequence");
    const colours = opts.colours ?? chooseFlashSequence(opts.selfieType);
    checkFlashSequence(colours, opts.selfieType);
    const settle = Math.max(SELFIE_LIMITS.flashSettleMs, opts.settleMs ?? SELFIE_LIMITS.flashSettleMs);
    const saved = screen.getAttribute("style");
    Object.assign(screen.style, { position: "fixed", inset: "0", zIndex: "2147483647", display: "block" });
    const frames = [];
    try {
        for (const colour of colours) {
            screen.style.background = colour;
            // Painted: two animation frames, then the exposure settles.
            await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
            await sleep(settle);
            frames.push({ image: await grabJpeg(video, opts), colour });
        }
    }
    finally {
        if (saved === null)
            screen.removeAttribute("style");
        else
            screen.setAttribute("style", saved);
    }
    return { colours, video: flashVideo(frames, opts.selfieType) };
}
/**
 * Prompts for a head movement (`left`/`right` are the person's own, as the server judges
 * it on unmirrored frames) and records it as a gesture_video of inline frames. The
 * selfie is the server's frontal reference: take it first, facing the camera.
 */
export async function captureGesture(video, gesture, opts = {}) {
    requireDom("captureGesture");
    checkGesture("gesture", gesture);
    const n = opts.frames ?? 6;
    if (!Number.isInteger(n) || n < 1 || n > SELFIE_LIMITS.framesPerVideo)
        throw invalid(`frames: 1 to ${SELFIE_LIMITS.framesPerVideo}`);
    await opts.prompt?.(gesture);
    const jpegs = [];
    for (let i = 0; i < n; i++) {
        if (i > 0)
            await sleep(opts.intervalMs ?? 250);
        jpegs.push(await grabJpeg(video, opts));
    }
    return gestureVideo(gesture, jpegs);
}
