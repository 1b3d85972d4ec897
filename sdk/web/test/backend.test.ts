import assert from "node:assert/strict";
import * as nc from "node:crypto";
import { test } from "node:test";
import {
  AccessKeyClient,
  IdvApiError,
  IdvError,
  RefusedError,
  accessKeyHeaders,
  accessKeySignature,
  contentMd5,
  hmacSha256,
  hexEncode,
  rfc3339Millis,
  stringToSignAccessKey,
  type AccessKeyClientOptions,
} from "../src/index.js";

// ---------------------------------------------------------------------------------------
// Known answers of crypto/src/access_key.rs (computed there independently with Python's
// hmac and hashlib modules and the OpenSSL CLI), reproduced byte for byte.

const K = "secret-key-123";
const TS = "2026-11-23T21:04:05+07:00";
const BODY = '{"cus_user_id":"u1"}';

test("request headers: the Rust request_headers known answer", async () => {
  const h = await accessKeyHeaders("ak-1", K, "POST", "/v1/face_auth_user", TS, BODY);
  assert.deepEqual(h, {
    Authorization: "TV ak-1:TaLbyw9Bwgh6JmvY5ajVQmm9EnT7ipEdxSQ4sWik8Vc=",
    "X-TV-Timestamp": TS,
    "X-TV-Content-MD5": "SvFJ6dOnp+XYoforoVCYxA==",
  });
  // The same through the client, with the secret as bytes and the body as bytes.
  const client = new AccessKeyClient("https://idv.example", "ak-1", new TextEncoder().encode(K));
  assert.deepEqual(await client.sign("POST", "/v1/face_auth_user", new TextEncoder().encode(BODY), TS), h);
  assert.deepEqual(await client.sign("post", "/v1/face_auth_user", BODY, TS), h, "the method is sent and signed upper case");
});

test("signature: the Rust sign known answers (four-line form, empty Content-MD5)", async () => {
  assert.equal(await accessKeySignature(K, "POST", "/v1/face_auth", TS, ""), "z385caxoqjPqaT40N+31OnM4zUJbgia/MbmETs3U3Q8=");
  // signature_known_answer: printf 'POST\n/v1/face_auth\n2026-01-01T00:00:00Z\n' | openssl dgst -sha256 -hmac secret -binary | base64
  assert.equal(await accessKeySignature("secret", "POST", "/v1/face_auth", "2026-01-01T00:00:00Z", ""), "2lwZ7/kfWRCkSkOQiIc/sURbgz5QIVG1BMhybEj7yGM=");
  // The client signs the four-line form, never the three-line one the server also accepts.
  assert.notEqual(await accessKeySignature(K, "POST", "/v1/face_auth", TS, ""), "BrQIKQLNarSrIla+W3khSBdxzH/bpQJ70s+Twd8bKmo=");
  assert.equal(stringToSignAccessKey("POST", "/v1/x", "t", "m"), "POST\n/v1/x\nt\nm");
  assert.equal(stringToSignAccessKey("POST", "/v1/x", "t", ""), "POST\n/v1/x\nt\n");
  assert.equal(contentMd5(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
});

test("HMAC-SHA-256: RFC 4231 test cases 1, 2 and 6", async () => {
  assert.equal(hexEncode(await hmacSha256(new Uint8Array(20).fill(0x0b), "Hi There")), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  assert.equal(hexEncode(await hmacSha256("Jefe", "what do ya want for nothing?")), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  assert.equal(
    hexEncode(await hmacSha256(new Uint8Array(131).fill(0xaa), "Test Using Larger Than Block-Size Key - Hash Key First")),
    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
  );
});

test("must-fail: another body, path, key, method, timestamp or key id signs differently", async () => {
  const base = await accessKeyHeaders("ak-1", K, "POST", "/v1/face_auth_user", TS, BODY);
  const others = [
    await accessKeyHeaders("ak-1", K, "POST", "/v1/face_auth_user", TS, "{}"),
    await accessKeyHeaders("ak-1", K, "POST", "/v1/face_auth", TS, BODY),
    await accessKeyHeaders("ak-1", "other", "POST", "/v1/face_auth_user", TS, BODY),
    await accessKeyHeaders("ak-1", K, "GET", "/v1/face_auth_user", TS, BODY),
    await accessKeyHeaders("ak-1", K, "POST", "/v1/face_auth_user", "2026-11-23T21:04:06+07:00", BODY),
    await accessKeyHeaders("ak-1", K, "POST", "/api/v1/face_auth_user", TS, BODY),
  ];
  for (const o of others) assert.notEqual(o.Authorization, base.Authorization);
  assert.notEqual((await accessKeyHeaders("ak-2", K, "POST", "/v1/face_auth_user", TS, BODY)).Authorization, base.Authorization);
  // must_fail_vectors of access_key.rs: every input is covered.
  const sig = await accessKeySignature("secret", "POST", "/v1/x", "t", "m");
  for (const other of [
    await accessKeySignature("secreT", "POST", "/v1/x", "t", "m"),
    await accessKeySignature("secret", "GET", "/v1/x", "t", "m"),
    await accessKeySignature("secret", "POST", "/api/v1/x", "t", "m"),
    await accessKeySignature("secret", "POST", "/v1/x", "t2", "m"),
    await accessKeySignature("secret", "POST", "/v1/x", "t", ""),
  ]) {
    assert.notEqual(other, sig);
  }
  // And each verifies with node:crypto (an HMAC written independently of WebCrypto).
  assert.equal(sig, nc.createHmac("sha256", "secret").update("POST\n/v1/x\nt\nm").digest("base64"));
});

test("bad inputs: key ids with ':' or empty, empty secrets, maxAttempts < 1, relative paths", async () => {
  assert.throws(() => new AccessKeyClient("https://x", "a:b", K), IdvError);
  assert.throws(() => new AccessKeyClient("https://x", "", K), IdvError);
  assert.throws(() => new AccessKeyClient("https://x", "ak", ""), IdvError);
  assert.throws(() => new AccessKeyClient("https://x", "ak", K, { maxAttempts: 0 }), RangeError);
  await assert.rejects(accessKeyHeaders("a:b", K, "POST", "/v1/x", TS, ""), IdvError);
  const client = new AccessKeyClient("https://x", "ak", K, { fetch: async () => assert.fail("nothing is sent") });
  await assert.rejects(client.post("v1/x", {}), IdvError);
});

// ---------------------------------------------------------------------------------------
// A server played with node:crypto (docs/API.md, Access Key): it checks the headers, the
// Content-MD5 against the body received, the signature, and replays (the same signature
// over the same body twice), then answers what the test scripted.

interface Received {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array;
  timestamp: string;
  signature: string;
}

type Reply = { status: number; body?: string | Uint8Array; headers?: Record<string, string> };

class FakeServer {
  received: Received[] = [];
  seen = new Set<string>();
  constructor(
    readonly script: Reply[],
    readonly secret = K,
  ) {}

  fetch: typeof fetch = async (input, init) => {
    const url = String(input);
    const method = init?.method ?? "GET";
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const body = init?.body === undefined || init.body === null ? new Uint8Array(0) : new Uint8Array(init.body as Uint8Array);
    const auth = /^TV ([^:]+):([^:]+)$/.exec(headers["authorization"] ?? "");
    assert.ok(auth, `Authorization shape: ${headers["authorization"]}`);
    const timestamp = headers["x-tv-timestamp"] ?? "";
    assert.ok(!Number.isNaN(Date.parse(timestamp)) && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(timestamp), timestamp);
    const md5 = nc.createHash("md5").update(body).digest("base64");
    assert.equal(headers["x-tv-content-md5"], md5, "Content-MD5 is the MD5 of the bytes received");
    const uri = new URL(url).pathname + new URL(url).search;
    const expected = nc.createHmac("sha256", this.secret).update(`${method}\n${uri}\n${timestamp}\n${md5}`).digest("base64");
    this.received.push({ url, method, headers, body, timestamp, signature: auth[2]! });
    const key = auth[2]! + "|" + nc.createHash("sha256").update(body).digest("hex");
    if (auth[2] !== expected || this.seen.has(key)) {
      return new Response(JSON.stringify({ data: null, errors: [{ code: "access_denied_exception", message: "access denied" }] }), { status: 401 });
    }
    this.seen.add(key);
    const reply = this.script.shift();
    assert.ok(reply, "no more scripted replies");
    return new Response(reply.body === undefined ? null : (reply.body as BodyInit), { status: reply.status, headers: reply.headers ?? { "content-type": "application/json" } });
  };
}

/** A clock that moves `stepMs` further at every reading, and a sleep that only records. */
function harness(server: FakeServer, stepMs = 1000, extra: AccessKeyClientOptions = {}) {
  let t = Date.parse("2026-01-01T00:00:00Z");
  const slept: number[] = [];
  const client = new AccessKeyClient("https://idv.example/", "ak-1", K, {
    fetch: server.fetch,
    now: () => {
      const d = new Date(t);
      t += stepMs;
      return d;
    },
    sleep: async (ms) => {
      slept.push(ms);
    },
    ...extra,
  });
  return { client, slept };
}

const OK = (data: object) => ({ status: 200, body: JSON.stringify({ data, errors: [] }) });
const ERR = (status: number, code: string, headers?: Record<string, string>): Reply => ({
  status,
  body: JSON.stringify({ data: null, errors: [{ code, message: code }] }),
  headers: { "content-type": "application/json", ...headers },
});

test("post: signed JSON body, parsed answer, one attempt", async () => {
  const server = new FakeServer([OK({ status: "success", verdict: "not_registered" })]);
  const { client, slept } = harness(server);
  const answer = await client.post<{ data: { verdict: string } }>("/v1/face_auth_user", { cus_user_id: "u1" });
  assert.equal(answer.attempts, 1);
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data.verdict, "not_registered");
  assert.deepEqual(slept, []);
  const [r] = server.received;
  assert.equal(r!.url, "https://idv.example/v1/face_auth_user", "the base URL's trailing slash is dropped");
  assert.equal(r!.method, "POST");
  assert.equal(r!.headers["content-type"], "application/json");
  assert.equal(new TextDecoder().decode(r!.body), BODY, "serialized once: the bytes signed are the bytes sent");
  assert.equal(r!.timestamp, "2026-01-01T00:00:00.000Z");
});

test("a 429 with Retry-After, then 200: two attempts, the second signed anew with the later timestamp", async () => {
  const server = new FakeServer([ERR(429, "rate_limit_exception", { "retry-after": "2" }), OK({ status: "success" })]);
  const { client, slept } = harness(server);
  const answer = await client.call("/v1/face_auth_user", { cus_user_id: "u1" });
  assert.equal(answer.attempts, 2);
  assert.deepEqual(slept, [2000], "Retry-After seconds are honoured");
  const [first, second] = server.received;
  assert.equal(server.received.length, 2);
  assert.ok(Date.parse(second!.timestamp) > Date.parse(first!.timestamp), `${first!.timestamp} then ${second!.timestamp}`);
  assert.notEqual(second!.signature, first!.signature);
  assert.deepEqual(second!.body, first!.body, "the same body bytes again");
});

test("a retry within the same second is no replay (millisecond timestamps)", async () => {
  // The first send is accepted (and so claimed) and then answered 503 without
  // Retry-After, as an instance that is shutting down does; the retry comes 250 ms later.
  const server = new FakeServer([ERR(503, "service_unavailable"), OK({ status: "success" })]);
  const { client, slept } = harness(server, 250);
  const answer = await client.post("/v1/face_auth_user", { cus_user_id: "u1" });
  assert.equal(answer.attempts, 2);
  assert.deepEqual(slept, [250]);
  assert.deepEqual(server.received.map((r) => r.timestamp), ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.250Z"]);
  assert.equal(rfc3339Millis(new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 250))), "2026-01-01T00:00:00.250Z");
});

test("503 every time: RefusedError after maxAttempts, exponential backoff, each send signed anew", async () => {
  const server = new FakeServer([ERR(503, "service_unavailable"), ERR(503, "service_unavailable"), ERR(503, "service_unavailable")]);
  const { client, slept } = harness(server, 1000, { maxAttempts: 3 });
  const err = await client.post("/v1/face_auth", { cus_user_id: "u1" }).then(
    () => assert.fail("expected a refusal"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RefusedError, String(err));
  assert.ok(err instanceof IdvApiError, "a RefusedError is an IdvApiError");
  assert.equal(err.status, 503);
  assert.equal(err.code, "service_unavailable");
  assert.equal(err.attempts, 3);
  assert.deepEqual(err.errors, [{ code: "service_unavailable", message: "service_unavailable" }]);
  assert.deepEqual(err.body, { data: null, errors: [{ code: "service_unavailable", message: "service_unavailable" }] });
  assert.match(err.message, /HTTP 503 service_unavailable after 3 attempt/);
  assert.deepEqual(slept, [250, 500]);
  assert.equal(new Set(server.received.map((r) => r.signature)).size, 3);
});

test("backoff and Retry-After are capped at maxDelayMs; unreadable Retry-After falls back to the backoff", async () => {
  const replies = [
    ERR(429, "rate_limit_exception", { "retry-after": "60" }),
    ERR(429, "rate_limit_exception", { "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }),
    ERR(429, "rate_limit_exception", { "retry-after": "soon" }),
    ERR(429, "rate_limit_exception", { "retry-after": " 1 " }),
    ERR(503, "service_unavailable"),
  ];
  const server = new FakeServer(replies);
  const { client, slept } = harness(server, 1000, { retry: { maxAttempts: 5, firstDelayMs: 100, maxDelayMs: 300 } });
  const err = await client.post("/v1/face_auth", {}).catch((e: unknown) => e);
  assert.ok(err instanceof RefusedError);
  assert.equal(err.attempts, 5);
  // 60 s capped to 300; the date and "soon" use the backoff (200, then 300 capped); " 1 " is 1 s capped.
  assert.deepEqual(slept, [300, 200, 300, 300]);
});

test("400 is not retried: RefusedError with its code at once", async () => {
  const server = new FakeServer([ERR(400, "invalid_parameter_exception")]);
  const { client, slept } = harness(server);
  const err = await client.post("/v1/face_auth", { cus_user_id: "" }).catch((e: unknown) => e);
  assert.ok(err instanceof RefusedError);
  assert.deepEqual([err.status, err.code, err.attempts], [400, "invalid_parameter_exception", 1]);
  assert.deepEqual(slept, []);
  assert.equal(server.received.length, 1);
});

test("a wrong secret: 401 access_denied_exception, not retried", async () => {
  const server = new FakeServer([OK({})], "the-real-secret");
  const { client } = harness(server);
  const err = await client.post("/v1/face_auth", {}).catch((e: unknown) => e);
  assert.ok(err instanceof RefusedError);
  assert.deepEqual([err.status, err.code, err.attempts], [401, "access_denied_exception", 1]);
});

test("non-JSON bodies: refusals keep the text, retries still happen, a 200 that is not JSON is malformed", async () => {
  const html = "<html><body>502 Bad Gateway</body></html>";
  {
    const server = new FakeServer([{ status: 502, body: html, headers: { "content-type": "text/html" } }]);
    const err = await harness(server).client.post("/v1/face_auth", {}).catch((e: unknown) => e);
    assert.ok(err instanceof RefusedError);
    assert.deepEqual([err.status, err.code, err.attempts, err.body, err.text, err.errors], [502, "", 1, null, html, []]);
  }
  {
    const server = new FakeServer([
      { status: 503, body: html, headers: { "content-type": "text/html" } },
      { status: 503, body: new Uint8Array([0xff, 0xfe, 0x00]) },
    ]);
    const err = await harness(server, 1000, { maxAttempts: 2 }).client.post("/v1/face_auth", {}).catch((e: unknown) => e);
    assert.ok(err instanceof RefusedError);
    assert.deepEqual([err.status, err.code, err.attempts, err.body], [503, "", 2, null]);
  }
  {
    const server = new FakeServer([{ status: 200, body: "" }]);
    const err = await harness(server).client.post("/v1/face_auth", {}).catch((e: unknown) => e);
    assert.ok(err instanceof IdvError && err.kind === "malformed", String(err));
  }
});

test("body forms: a string is sent as the exact JSON text, bytes as they are", async () => {
  const text = '{ "cus_user_id" : "u1" }';
  const server = new FakeServer([OK({}), OK({})]);
  const { client } = harness(server);
  await client.post("/api/v1/face_auth_user", text);
  await client.post("/api/v1/face_auth_user", new TextEncoder().encode(text));
  for (const r of server.received) {
    assert.equal(new TextDecoder().decode(r.body), text);
    assert.equal(r.url, "https://idv.example/api/v1/face_auth_user", "the prefix is part of the signed path");
  }
  await assert.rejects(client.post("/v1/x", undefined), IdvError);
});

test("get: signed over GET and the empty body, no body sent, the bytes answered as they are", async () => {
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]);
  const server = new FakeServer([ERR(429, "rate_limit_exception", { "retry-after": "1" }), { status: 200, body: jpeg, headers: { "content-type": "image/jpeg" } }]);
  const { client, slept } = harness(server);
  const answer = await client.get("/v1/images/img-1");
  assert.deepEqual(answer.bytes, jpeg);
  assert.equal(answer.contentType, "image/jpeg");
  assert.equal(answer.attempts, 2);
  assert.deepEqual(slept, [1000]);
  for (const r of server.received) {
    assert.equal(r.method, "GET");
    assert.equal(r.body.length, 0);
    assert.equal(r.headers["content-type"], undefined);
    assert.equal(r.headers["x-tv-content-md5"], "1B2M2Y8AsgTpgAmY7PhCfg==");
  }
});

test("request: PATCH with a JSON body (method upper-cased before signing and sending)", async () => {
  const server = new FakeServer([OK({ id: "img-1", label: "x" })]);
  const { client } = harness(server);
  const answer = await client.request<{ data: { label: string } }>("patch", "/v1/images/img-1", { label: "x" });
  assert.equal(answer.body.data.label, "x");
  assert.equal(server.received[0]!.method, "PATCH");
});

test("network failures are fetch's own errors and are not retried", async () => {
  let calls = 0;
  const client = new AccessKeyClient("https://idv.example", "ak-1", K, {
    fetch: async () => {
      calls++;
      throw new TypeError("fetch failed");
    },
  });
  await assert.rejects(client.post("/v1/face_auth", {}), TypeError);
  assert.equal(calls, 1);
});
