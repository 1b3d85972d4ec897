/**
 * MD5 (RFC 1321). WebCrypto has no MD5; the protocol needs it only for the
 * `X-TV-Content-MD5` header (base64 of the digest of the body bytes as sent), which the
 * device signature covers. Not used for anything security-relevant on its own.
 */
const S = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];
// K[i] = floor(abs(sin(i + 1)) * 2^32)
const K = (() => {
    const k = new Uint32Array(64);
    for (let i = 0; i < 64; i++)
        k[i] = Math.floor(Math.abs(Math.sin(i + 1)) * 0x100000000) >>> 0;
    return k;
})();
/** The 16-byte MD5 digest of `input` (a string is hashed as its UTF-8 bytes). */
export function md5(input) {
    const msg = typeof input === "string" ? new TextEncoder().encode(input) : input;
    const len = msg.length;
    // Padding: 0x80, zeros to 56 mod 64, then the bit length as 64-bit little endian.
    const padded = new Uint8Array((((len + 8) >>> 6) + 1) << 6);
    padded.set(msg);
    padded[len] = 0x80;
    const bitLenLo = (len << 3) >>> 0;
    const bitLenHi = Math.floor(len / 0x20000000) >>> 0;
    const dv = new DataView(padded.buffer);
    dv.setUint32(padded.length - 8, bitLenLo, true);
    dv.setUint32(padded.length - 4, bitLenHi, true);
    let a0 = 0x67452301;
    let b0 = 0xefcdab89;
    let c0 = 0x98badcfe;
    let d0 = 0x10325476;
    const m = new Uint32Array(16);
    for (let off = 0; off < padded.length; off += 64) {
        for (let j = 0; j < 16; j++)
            m[j] = dv.getUint32(off + 4 * j, true);
        let a = a0;
        let b = b0;
        let c = c0;
        let d = d0;
        for (let i = 0; i < 64; i++) {
            let f;
            let g;
            if (i < 16) {
                f = (b & c) | (~b & d);
                g = i;
            }
            else if (i < 32) {
                f = (d & b) | (~d & c);
                g = (5 * i + 1) & 15;
            }
            else if (i < 48) {
                f = b ^ c ^ d;
                g = (3 * i + 5) & 15;
            }
            else {
                f = c ^ (b | ~d);
                g = (7 * i) & 15;
            }
            const t = d;
            d = c;
            c = b;
            const x = (a + f + K[i] + m[g]) | 0;
            const s = S[i];
            b = (b + ((x << s) | (x >>> (32 - s)))) | 0;
            a = t;
        }
        a0 = (a0 + a) | 0;
        b0 = (b0 + b) | 0;
        c0 = (c0 + c) | 0;
        d0 = (d0 + d) | 0;
    }
    const out = new Uint8Array(16);
    const ov = new DataView(out.buffer);
    ov.setUint32(0, a0 >>> 0, true);
    ov.setUint32(4, b0 >>> 0, true);
    ov.setUint32(8, c0 >>> 0, true);
    ov.setUint32(12, d0 >>> 0, true);
    return out;
}
