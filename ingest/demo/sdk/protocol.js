/**
 * The device side of the behavioral SDK protocol (docs/BEHAVIOR_PROTOCOL.md), on
 * WebCrypto only (`globalThis.crypto.subtle`: browsers, Node 20+, Deno, Bun).
 *
 * - RSA-PSS: SHA-256, MGF1-SHA-256, salt length exactly 32 (the server rejects others).
 * - RSA-OAEP: SHA-256 with MGF1-SHA-256 (WebCrypto always uses the same hash for MGF1),
 *   empty label.
 * - AES-256-GCM envelopes: base64(nonce(12) ‖ ciphertext ‖ tag(16)), empty associated data.
 * - Public keys: PKIX SubjectPublicKeyInfo DER with the rsaEncryption OID, 2048..4096 bits.
 *
 * One device RSA key pair is used both for PSS signatures (requests) and OAEP decryption
 * (response keys); WebCrypto binds a CryptoKey to one algorithm, so the same PKCS#8 is
 * imported twice (see {@link importDevicePrivateKey}).
 */
import { ab, base64Decode, base64Encode, concatBytes, toBytes, utf8Decode, utf8Encode } from "./encoding.js";
import { md5 } from "./md5.js";
/** Length of request secret keys and response keys (AES-256). */
export const SECRET_KEY_LEN = 32;
/** AES-GCM nonce length in the envelopes. */
export const GCM_NONCE_LEN = 12;
/** AES-GCM tag length in the envelopes. */
export const GCM_TAG_LEN = 16;
/** RSA-PSS salt length, both directions. */
export const PSS_SALT_LEN = 32;
/** Smallest RSA modulus the server accepts, in bits. */
export const MIN_RSA_BITS = 2048;
/** Largest RSA modulus the server accepts, in bits. */
export const MAX_RSA_BITS = 4096;
/** The request paths of the device-authenticated operations (docs/API.md 13 and 14). */
export const CREATE_CHALLENGE_PATH = "/v1/behavior/create_challenge";
export const PUSH_EVENT_BATCH_PATH = "/v1/behavior/push_event_batch";
const PSS_IMPORT = { name: "RSA-PSS", hash: "SHA-256" };
const OAEP_IMPORT = { name: "RSA-OAEP", hash: "SHA-256" };
const PSS_PARAMS = { name: "RSA-PSS", saltLength: PSS_SALT_LEN };
const OAEP_PARAMS = { name: "RSA-OAEP" };
/** Any failure of the SDK itself (not a server answer: see {@link IdvApiError}). */
export class IdvError extends Error {
    kind;
    constructor(kind, message, options) {
        super(message, options);
        this.name = "IdvError";
        this.kind = kind;
    }
}
/**
 * The server answered with its (unencrypted) error envelope `{"errors": [...]}`.
 * `status` is the HTTP status when known (0 when only a body was given), `code` the
 * first error's code.
 */
export class IdvApiError extends Error {
    status;
    code;
    errors;
    attempts;
    constructor(status, errors, attempts = 1) {
        const first = errors[0];
        const code = typeof first?.code === "string" ? first.code : "";
        super(`server error${status ? ` HTTP ${status}` : ""}: ${code || "(no code)"}`);
        this.name = "IdvApiError";
        this.status = status;
        this.code = code;
        this.errors = errors;
        this.attempts = attempts;
    }
}
/** `globalThis.crypto.subtle`, or an {@link IdvError} where there is none (e.g. plain HTTP pages). */
export function subtle() {
    const s = globalThis.crypto?.subtle;
    if (!s)
        throw new IdvError("unsupported", "WebCrypto (crypto.subtle) is not available: a secure context (https) is required");
    return s;
}
export function randomBytes(n) {
    const out = new Uint8Array(n);
    globalThis.crypto.getRandomValues(out);
    return out;
}
// ---------------------------------------------------------------------------------------
// Keys
/** DER tag + length header at the start of `der`: [tag, header length, content length]. */
function derHeader(der, at) {
    const tag = der[at];
    const first = der[at + 1];
    if (tag === undefined || first === undefined)
        return undefined;
    if (first < 0x80)
        return [tag, 2, first];
    const n = first & 0x7f;
    if (n === 0 || n > 4 || at + 2 + n > der.length)
        return undefined;
    let len = 0;
    for (let i = 0; i < n; i++)
        len = len * 256 + der[at + 2 + i];
    return [tag, 2 + n, len];
}
const RSA_ENCRYPTION_OID = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
/**
 * SubjectPublicKeyInfo ::= SEQUENCE { SEQUENCE { OID rsaEncryption, .. }, BIT STRING } with
 * nothing after the outer SEQUENCE (as `idv_crypto::device::has_rsa_encryption_oid`).
 */
export function hasRsaEncryptionOid(der) {
    const outer = derHeader(der, 0);
    if (!outer || outer[0] !== 0x30 || outer[1] + outer[2] !== der.length)
        return false;
    const inner = derHeader(der, outer[1]);
    if (!inner || inner[0] !== 0x30)
        return false;
    const alg = outer[1] + inner[1];
    return RSA_ENCRYPTION_OID.every((b, i) => der[alg + i] === b);
}
/**
 * Import a PKIX SubjectPublicKeyInfo DER RSA public key the way the server accepts one:
 * rsaEncryption OID, no trailing bytes, 2048..4096 bits. Anything else throws
 * `IdvError("server_key")` (PKCS#1 RSAPublicKey, id-RSASSA-PSS, EC, 1024/6144 bits...).
 */
export async function importRsaPublicKey(spkiDer) {
    if (!hasRsaEncryptionOid(spkiDer)) {
        throw new IdvError("server_key", "public key is not an RSA (rsaEncryption) SubjectPublicKeyInfo");
    }
    let verify;
    let encrypt;
    try {
        verify = await subtle().importKey("spki", ab(spkiDer), PSS_IMPORT, true, ["verify"]);
        encrypt = await subtle().importKey("spki", ab(spkiDer), OAEP_IMPORT, true, ["encrypt"]);
    }
    catch (e) {
        throw new IdvError("server_key", "public key could not be imported", { cause: e });
    }
    const bits = encrypt.algorithm.modulusLength;
    if (!(bits >= MIN_RSA_BITS && bits <= MAX_RSA_BITS)) {
        throw new IdvError("server_key", `RSA key size ${bits} is outside ${MIN_RSA_BITS}..${MAX_RSA_BITS} bits`);
    }
    return { verify, encrypt, der: new Uint8Array(spkiDer), bits };
}
/**
 * Import a PKCS#8 DER RSA private key for PSS signing AND OAEP decryption. With
 * `extractable = false` (the default) neither CryptoKey can be exported again; they can
 * still be stored in IndexedDB.
 */
export async function importDevicePrivateKey(pkcs8Der, extractable = false) {
    try {
        const sign = await subtle().importKey("pkcs8", ab(pkcs8Der), PSS_IMPORT, extractable, ["sign"]);
        const decrypt = await subtle().importKey("pkcs8", ab(pkcs8Der), OAEP_IMPORT, extractable, ["decrypt"]);
        return { sign, decrypt };
    }
    catch (e) {
        throw new IdvError("key", "device private key is not a usable PKCS#8 RSA key", { cause: e });
    }
}
// ---------------------------------------------------------------------------------------
// RSA operations
/** RSA-PSS (SHA-256, MGF1-SHA-256, salt 32) signature, raw bytes. */
export async function signPss(signKey, message) {
    return new Uint8Array(await subtle().sign(PSS_PARAMS, signKey, ab(toBytes(message))));
}
/** Verify an RSA-PSS (SHA-256, salt 32) signature; anything malformed is `false`. */
export async function verifyPss(verifyKey, message, signature) {
    try {
        return await subtle().verify(PSS_PARAMS, verifyKey, ab(signature), ab(toBytes(message)));
    }
    catch {
        return false;
    }
}
/** RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) encryption. */
export async function oaepEncrypt(encryptKey, plaintext) {
    return new Uint8Array(await subtle().encrypt(OAEP_PARAMS, encryptKey, ab(plaintext)));
}
/** RSA-OAEP (SHA-256, MGF1-SHA-256, empty label) decryption. */
export async function oaepDecrypt(decryptKey, ciphertext) {
    return new Uint8Array(await subtle().decrypt(OAEP_PARAMS, decryptKey, ab(ciphertext)));
}
/**
 * A fresh 32-byte request secret key (or the given one) and its `encrypted_secret_key`:
 * base64(RSA-OAEP-SHA-256 of the key to the server public key).
 */
export async function encryptSecretKey(serverEncryptKey, secretKey = randomBytes(SECRET_KEY_LEN)) {
    if (secretKey.length !== SECRET_KEY_LEN)
        throw new IdvError("key", "secret key must be 32 bytes");
    return { secretKey: new Uint8Array(secretKey), encryptedSecretKey: base64Encode(await oaepEncrypt(serverEncryptKey, secretKey)) };
}
// ---------------------------------------------------------------------------------------
// AES-256-GCM envelopes
async function aesKey(key, usage) {
    if (key.length !== SECRET_KEY_LEN)
        throw new IdvError("key", "AES key must be 32 bytes");
    return subtle().importKey("raw", ab(key), { name: "AES-GCM" }, false, [usage]);
}
/**
 * base64(nonce(12) ‖ AES-256-GCM ciphertext ‖ tag(16)), empty associated data, a fresh
 * random nonce unless one is given (only tests should give one).
 */
export async function sealB64(key, plaintext, nonce) {
    const iv = nonce ?? randomBytes(GCM_NONCE_LEN);
    if (iv.length !== GCM_NONCE_LEN)
        throw new IdvError("key", "AES-GCM nonce must be 12 bytes");
    const ct = await subtle().encrypt({ name: "AES-GCM", iv: ab(iv), tagLength: 128 }, await aesKey(key, "encrypt"), ab(toBytes(plaintext)));
    return base64Encode(concatBytes(iv, new Uint8Array(ct)));
}
/** Open a {@link sealB64} envelope; `IdvError("malformed")` or `IdvError("decrypt")` otherwise. */
export async function openB64(key, envelopeB64) {
    let raw;
    try {
        raw = base64Decode(envelopeB64);
    }
    catch (e) {
        throw new IdvError("malformed", "envelope is not base64", { cause: e });
    }
    if (raw.length < GCM_NONCE_LEN + GCM_TAG_LEN)
        throw new IdvError("malformed", "envelope shorter than nonce + tag");
    const k = await aesKey(key, "decrypt");
    try {
        const pt = await subtle().decrypt({ name: "AES-GCM", iv: ab(raw.subarray(0, GCM_NONCE_LEN)), tagLength: 128 }, k, ab(raw.subarray(GCM_NONCE_LEN)));
        return new Uint8Array(pt);
    }
    catch (e) {
        throw new IdvError("decrypt", "envelope does not decrypt under this key", { cause: e });
    }
}
/**
 * The encrypted request body `{"data":"<base64(nonce ‖ ct ‖ tag)>"}` (fresh nonce) as the
 * exact bytes to send (the Content-MD5 and the signature cover these bytes).
 */
export async function encryptBody(secretKey, plaintextJson) {
    const data = await sealB64(secretKey, plaintextJson);
    return utf8Encode(JSON.stringify({ data }));
}
/** What the server does with a request body: `{"data": "<envelope>"}` → plaintext bytes. */
export async function decryptBody(secretKey, body) {
    let v;
    try {
        v = JSON.parse(typeof body === "string" ? body : utf8Decode(body));
    }
    catch (e) {
        throw new IdvError("malformed", "body is not JSON", { cause: e });
    }
    const data = v?.data;
    if (typeof data !== "string")
        throw new IdvError("malformed", 'body is not {"data": "<base64>"}');
    return openB64(secretKey, data);
}
// ---------------------------------------------------------------------------------------
// Request signing
/** base64(MD5(body bytes as sent)): the `X-TV-Content-MD5` header. */
export function contentMd5(body) {
    return base64Encode(md5(toBytes(body)));
}
/**
 * The exact text the device signs:
 * `METHOD "\n" URI "\n" X-TV-Timestamp "\n" encrypted_secret_key "\n" X-TV-Content-MD5`
 * (no trailing newline; URI = path and query exactly as sent).
 */
export function stringToSignDevice(method, uri, timestamp, encryptedSecretKeyB64, contentMd5B64) {
    return `${method}\n${uri}\n${timestamp}\n${encryptedSecretKeyB64}\n${contentMd5B64}`;
}
/** The exact text the server signs: `response_key` base64 text immediately followed by `data`. */
export function stringToSignResponse(responseKeyB64, dataB64) {
    return responseKeyB64 + dataB64;
}
/** `TV <customer_user_device_id>:<encrypted_secret_key>:<signature>`. */
export function authorizationHeader(customerUserDeviceId, encryptedSecretKeyB64, signatureB64) {
    for (const [name, v] of [["customer_user_device_id", customerUserDeviceId], ["encrypted_secret_key", encryptedSecretKeyB64], ["signature", signatureB64]]) {
        if (v === "" || v.includes(":"))
            throw new IdvError("malformed", `${name} must be non-empty and contain no ':'`);
    }
    return `TV ${customerUserDeviceId}:${encryptedSecretKeyB64}:${signatureB64}`;
}
/** `X-Challenge-ID` value: `TV <challenge_id>` (capital T and V, one space). */
export function challengeIdHeader(challengeId) {
    if (challengeId === "" || /\s/.test(challengeId))
        throw new IdvError("malformed", "challenge id must be non-empty without whitespace");
    return `TV ${challengeId}`;
}
/** RFC 3339 UTC with whole seconds (`2026-01-01T00:00:00Z`), for `X-TV-Timestamp`. */
export function rfc3339(date = new Date()) {
    return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
/**
 * Headers for a request whose body (as sent) is `body`: `Authorization`,
 * `X-TV-Timestamp`, `X-TV-Content-MD5` and, when given, `X-Challenge-ID`
 * (as `DeviceSession::sign_request` of the Rust client).
 */
export async function signRequest(ctx, method, uri, timestamp, body, challengeId) {
    const md5b64 = contentMd5(body);
    const sts = stringToSignDevice(method, uri, timestamp, ctx.encryptedSecretKey, md5b64);
    const sig = base64Encode(await signPss(ctx.signKey, sts));
    const h = {
        Authorization: authorizationHeader(ctx.customerUserDeviceId, ctx.encryptedSecretKey, sig),
        "X-TV-Timestamp": timestamp,
        "X-TV-Content-MD5": md5b64,
    };
    if (challengeId !== undefined)
        h["X-Challenge-ID"] = challengeIdHeader(challengeId);
    return h;
}
/** {@link encryptBody} + {@link signRequest} (method POST), as `DeviceSession::prepare`. */
export async function prepare(ctx, uri, timestamp, plaintextJson, challengeId) {
    const body = await encryptBody(ctx.secretKey, plaintextJson);
    const headers = await signRequest(ctx, "POST", uri, timestamp, body, challengeId);
    return { body, headers };
}
/**
 * Open an encrypted success response: verify the server signature over
 * `response_key ‖ data` with the server public key FIRST, then OAEP-decrypt
 * `response_key` with the device private key (must be 32 bytes), then AES-GCM-decrypt
 * `data`; returns the parsed plaintext JSON (the `{"data": {...}}` envelope).
 * An unencrypted `{"errors": [...]}` body throws {@link IdvApiError} (status `status`).
 */
export async function openResponse(body, serverVerifyKey, deviceDecryptKey, status = 0) {
    let v;
    try {
        v = JSON.parse(typeof body === "string" ? body : utf8Decode(body));
    }
    catch (e) {
        throw new IdvError("malformed", "response is not JSON", { cause: e });
    }
    if (v === null || typeof v !== "object" || Array.isArray(v))
        throw new IdvError("malformed", "response is not a JSON object");
    const obj = v;
    if ("errors" in obj)
        throw new IdvApiError(status, Array.isArray(obj.errors) ? obj.errors : [obj.errors]);
    const { data, response_key: responseKey, signature } = obj;
    if (typeof data !== "string" || typeof responseKey !== "string" || typeof signature !== "string") {
        throw new IdvError("malformed", "response lacks data, response_key or signature strings");
    }
    let sig;
    try {
        sig = base64Decode(signature);
    }
    catch (e) {
        throw new IdvError("response_signature", "response signature is not base64", { cause: e });
    }
    if (!(await verifyPss(serverVerifyKey, stringToSignResponse(responseKey, data), sig))) {
        throw new IdvError("response_signature", "response signature does not verify with the server public key");
    }
    let rk;
    try {
        rk = await oaepDecrypt(deviceDecryptKey, base64Decode(responseKey));
    }
    catch (e) {
        throw new IdvError("response_decrypt", "response key could not be decrypted", { cause: e });
    }
    if (rk.length !== SECRET_KEY_LEN)
        throw new IdvError("response_decrypt", "response key is not 32 bytes");
    let plaintext;
    try {
        plaintext = await openB64(rk, data);
    }
    catch (e) {
        throw new IdvError("response_decrypt", "response data could not be decrypted", { cause: e });
    }
    try {
        return JSON.parse(utf8Decode(plaintext));
    }
    catch (e) {
        throw new IdvError("malformed", "response plaintext is not JSON", { cause: e });
    }
}
