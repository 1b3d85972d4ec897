/**
 * Backend client of the Access Key operations (docs/API.md, Authentication → Access Key):
 * a port of the Rust `AccessKeyClient` (`client/src/http.rs`) and of the signing of
 * `crypto/src/access_key.rs`, on WebCrypto (HMAC-SHA-256) and this package's MD5 only, so
 * it runs in Node 20+, Deno, Bun and edge runtimes.
 *
 * **Server side only**: the secret key must never reach a browser. Every request is sent
 * with
 *
 * - `X-TV-Content-MD5`: base64(MD5(body bytes as sent)) (the empty body's for a GET),
 * - `X-TV-Timestamp`: RFC 3339 UTC,
 * - `Authorization: TV <access_key_id>:<base64(HMAC-SHA256(secret, METHOD "\n" URI "\n"
 *   X-TV-Timestamp "\n" X-TV-Content-MD5))>` (standard base64 with padding; URI is the
 *   path and query exactly as sent; the HMAC key is the UTF-8 bytes of the secret).
 */
import { base64Encode, toBytes, utf8Decode, utf8Encode } from "./encoding.js";
import { IdvApiError, IdvError, contentMd5, subtle } from "./protocol.js";
import { DEFAULT_RETRY } from "./session.js";
// ---------------------------------------------------------------------------------------
// Signing (pure; `crypto/src/access_key.rs`)
/**
 * The exact text an Access Key request signs: `METHOD "\n" URI "\n" TIMESTAMP "\n"
 * CONTENT_MD5` (no trailing newline; an absent Content-MD5 signs as the empty string).
 */
export function stringToSignAccessKey(method, uri, timestamp, contentMd5B64) {
    return `${method}\n${uri}\n${timestamp}\n${contentMd5B64}`;
}
function importHmacKey(key) {
    return subtle().importKey("raw", new Uint8Array(toBytes(key)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}
async function hmacWith(key, message) {
    return new Uint8Array(await subtle().sign("HMAC", key, new Uint8Array(toBytes(message))));
}
/** HMAC-SHA-256 of `message` under `key` (strings as their UTF-8 bytes; the key must not be empty). */
export async function hmacSha256(key, message) {
    return hmacWith(await importHmacKey(key), message);
}
/** The signature of the `Authorization` header: base64(HMAC-SHA256(secret, string to sign)), as the Rust `sign`. */
export async function accessKeySignature(secret, method, uri, timestamp, contentMd5B64) {
    return base64Encode(await hmacSha256(secret, stringToSignAccessKey(method, uri, timestamp, contentMd5B64)));
}
function checkAccessKeyId(accessKeyId) {
    if (accessKeyId === "" || accessKeyId.includes(":"))
        throw new IdvError("malformed", "access_key_id must be non-empty and contain no ':'");
}
async function headersWith(key, accessKeyId, method, uri, timestamp, body) {
    const md5 = contentMd5(body);
    const signature = base64Encode(await hmacWith(key, stringToSignAccessKey(method, uri, timestamp, md5)));
    return { Authorization: `TV ${accessKeyId}:${signature}`, "X-TV-Timestamp": timestamp, "X-TV-Content-MD5": md5 };
}
/**
 * The three headers that sign one Access Key request whose body (as sent) is `body`:
 * `Authorization`, `X-TV-Timestamp`, `X-TV-Content-MD5` (the four-line form over the
 * body's MD5), as the Rust `request_headers` and `idv sign`. Deterministic: the same
 * inputs give the same headers.
 */
export async function accessKeyHeaders(accessKeyId, secret, method, uri, timestamp, body = new Uint8Array(0)) {
    checkAccessKeyId(accessKeyId);
    return headersWith(await importHmacKey(secret), accessKeyId, method, uri, timestamp, body);
}
/**
 * RFC 3339 UTC with milliseconds (`2026-01-01T00:00:00.250Z`), the client's
 * `X-TV-Timestamp`. The fraction keeps a retry sent within the same second apart from
 * the first send: with whole seconds both would carry the same signature over the same
 * body, which the server refuses as a replay once the first was accepted.
 */
export function rfc3339Millis(date = new Date()) {
    return date.toISOString();
}
/**
 * An Access Key request answered with another status than 200, after the retries the
 * client's policy allows (the Rust `ClientError::Refused`): `status`, `code` (the first
 * error's code, `""` when there is none), `attempts`, `body` (the parsed JSON, `null`
 * when the body is not JSON) and `text` (the body as text). Also an {@link IdvApiError}
 * (`errors` = the envelope's `errors`).
 */
export class RefusedError extends IdvApiError {
    body;
    text;
    constructor(status, body, text, attempts) {
        const errors = body?.errors;
        super(status, Array.isArray(errors) ? errors : [], attempts);
        this.name = "RefusedError";
        this.message = `refused: HTTP ${status} ${this.code || "(no code)"} after ${attempts} attempt(s)`;
        this.body = body;
        this.text = text;
    }
}
function decodeText(bytes) {
    try {
        return utf8Decode(bytes);
    }
    catch {
        return new TextDecoder("utf-8").decode(bytes);
    }
}
function parseJson(text) {
    try {
        return { ok: true, value: JSON.parse(text) };
    }
    catch (error) {
        return { ok: false, error };
    }
}
/** `Retry-After` as delay-seconds (digits only, as the Rust client reads it), in ms; `undefined` otherwise (an HTTP date included). */
function retryAfterMs(value) {
    const m = value === null ? null : /^\s*\+?(\d+)\s*$/.exec(value);
    return m ? Number(m[1]) * 1000 : undefined;
}
/**
 * A backend client of the Access Key operations, as the Rust `AccessKeyClient`: every
 * request signed; 429 and 503 (refused before anything was done) sent again after the
 * server's `Retry-After` or else an exponential backoff (both capped at
 * `retry.maxDelayMs`), each time signed anew with a new timestamp, at most
 * `retry.maxAttempts` sends in all; any other answer than 200 throws {@link RefusedError}.
 * Network failures are `fetch`'s own errors, not retried.
 *
 * `baseUrl` is scheme and host; a path prefix the server sees (e.g. `/api`) goes in the
 * path, which is what is signed.
 */
export class AccessKeyClient {
    baseUrl;
    accessKeyId;
    retry;
    #secret;
    #key;
    #fetch;
    #now;
    #sleep;
    /** `secret` is the `secret_key` exactly as `idv keys create` printed it (signed as its UTF-8 bytes), or those bytes. */
    constructor(baseUrl, accessKeyId, secret, opts = {}) {
        checkAccessKeyId(accessKeyId);
        const secretBytes = new Uint8Array(toBytes(secret));
        if (secretBytes.length === 0)
            throw new IdvError("key", "the secret key is empty");
        this.baseUrl = baseUrl.replace(/\/+$/, "");
        this.accessKeyId = accessKeyId;
        this.#secret = secretBytes;
        this.#fetch = opts.fetch ?? ((...a) => globalThis.fetch(...a));
        this.#now = opts.now ?? (() => new Date());
        this.#sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
        this.retry = { ...DEFAULT_RETRY, ...opts.retry, ...(opts.maxAttempts === undefined ? {} : { maxAttempts: opts.maxAttempts }) };
        if (!Number.isInteger(this.retry.maxAttempts) || this.retry.maxAttempts < 1)
            throw new RangeError("maxAttempts must be an integer >= 1");
    }
    /**
     * The HMAC key, imported once (non-extractable); the raw secret is dropped once the
     * import succeeded (a failed import leaves it, and the next request tries again).
     */
    #hmacKey() {
        if (!this.#key) {
            const pending = importHmacKey(this.#secret ?? new Uint8Array(0));
            this.#key = pending.then((key) => {
                this.#secret?.fill(0);
                this.#secret = undefined;
                return key;
            }, (err) => {
                this.#key = undefined;
                throw err;
            });
        }
        return this.#key;
    }
    /**
     * The headers signing `method path` with `body` (the exact bytes or text sent; empty
     * by default) at `timestamp` (default: now, {@link rfc3339Millis}). Deterministic when
     * `timestamp` is given.
     */
    async sign(method, path, body = new Uint8Array(0), timestamp) {
        return headersWith(await this.#hmacKey(), this.accessKeyId, method.toUpperCase(), path, timestamp ?? rfc3339Millis(this.#now()), body);
    }
    /** POST `body` to `path` (the Rust `call`); see {@link post}. */
    call(path, body) {
        return this.post(path, body);
    }
    /**
     * POST a JSON body to `path` and parse the 200 answer. `body`: an object (serialized
     * once: the bytes signed are the bytes sent), a string (the exact JSON text) or bytes.
     */
    async post(path, body) {
        if (body === undefined)
            throw new IdvError("malformed", "a POST needs a body");
        return this.request("POST", path, body);
    }
    /**
     * `method` (e.g. `PATCH /v1/images/{id}`) with a JSON body as for {@link post}, or
     * none when `body` is `undefined`; the 200 answer parsed as JSON.
     */
    async request(method, path, body) {
        const { resp, bytes, attempts } = await this.#send(method, path, body === undefined ? undefined : serialize(body));
        const text = decodeText(bytes);
        const parsed = parseJson(text);
        if (!parsed.ok)
            throw new IdvError("malformed", `HTTP ${resp.status} answer is not JSON: ${text.slice(0, 200)}`, { cause: parsed.error });
        return { status: resp.status, body: parsed.value, attempts, headers: resp.headers };
    }
    /** GET `path` (no body; signed over the empty body's MD5), the answer's bytes as they came. */
    async get(path) {
        const { resp, bytes, attempts } = await this.#send("GET", path, undefined);
        return { status: resp.status, bytes, contentType: resp.headers.get("content-type") ?? "", attempts, headers: resp.headers };
    }
    async #send(method, path, body) {
        if (!path.startsWith("/"))
            throw new IdvError("malformed", `path must start with '/': ${path}`);
        method = method.toUpperCase();
        let delay = this.retry.firstDelayMs;
        for (let attempt = 1;; attempt++) {
            // Signed anew for every send: the same headers again would be a replay.
            const headers = await this.sign(method, path, body ?? new Uint8Array(0));
            if (body !== undefined)
                headers["Content-Type"] = "application/json";
            const init = { method, headers };
            if (body !== undefined)
                init.body = new Uint8Array(body);
            const resp = await this.#fetch(this.baseUrl + path, init);
            const bytes = new Uint8Array(await resp.arrayBuffer());
            if (resp.status === 200)
                return { resp, bytes, attempts: attempt };
            if (this.retry.retryStatuses.includes(resp.status) && attempt < this.retry.maxAttempts) {
                await this.#sleep(Math.min(retryAfterMs(resp.headers.get("retry-after")) ?? delay, this.retry.maxDelayMs));
                delay = Math.min(delay * 2, this.retry.maxDelayMs);
                continue;
            }
            const text = decodeText(bytes);
            const parsed = parseJson(text);
            throw new RefusedError(resp.status, parsed.ok ? parsed.value : null, text, attempt);
        }
    }
}
function serialize(body) {
    if (body instanceof Uint8Array)
        return body;
    if (typeof body === "string")
        return utf8Encode(body);
    const json = JSON.stringify(body);
    if (json === undefined)
        throw new IdvError("malformed", "the body cannot be serialized as JSON");
    return utf8Encode(json);
}
