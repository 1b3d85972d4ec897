import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { BatchChain, IdvError, MAX_BATCH_DATA_BYTES, batchHash, serializeBatchData } from "../src/index.js";

const H0 = "06f02a6c61151c0840cb2a2ad1f297882c4e3fcf96cb76d45e1d145f43d7ed55";

/** What the server does: take the raw `data` text of the plaintext and check the hash. */
function serverCheck(plaintext: string, prev: string, seq: number): string {
  const v = JSON.parse(plaintext) as { nonce: string; seq: number; prev_batch_hash: string; batch_hash: string; data: unknown };
  assert.deepEqual(Object.keys(v), ["nonce", "seq", "prev_batch_hash", "batch_hash", "data"]);
  assert.equal(v.seq, seq);
  assert.equal(v.prev_batch_hash, prev);
  const at = plaintext.indexOf(',"data":');
  assert.ok(at > 0 && plaintext.endsWith("}"));
  const raw = plaintext.slice(at + ',"data":'.length, -1);
  assert.deepEqual(JSON.parse(raw), v.data, "raw text is the data value");
  const want = createHash("sha256").update(`${prev}\n${seq}\n`).update(raw, "utf8").digest("hex");
  assert.equal(v.batch_hash, want);
  return want;
}

test("batchHash: the known answers of crypto/src/device.rs and client/tests/protocol.rs", async () => {
  // printf '\n0\n{"events":[]}' | sha256sum
  assert.equal(await batchHash("", 0, '{"events":[]}'), H0);
  // printf '%s\n1\n{"events":[{"t":1,"k":"x"}]}' "$h0" | sha256sum
  assert.equal(await batchHash(H0, 1, '{"events":[{"t":1,"k":"x"}]}'), "3ffc66971464e7d61206a0d006d0e60d9345f82656943216157fe53efe01d576");
  // serde_json's key order: {"k":"x","t":1}
  assert.equal(await batchHash(H0, 1, '{"events":[{"k":"x","t":1}]}'), "ea8c2e1cc9b80d087c325fd27f0a1e241169e730ac95d38c6a4ab6dc7ab9bde8");
  assert.equal(await batchHash("", 0, new TextEncoder().encode('{"events":[]}')), H0, "bytes");
  assert.notEqual(await batchHash("", 1, '{"events":[]}'), H0, "other seq");
  assert.notEqual(await batchHash("x", 0, '{"events":[]}'), H0, "other prev");
  assert.notEqual(await batchHash("", 0, '{"events": []}'), H0, "whitespace in the data text");
  await assert.rejects(batchHash("", -1, "{}"), IdvError);
  await assert.rejects(batchHash("", 1.5, "{}"), IdvError);
});

test("BatchChain: the Rust client's known answer, byte for byte", async () => {
  const nonce = "ab".repeat(32);
  const c = new BatchChain(nonce);
  assert.deepEqual([c.nextSeq, c.prevBatchHash], [0, ""]);
  const p0 = await c.nextPlaintext({ events: [] });
  assert.equal(p0, `{"nonce":"${nonce}","seq":0,"prev_batch_hash":"","batch_hash":"${H0}","data":{"events":[]}}`);
  assert.deepEqual([c.nextSeq, c.prevBatchHash], [1, H0]);
  const p1 = await c.nextPlaintext({ events: [{ k: "x", t: 1 }] });
  const v1 = JSON.parse(p1) as { prev_batch_hash: string; batch_hash: string };
  assert.equal(v1.prev_batch_hash, H0);
  assert.equal(v1.batch_hash, "ea8c2e1cc9b80d087c325fd27f0a1e241169e730ac95d38c6a4ab6dc7ab9bde8");
  assert.ok(p1.endsWith('"data":{"events":[{"k":"x","t":1}]}}'));
  // Exact JSON text is embedded as given (key order kept).
  const c2 = new BatchChain(nonce);
  await c2.nextPlaintext('{"events":[]}');
  const q1 = await c2.nextPlaintext('{"events":[{"t":1,"k":"x"}]}');
  assert.equal((JSON.parse(q1) as { batch_hash: string }).batch_hash, "3ffc66971464e7d61206a0d006d0e60d9345f82656943216157fe53efe01d576");
  assert.ok(q1.endsWith('"data":{"events":[{"t":1,"k":"x"}]}}'));
});

test("BatchChain: the server-side check passes for awkward data (escapes, unicode, numbers, raw text)", async () => {
  const c = new BatchChain("n");
  const datas: (object | string)[] = [
    { events: [] },
    { events: [{ type: "touch", x: 1.5, y: -2e-7, t: 1_700_000_000_123 }] },
    { events: [{ text: 'é ✓ "quoted" \\ \n\u0001 \u2028 \u{1F600}' }], meta: { z: 1, a: [null, true] } },
    '{ "events" : [ 1e3, 0.10 ], "s": "\\u00e9" }',
  ];
  let prev = "";
  for (const [seq, d] of datas.entries()) {
    const p = await c.nextPlaintext(d);
    prev = serverCheck(p, prev, seq);
    assert.equal(c.prevBatchHash, prev);
  }
  assert.equal(c.nextSeq, 4);
});

test("BatchChain: peek does not advance; commit only in order", async () => {
  const c = new BatchChain("n");
  const a = await c.peek({ events: [] });
  const again = await c.peek({ events: [] });
  assert.equal(a.seq, 0);
  assert.equal(a.batchHash, again.batchHash);
  assert.equal(c.nextSeq, 0);
  c.commit(a);
  assert.deepEqual([c.nextSeq, c.prevBatchHash], [1, a.batchHash]);
  assert.throws(() => c.commit(again), (e: unknown) => e instanceof IdvError && e.kind === "chain", "stale batch");
  const b = await c.peek({ events: [1] });
  assert.equal(b.prevBatchHash, a.batchHash);
  assert.equal(b.seq, 1);
});

test("serializeBatchData: data must be one JSON object of at most 1 MiB", () => {
  assert.equal(serializeBatchData({ b: 1, a: [2] }), '{"b":1,"a":[2]}');
  assert.equal(serializeBatchData(' {"a":1} '), ' {"a":1} ');
  for (const bad of ["[1]", "1", "null", '"s"', "{", "", [1, 2]] as (object | string)[]) {
    assert.throws(() => serializeBatchData(bad), IdvError, JSON.stringify(bad));
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => serializeBatchData(cyclic), IdvError);
  assert.throws(() => serializeBatchData({ big: 1n } as object), IdvError);
  const big = { s: "x".repeat(MAX_BATCH_DATA_BYTES) };
  assert.throws(() => serializeBatchData(big), IdvError);
  assert.doesNotThrow(() => serializeBatchData({ s: "x".repeat(MAX_BATCH_DATA_BYTES - 10) }));
});

test("BatchChain.restore: continues a chain exactly where it stopped", async () => {
  const a = new BatchChain("n");
  await a.nextPlaintext({ events: [] });
  await a.nextPlaintext({ events: [1] });
  const b = BatchChain.restore("n", a.nextSeq, a.prevBatchHash);
  assert.equal(await b.nextPlaintext({ events: [2] }), await a.nextPlaintext({ events: [2] }));
  assert.throws(() => BatchChain.restore("n", 0, H0), IdvError);
  assert.throws(() => BatchChain.restore("n", 1, ""), IdvError);
  assert.throws(() => BatchChain.restore("n", 1, H0.toUpperCase()), IdvError);
  assert.throws(() => BatchChain.restore("n", -1, H0), IdvError);
  // seq must stay below 256 (the server refuses more with invalid_batch_events).
  const last = BatchChain.restore("n", 255, H0);
  assert.equal((await last.peek({})).seq, 255);
  await last.nextPlaintext({});
  await assert.rejects(last.peek({}), (e: unknown) => e instanceof IdvError && e.kind === "chain");
});
