/**
 * The client side of the push_event_batch hash chain (docs/BEHAVIOR_PROTOCOL.md §6).
 *
 * batch_hash = hex(SHA-256(prev_batch_hash ‖ "\n" ‖ decimal seq ‖ "\n" ‖ D)), D being the
 * exact bytes of the `data` JSON text embedded in the plaintext request (the server hashes
 * the raw text; nothing re-serializes it).
 */
import { ab, hexEncode, utf8Encode, concatBytes, toBytes } from "./encoding.js";
import { IdvError, subtle } from "./protocol.js";
/** Largest `data` JSON text the server accepts (1 MiB). */
export const MAX_BATCH_DATA_BYTES = 1 << 20;
/** Batches per challenge the server accepts (`seq` below 256). */
export const MAX_BATCH_SEQ = 255;
/** As `idv_crypto::device::batch_hash`: lowercase hex SHA-256. */
export async function batchHash(prevBatchHash, seq, dataJson) {
    if (!Number.isSafeInteger(seq) || seq < 0)
        throw new IdvError("chain", "seq must be a non-negative integer");
    const msg = concatBytes(utf8Encode(`${prevBatchHash}\n${seq}\n`), toBytes(dataJson));
    return hexEncode(new Uint8Array(await subtle().digest("SHA-256", ab(msg))));
}
/**
 * `data` serialized ONCE: a value goes through `JSON.stringify` (compact); a string is
 * taken as the exact JSON text to send (it must parse as a JSON object).
 */
export function serializeBatchData(data) {
    let text;
    if (typeof data === "string") {
        text = data;
    }
    else {
        try {
            text = JSON.stringify(data);
        }
        catch (e) {
            throw new IdvError("malformed", "batch data is not serializable to JSON", { cause: e });
        }
    }
    let parsed;
    try {
        parsed = text === undefined ? undefined : JSON.parse(text);
    }
    catch (e) {
        throw new IdvError("malformed", "batch data is not JSON text", { cause: e });
    }
    if (text === undefined || parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new IdvError("malformed", "batch data must be a JSON object");
    }
    if (utf8Encode(text).length > MAX_BATCH_DATA_BYTES)
        throw new IdvError("malformed", "batch data is over 1 MiB");
    return text;
}
/** The hash chain of one challenge. */
export class BatchChain {
    nonce;
    #nextSeq = 0;
    #prevBatchHash = "";
    /** A chain for the challenge whose nonce create_challenge returned. */
    constructor(nonce) {
        this.nonce = nonce;
    }
    /**
     * A chain that continues after batches already accepted (e.g. after a page reload):
     * `nextSeq` and the last accepted `batch_hash` (`""` when `nextSeq` is 0).
     */
    static restore(nonce, nextSeq, prevBatchHash) {
        if (!Number.isSafeInteger(nextSeq) || nextSeq < 0)
            throw new IdvError("chain", "nextSeq must be a non-negative integer");
        if ((nextSeq === 0) !== (prevBatchHash === "") || !/^([0-9a-f]{64})?$/.test(prevBatchHash)) {
            throw new IdvError("chain", "prevBatchHash must be \"\" for seq 0, else 64 lowercase hex characters");
        }
        const c = new BatchChain(nonce);
        c.#nextSeq = nextSeq;
        c.#prevBatchHash = prevBatchHash;
        return c;
    }
    /** The seq the next batch will carry. */
    get nextSeq() {
        return this.#nextSeq;
    }
    /** The previous batch's hash (`""` before the first batch). */
    get prevBatchHash() {
        return this.#prevBatchHash;
    }
    /** Compute the next batch without advancing the chain (send it, then {@link commit}). */
    async peek(data) {
        const seq = this.#nextSeq;
        if (seq > MAX_BATCH_SEQ)
            throw new IdvError("chain", `a challenge takes at most ${MAX_BATCH_SEQ + 1} batches`);
        const prevBatchHash = this.#prevBatchHash;
        const dataText = serializeBatchData(data);
        const hash = await batchHash(prevBatchHash, seq, dataText);
        const plaintext = `{"nonce":${JSON.stringify(this.nonce)},"seq":${seq},"prev_batch_hash":${JSON.stringify(prevBatchHash)},` +
            `"batch_hash":"${hash}","data":${dataText}}`;
        return { seq, prevBatchHash, batchHash: hash, dataText, plaintext };
    }
    /** Advance the chain past `batch` (the server accepted it). */
    commit(batch) {
        if (batch.seq !== this.#nextSeq || batch.prevBatchHash !== this.#prevBatchHash) {
            throw new IdvError("chain", `batch seq ${batch.seq} does not continue the chain (next seq ${this.#nextSeq})`);
        }
        this.#nextSeq += 1;
        this.#prevBatchHash = batch.batchHash;
    }
    /**
     * The next batch's plaintext request as JSON text, `data` serialized once and those
     * same bytes hashed and embedded; advances the chain (as the Rust `next_plaintext`).
     */
    async nextPlaintext(data) {
        const b = await this.peek(data);
        this.commit(b);
        return b.plaintext;
    }
}
