/** Byte/text helpers shared by the SDK: strict base64 (standard alphabet, padded), hex, UTF-8. */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const LOOKUP = (() => {
    const t = new Int16Array(128).fill(-1);
    for (let i = 0; i < ALPHABET.length; i++)
        t[ALPHABET.charCodeAt(i)] = i;
    return t;
})();
/** Standard base64 with padding (what the server expects everywhere). */
export function base64Encode(bytes) {
    let out = "";
    let i = 0;
    for (; i + 2 < bytes.length; i += 3) {
        const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
        out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63] + ALPHABET[n & 63];
    }
    const rest = bytes.length - i;
    if (rest === 1) {
        const n = bytes[i] << 16;
        out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + "==";
    }
    else if (rest === 2) {
        const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
        out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63] + "=";
    }
    return out;
}
/**
 * Strict standard base64 decoding, as the server's decoder (Rust `base64` STANDARD):
 * padding required, no whitespace, no other alphabet, no non-zero trailing bits.
 * Throws `TypeError` on anything else.
 */
export function base64Decode(text) {
    if (text.length % 4 !== 0)
        throw new TypeError("base64: length is not a multiple of 4");
    let pad = 0;
    if (text.endsWith("=="))
        pad = 2;
    else if (text.endsWith("="))
        pad = 1;
    const out = new Uint8Array((text.length / 4) * 3 - pad);
    let o = 0;
    for (let i = 0; i < text.length; i += 4) {
        const last = i + 4 === text.length;
        const v = [];
        for (let j = 0; j < 4; j++) {
            const c = text.charCodeAt(i + j);
            if (c === 61 /* = */ && last && j >= 4 - pad) {
                v.push(0);
                continue;
            }
            const d = c < 128 ? LOOKUP[c] : -1;
            if (d < 0)
                throw new TypeError("base64: invalid character");
            v.push(d);
        }
        const n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
        if (last && pad === 2 && (n & 0xffff) !== 0)
            throw new TypeError("base64: non-canonical trailing bits");
        if (last && pad === 1 && (n & 0xff) !== 0)
            throw new TypeError("base64: non-canonical trailing bits");
        out[o++] = n >>> 16;
        if (o < out.length)
            out[o++] = (n >>> 8) & 0xff;
        if (o < out.length)
            out[o++] = n & 0xff;
    }
    return out;
}
/** Lowercase hex. */
export function hexEncode(bytes) {
    let s = "";
    for (const b of bytes)
        s += b.toString(16).padStart(2, "0");
    return s;
}
/** Hex (either case) to bytes; throws `TypeError` on odd length or other characters. */
export function hexDecode(text) {
    if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text))
        throw new TypeError("hex: malformed");
    const out = new Uint8Array(text.length / 2);
    for (let i = 0; i < out.length; i++)
        out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
    return out;
}
export function utf8Encode(text) {
    return new TextEncoder().encode(text);
}
/** Fatal UTF-8 decoding (malformed input throws). */
export function utf8Decode(bytes) {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}
/** A string as UTF-8 bytes, bytes as they are. */
export function toBytes(input) {
    return typeof input === "string" ? utf8Encode(input) : input;
}
export function concatBytes(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
        out.set(p, o);
        o += p.length;
    }
    return out;
}
export function bytesEqual(a, b) {
    if (a.length !== b.length)
        return false;
    let d = 0;
    for (let i = 0; i < a.length; i++)
        d |= a[i] ^ b[i];
    return d === 0;
}
/** A copy backed by a plain ArrayBuffer (what WebCrypto's `BufferSource` typing wants). */
export function ab(bytes) {
    return new Uint8Array(bytes);
}
