import assert from "node:assert/strict";
import * as nc from "node:crypto";
import { test } from "node:test";
import { DeviceKeys, DeviceSession, IdvApiError, IdvError, type SessionOptions } from "../src/index.js";
import {
  DEVICE_PK8,
  SERVER_SPKI,
  b64,
  flipB64,
  nodeDevicePub,
  nodeOaepDecrypt,
  nodeOaepEncrypt,
  nodeOpen,
  nodeSeal,
  nodeServerPriv,
  nodeSignPss,
  nodeVerifyPss,
  unb64,
} from "../testlib/helpers.js";

const BASE = "https://idv.example";
const DEVICE_ID = "3b0f7d2c-0000-4000-8000-00000000d001";
const CHALLENGE = "7f0c8a44-0000-4000-8000-000000000001";
const NONCE = "cd".repeat(32);

interface Seen {
  url: string;
  headers: Record<string, string>;
  plaintext: string;
}

/**
 * A server written with node:crypto, following docs/BEHAVIOR_PROTOCOL.md: it checks the
 * Authorization shape, timestamp, Content-MD5, the PSS signature (salt 32), replays,
 * decrypts the secret key and body, keeps the batch chain, and answers encrypted.
 */
class FakeServer {
  seen: Seen[] = [];
  /** Headers of every request received, refused or not. */
  received: Record<string, string>[] = [];
  signatures = new Set<string>();
  /** Answers to give before the real one: [status, body, headers]. */
  queued: [number, string, Record<string, string>][] = [];
  lastSeq = -1;
  lastHash = "";
  tamperResponse = false;

  fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>));
    const body = new Uint8Array(init!.body as Uint8Array);
    this.received.push(headers);
    const deny = (code: string, status = 403) => new Response(JSON.stringify({ errors: [{ code, message: code }] }), { status });
    assert.equal(init?.method, "POST");
    assert.equal(headers["Content-Type"], "application/json");
    const m = /^TV ([^:]+):([^:]+):([^:]+)$/.exec(headers.Authorization ?? "");
    if (!m || m[1] !== DEVICE_ID) return deny("access_denied");
    const [, , esk, sig] = m as unknown as [string, string, string, string];
    const ts = headers["X-TV-Timestamp"] ?? "";
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(ts)) return deny("access_denied");
    const md5 = headers["X-TV-Content-MD5"];
    if (md5 !== nc.createHash("md5").update(body).digest("base64")) return deny("access_denied");
    const uri = new URL(url).pathname;
    if (!nodeVerifyPss(nodeDevicePub, `POST\n${uri}\n${ts}\n${esk}\n${md5}`, unb64(sig))) return deny("access_denied");
    if (this.signatures.has(sig)) return deny("access_denied"); // replay
    this.signatures.add(sig);
    const q = this.queued.shift();
    if (q) return new Response(q[1], { status: q[0], headers: q[2] });
    const key = nodeOaepDecrypt(nodeServerPriv, unb64(esk));
    const plaintext = new TextDecoder().decode(nodeOpen(key, (JSON.parse(new TextDecoder().decode(body)) as { data: string }).data));
    this.seen.push({ url, headers, plaintext });
    let answer: unknown;
    if (uri === "/v1/behavior/create_challenge") {
      assert.equal(headers["X-Challenge-ID"], undefined);
      answer = { data: { challenge_id: CHALLENGE, nonce: NONCE, server_public_key: b64(SERVER_SPKI) } };
    } else if (uri === "/v1/behavior/push_event_batch") {
      if (headers["X-Challenge-ID"] !== `TV ${CHALLENGE}`) return deny("invalid_challenge_id", 400);
      const v = JSON.parse(plaintext) as { nonce: string; seq: number; prev_batch_hash: string; batch_hash: string };
      if (v.nonce !== NONCE) return deny("invalid_nonce", 400);
      const at = plaintext.indexOf(',"data":');
      const raw = plaintext.slice(at + 8, -1);
      const want = nc.createHash("sha256").update(`${v.prev_batch_hash}\n${v.seq}\n`).update(raw).digest("hex");
      if (v.seq !== this.lastSeq + 1 || v.prev_batch_hash !== this.lastHash || v.batch_hash !== want) return deny("invalid_batch_events", 400);
      this.lastSeq = v.seq;
      this.lastHash = v.batch_hash;
      answer = { data: { status: "success" } };
    } else {
      return deny("not_found", 404);
    }
    const rk = new Uint8Array(nc.randomBytes(32));
    const response_key = b64(nodeOaepEncrypt(nodeDevicePub, rk));
    const data = nodeSeal(rk, JSON.stringify(answer));
    let signature = b64(nodeSignPss(nodeServerPriv, response_key + data));
    if (this.tamperResponse) signature = flipB64(signature, 10);
    return new Response(JSON.stringify({ data, response_key, signature }), { status: 200 });
  };
}

async function setup(opts: SessionOptions = {}) {
  const server = new FakeServer();
  let clock = Date.UTC(2026, 0, 1);
  const sleeps: number[] = [];
  const session = await DeviceSession.create(DEVICE_ID, await DeviceKeys.fromPkcs8(DEVICE_PK8), SERVER_SPKI, {
    fetch: server.fetch as typeof fetch,
    now: () => new Date((clock += 1000)),
    sleep: async (ms) => void sleeps.push(ms),
    ...opts,
  });
  return { server, session, sleeps };
}

test("DeviceSession: createChallenge then pushBatch x3 against a node:crypto server", async () => {
  const { server, session } = await setup();
  const ch = await session.createChallenge(BASE + "/", "s-1");
  assert.deepEqual(ch, { challengeId: CHALLENGE, nonce: NONCE, serverPublicKey: b64(SERVER_SPKI) });
  assert.equal(server.seen[0]!.url, `${BASE}/v1/behavior/create_challenge`);
  assert.equal(server.seen[0]!.plaintext, '{"session_id":"s-1"}');
  for (let i = 0; i < 3; i++) {
    const b = await session.pushBatch(BASE, ch.challengeId, { events: [{ t: i, type: "key", k: "é\n" }] });
    assert.equal(b.seq, i);
  }
  assert.equal(server.lastSeq, 2);
  assert.equal(session.chain(CHALLENGE)!.prevBatchHash, server.lastHash);
  // One encrypted_secret_key per session, every request signed anew.
  const esks = new Set(server.seen.map((s) => s.headers.Authorization!.split(":")[1]));
  assert.equal(esks.size, 1);
  assert.equal(server.signatures.size, 4);
});

test("DeviceSession: concurrent pushes of one challenge go out in order", async () => {
  const { server, session } = await setup();
  await session.createChallenge(BASE, "s-1");
  const out = await Promise.all([0, 1, 2, 3].map((i) => session.pushBatch(BASE, CHALLENGE, { events: [i] })));
  assert.deepEqual(out.map((b) => b.seq), [0, 1, 2, 3]);
  assert.deepEqual(server.seen.slice(1).map((s) => (JSON.parse(s.plaintext) as { data: unknown }).data), [0, 1, 2, 3].map((i) => ({ events: [i] })));
  assert.equal(server.lastSeq, 3);
});

test("DeviceSession: 429/503 are retried, each time with a new timestamp and signature", async () => {
  const { server, session, sleeps } = await setup();
  await session.createChallenge(BASE, "s-1");
  const before = server.signatures.size;
  const tooMany = JSON.stringify({ errors: [{ code: "rate_limit_exception", message: "slow down" }] });
  server.queued.push([429, tooMany, { "Retry-After": "2" }], [503, tooMany, {}]);
  const first = server.received.length;
  const b = await session.pushBatch(BASE, CHALLENGE, { events: [] });
  const ts = server.received.slice(first).map((h) => h["X-TV-Timestamp"]);
  assert.equal(ts.length, 3, "three sends");
  assert.equal(b.seq, 0);
  assert.equal(server.signatures.size - before, 3, "three distinct signatures (a resend would be a replay)");
  assert.equal(new Set(ts).size, 3, "three timestamps");
  assert.deepEqual(sleeps, [2000, 500], "Retry-After, then the backoff");
  assert.equal(server.lastSeq, 0);
});

test("DeviceSession: refusals surface as IdvApiError; the chain advances only on success", async () => {
  const { server, session } = await setup({ retry: { maxAttempts: 2 } });
  await session.createChallenge(BASE, "s-1");
  const err = (code: string) => JSON.stringify({ errors: [{ code, message: code }] });
  server.queued.push([400, err("invalid_batch_events"), {}]);
  await assert.rejects(session.pushBatch(BASE, CHALLENGE, { events: [] }), (e: unknown) => e instanceof IdvApiError && e.status === 400 && e.code === "invalid_batch_events" && e.attempts === 1);
  assert.equal(session.chain(CHALLENGE)!.nextSeq, 0);
  server.queued.push([429, err("rate_limit_exception"), {}], [429, err("rate_limit_exception"), {}]);
  await assert.rejects(session.pushBatch(BASE, CHALLENGE, { events: [] }), (e: unknown) => e instanceof IdvApiError && e.status === 429 && e.attempts === 2);
  server.tamperResponse = true;
  await assert.rejects(session.pushBatch(BASE, CHALLENGE, { events: [] }), (e: unknown) => e instanceof IdvError && e.kind === "response_signature");
  assert.equal(session.chain(CHALLENGE)!.nextSeq, 0, "unverified answer: not committed");
  server.tamperResponse = false;
  // The server did accept seq 0 above (its answer was tampered with in transit), so the
  // device's next try of seq 0 is refused: the caller must resync (here: resume at seq 1).
  await assert.rejects(session.pushBatch(BASE, CHALLENGE, { events: [] }), (e: unknown) => e instanceof IdvApiError && e.code === "invalid_batch_events");
  await assert.rejects(session.pushBatch(BASE, "unknown", { events: [] }), (e: unknown) => e instanceof IdvError && e.kind === "chain");
});

test("DeviceSession: rotateSecretKey changes the key and encrypted_secret_key; the server decrypts the new one", async () => {
  const { server, session } = await setup();
  const esk0 = session.encryptedSecretKey;
  const k0 = session.secretKey;
  assert.deepEqual(nodeOaepDecrypt(nodeServerPriv, unb64(esk0)), k0);
  const oldBody = await session.encryptBody("{}");
  await session.rotateSecretKey();
  assert.notEqual(session.encryptedSecretKey, esk0);
  assert.notDeepEqual(session.secretKey, k0);
  assert.deepEqual(nodeOaepDecrypt(nodeServerPriv, unb64(session.encryptedSecretKey)), session.secretKey);
  // A body under the old key does not open with the new key.
  const data = (JSON.parse(new TextDecoder().decode(oldBody)) as { data: string }).data;
  assert.throws(() => nodeOpen(session.secretKey, data));
  await session.createChallenge(BASE, "s-2");
  assert.equal(server.seen[0]!.headers.Authorization!.split(":")[1], session.encryptedSecretKey);
});

test("DeviceSession.create: refuses unusable server keys and device ids", async () => {
  const keys = await DeviceKeys.fromPkcs8(DEVICE_PK8);
  await assert.rejects(DeviceSession.create(DEVICE_ID, keys, new Uint8Array([...SERVER_SPKI, 0])), (e: unknown) => e instanceof IdvError && e.kind === "server_key");
  await assert.rejects(DeviceSession.create("a:b", keys, SERVER_SPKI), IdvError);
  const s = await DeviceSession.create(DEVICE_ID, keys, SERVER_SPKI);
  const p = await s.prepare("/v1/behavior/push_event_batch", "2026-01-01T00:00:00Z", "{}", CHALLENGE);
  assert.equal(p.headers["X-Challenge-ID"], `TV ${CHALLENGE}`);
  assert.ok(p.headers.Authorization!.startsWith(`TV ${DEVICE_ID}:${s.encryptedSecretKey}:`));
});
