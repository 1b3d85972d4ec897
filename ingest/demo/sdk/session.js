/**
 * Device keys and a device session: the Rust `idv_client::{DeviceKeys, DeviceSession}`
 * on WebCrypto, plus small `fetch` helpers for create_challenge and push_event_batch.
 */
import { BatchChain } from "./chain.js";
import { base64Decode, base64Encode, utf8Decode } from "./encoding.js";
import { CREATE_CHALLENGE_PATH, IdvApiError, IdvError, PUSH_EVENT_BATCH_PATH, encryptBody, encryptSecretKey, importDevicePrivateKey, importRsaPublicKey, openResponse, prepare, rfc3339, sealB64, signRequest, subtle, } from "./protocol.js";
/** Bits of the device keys {@link DeviceKeys.generate} makes by default. */
export const DEVICE_RSA_BITS = 2048;
/** The device's RSA key pair (the private key never leaves the device). */
export class DeviceKeys {
    /** RSA-PSS SHA-256 private key (request signatures). */
    signKey;
    /** RSA-OAEP SHA-256 private key (response keys): the same RSA key, imported again. */
    decryptKey;
    /** PKIX SubjectPublicKeyInfo DER of the public key. */
    publicKeyDer;
    constructor(signKey, decryptKey, publicKeyDer) {
        this.signKey = signKey;
        this.decryptKey = decryptKey;
        this.publicKeyDer = publicKeyDer;
    }
    /**
     * A fresh RSA key pair (2048 bits unless told otherwise). With `extractable: false`
     * (default) the private key cannot be exported afterwards; persist the CryptoKeys
     * ({@link signKey}, {@link decryptKey}) and {@link publicKeyDer} in IndexedDB and
     * restore them with {@link fromCryptoKeys}.
     */
    static async generate(opts = {}) {
        const pair = (await subtle().generateKey({ name: "RSA-PSS", modulusLength: opts.modulusLength ?? DEVICE_RSA_BITS, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"]));
        const pkcs8 = new Uint8Array(await subtle().exportKey("pkcs8", pair.privateKey));
        try {
            return await DeviceKeys.fromPkcs8(pkcs8, { extractable: opts.extractable ?? false });
        }
        finally {
            pkcs8.fill(0);
        }
    }
    /** Import a PKCS#8 DER RSA private key (2048..4096 bits). */
    static async fromPkcs8(pkcs8Der, opts = {}) {
        // Derive the public key through a temporary extractable import (JWK n, e).
        const tmp = await importDevicePrivateKey(pkcs8Der, true);
        const jwk = await subtle().exportKey("jwk", tmp.sign);
        const pub = await subtle().importKey("jwk", { kty: "RSA", n: jwk.n, e: jwk.e }, { name: "RSA-PSS", hash: "SHA-256" }, true, ["verify"]);
        const der = new Uint8Array(await subtle().exportKey("spki", pub));
        try {
            await importRsaPublicKey(der);
        }
        catch (e) {
            throw new IdvError("key", "device key is not an RSA key of 2048..4096 bits", { cause: e });
        }
        const keys = opts.extractable ? tmp : await importDevicePrivateKey(pkcs8Der, false);
        return new DeviceKeys(keys.sign, keys.decrypt, der);
    }
    /** Restore keys kept as CryptoKeys (e.g. from IndexedDB). */
    static async fromCryptoKeys(signKey, decryptKey, publicKeyDer) {
        if (signKey.algorithm.name !== "RSA-PSS" || !signKey.usages.includes("sign"))
            throw new IdvError("key", "signKey must be an RSA-PSS signing key");
        if (decryptKey.algorithm.name !== "RSA-OAEP" || !decryptKey.usages.includes("decrypt"))
            throw new IdvError("key", "decryptKey must be an RSA-OAEP decryption key");
        await importRsaPublicKey(publicKeyDer).catch((e) => {
            throw new IdvError("key", "device public key is not an RSA key of 2048..4096 bits", { cause: e });
        });
        return new DeviceKeys(signKey, decryptKey, new Uint8Array(publicKeyDer));
    }
    /** PKCS#8 DER of the private key (only for keys made or imported extractable). */
    async toPkcs8() {
        if (!this.signKey.extractable)
            throw new IdvError("key", "the private key is not extractable");
        return new Uint8Array(await subtle().exportKey("pkcs8", this.signKey));
    }
    /** base64 of {@link publicKeyDer} (register_device's plain `device_public_key`). */
    publicKeyDerB64() {
        return base64Encode(this.publicKeyDer);
    }
    /**
     * The register_device request. `encrypted = false`: `device_public_key` = base64 DER.
     * `encrypted = true`: `protocol = "encrypted"`, a fresh AES key OAEP-encrypted to the
     * server public key, the DER sealed under it (AES-256-GCM envelope).
     */
    async registerDeviceBody(keyPairId, serverPublicKeyDer, cusUserId, deviceId, encrypted) {
        if (!encrypted) {
            return { key_pair_id: keyPairId, device_public_key: this.publicKeyDerB64(), cus_user_id: cusUserId, device_id: deviceId };
        }
        const server = await importRsaPublicKey(serverPublicKeyDer);
        const { secretKey, encryptedSecretKey } = await encryptSecretKey(server.encrypt);
        const sealed = await sealB64(secretKey, this.publicKeyDer);
        secretKey.fill(0);
        return {
            key_pair_id: keyPairId,
            protocol: "encrypted",
            encrypted_secret_key: encryptedSecretKey,
            device_public_key: sealed,
            cus_user_id: cusUserId,
            device_id: deviceId,
        };
    }
}
export const DEFAULT_RETRY = { maxAttempts: 4, firstDelayMs: 250, maxDelayMs: 10_000, retryStatuses: [429, 503] };
/**
 * A registered device talking to the server: its `customer_user_device_id`, its keys, the
 * server public key of the key pair it registered with, and the request secret key with
 * its `encrypted_secret_key` (made once per session, so the server pays one private-key
 * operation per session; {@link rotateSecretKey} makes a new one).
 */
export class DeviceSession {
    customerUserDeviceId;
    keys;
    server;
    #secretKey;
    #encryptedSecretKey;
    #fetch;
    #now;
    #sleep;
    retry;
    #chains = new Map();
    #locks = new Map();
    constructor(id, keys, server, secretKey, esk, opts) {
        this.customerUserDeviceId = id;
        this.keys = keys;
        this.server = server;
        this.#secretKey = secretKey;
        this.#encryptedSecretKey = esk;
        this.#fetch = opts.fetch ?? ((...a) => globalThis.fetch(...a));
        this.#now = opts.now ?? (() => new Date());
        this.#sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
        this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    }
    /** A session for a registered device; `serverPublicKeyDer` is validated as the server does. */
    static async create(customerUserDeviceId, keys, serverPublicKeyDer, opts = {}) {
        if (customerUserDeviceId === "" || customerUserDeviceId.includes(":"))
            throw new IdvError("malformed", "customer_user_device_id must be non-empty without ':'");
        const server = await importRsaPublicKey(serverPublicKeyDer);
        const { secretKey, encryptedSecretKey } = await encryptSecretKey(server.encrypt);
        return new DeviceSession(customerUserDeviceId, keys, server, secretKey, encryptedSecretKey, opts);
    }
    /** A new request secret key and `encrypted_secret_key` for the following requests. */
    async rotateSecretKey() {
        const { secretKey, encryptedSecretKey } = await encryptSecretKey(this.server.encrypt);
        this.#secretKey.fill(0);
        this.#secretKey = secretKey;
        this.#encryptedSecretKey = encryptedSecretKey;
    }
    /** The base64 text sent in `Authorization`. */
    get encryptedSecretKey() {
        return this.#encryptedSecretKey;
    }
    /** A copy of the current request secret key (the device's own secret; tests, debugging). */
    get secretKey() {
        return new Uint8Array(this.#secretKey);
    }
    #ctx() {
        return { customerUserDeviceId: this.customerUserDeviceId, signKey: this.keys.signKey, encryptedSecretKey: this.#encryptedSecretKey, secretKey: this.#secretKey };
    }
    /** Headers for a request whose body (as sent) is `body`. */
    signRequest(method, uri, timestamp, body, challengeId) {
        return signRequest(this.#ctx(), method, uri, timestamp, body, challengeId);
    }
    /** The encrypted request body `{"data":"<base64(nonce ‖ ct ‖ tag)>"}` (fresh nonce). */
    encryptBody(plaintextJson) {
        return encryptBody(this.#secretKey, plaintextJson);
    }
    /** {@link encryptBody} + {@link signRequest} (POST), as the Rust `DeviceSession::prepare`. */
    prepare(uri, timestamp, plaintextJson, challengeId) {
        return prepare(this.#ctx(), uri, timestamp, plaintextJson, challengeId);
    }
    /** Open an encrypted success response (see {@link openResponse}). */
    openResponse(body, status = 0) {
        return openResponse(body, this.server.verify, this.keys.decryptKey, status);
    }
    /**
     * POST an encrypted, device-signed request to `baseUrl + uri` and open the answer.
     * `baseUrl` is scheme + host (a path prefix that the server sees goes in `uri`, which
     * is signed). 429/503 are sent again per {@link retry}, each time prepared and signed
     * anew (the same headers again would be a replay); any other non-200 answer throws
     * {@link IdvApiError}.
     */
    async postDevice(baseUrl, uri, plaintextJson, challengeId) {
        let delay = this.retry.firstDelayMs;
        for (let attempt = 1;; attempt++) {
            const req = await this.prepare(uri, rfc3339(this.#now()), plaintextJson, challengeId);
            const resp = await this.#fetch(baseUrl.replace(/\/+$/, "") + uri, {
                method: "POST",
                headers: { "Content-Type": "application/json", ...req.headers },
                body: req.body,
            });
            const bytes = new Uint8Array(await resp.arrayBuffer());
            if (resp.status === 200)
                return this.openResponse(bytes, 200);
            if (this.retry.retryStatuses.includes(resp.status) && attempt < this.retry.maxAttempts) {
                const ra = Number.parseInt(resp.headers.get("retry-after") ?? "", 10);
                await this.#sleep(Math.min(Number.isFinite(ra) && ra >= 0 ? ra * 1000 : delay, this.retry.maxDelayMs));
                delay = Math.min(delay * 2, this.retry.maxDelayMs);
                continue;
            }
            let errors = [];
            try {
                const v = JSON.parse(utf8Decode(bytes));
                if (Array.isArray(v.errors))
                    errors = v.errors;
            }
            catch {
                // not JSON: errors stays empty, the status says what happened
            }
            throw new IdvApiError(resp.status, errors, attempt);
        }
    }
    /**
     * create_challenge: returns the challenge and keeps a {@link BatchChain} for it (see
     * {@link chain}), which {@link pushBatch} uses.
     */
    async createChallenge(baseUrl, sessionId) {
        const out = (await this.postDevice(baseUrl, CREATE_CHALLENGE_PATH, JSON.stringify({ session_id: sessionId })));
        const d = out?.data;
        if (typeof d?.challenge_id !== "string" || typeof d.nonce !== "string" || typeof d.server_public_key !== "string") {
            throw new IdvError("malformed", "create_challenge response lacks challenge_id, nonce or server_public_key");
        }
        this.#chains.set(d.challenge_id, new BatchChain(d.nonce));
        return { challengeId: d.challenge_id, nonce: d.nonce, serverPublicKey: d.server_public_key };
    }
    /** The chain kept for `challengeId` (after {@link createChallenge} or {@link resumeChallenge}). */
    chain(challengeId) {
        return this.#chains.get(challengeId);
    }
    /** Attach a chain to a challenge created elsewhere (e.g. before a page reload). */
    resumeChallenge(challengeId, chain) {
        this.#chains.set(challengeId, chain);
    }
    /**
     * push_event_batch: the next batch of the challenge's chain with `data` (an object,
     * serialized once, or the exact JSON text of one). Pushes of one challenge run one at a
     * time, in call order; the chain advances only when the server accepted the batch, so a
     * refused push can be retried with the same or other data.
     */
    async pushBatch(baseUrl, challengeId, data) {
        const chain = this.#chains.get(challengeId);
        if (!chain)
            throw new IdvError("chain", `no chain for challenge ${challengeId}: call createChallenge or resumeChallenge first`);
        const previous = this.#locks.get(challengeId) ?? Promise.resolve();
        const run = previous
            .catch(() => undefined)
            .then(async () => {
            const batch = await chain.peek(data);
            const out = (await this.postDevice(baseUrl, PUSH_EVENT_BATCH_PATH, batch.plaintext, challengeId));
            if (out?.data?.status !== "success")
                throw new IdvError("malformed", "push_event_batch response is not a success");
            chain.commit(batch);
            return batch;
        });
        this.#locks.set(challengeId, run);
        try {
            return await run;
        }
        finally {
            if (this.#locks.get(challengeId) === run)
                this.#locks.delete(challengeId);
        }
    }
}
/** Decode create_challenge's `server_public_key` (base64 PKIX DER). */
export function decodeServerPublicKey(b64) {
    try {
        return base64Decode(b64);
    }
    catch (e) {
        throw new IdvError("server_key", "server public key is not base64", { cause: e });
    }
}
