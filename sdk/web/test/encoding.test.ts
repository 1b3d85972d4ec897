import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { base64Decode, base64Encode, hexDecode, hexEncode } from "../src/index.js";

test("base64: matches Buffer for every length 0..300 and round-trips", () => {
  for (let n = 0; n <= 300; n++) {
    const data = new Uint8Array(randomBytes(n));
    const enc = base64Encode(data);
    assert.equal(enc, Buffer.from(data).toString("base64"), `length ${n}`);
    assert.deepEqual(base64Decode(enc), data, `decode length ${n}`);
  }
  assert.equal(base64Encode(new Uint8Array([0xfb, 0xff])), "+/8=");
});

test("base64: strict decoding refuses what the server's decoder refuses", () => {
  for (const bad of ["not base64!", "QUJD\n", "QUJ", "QU=D", "QUI=QUJD", "QR==", "QUJ=", "-_8=", "QUJD====", "Q==="]) {
    assert.throws(() => base64Decode(bad), TypeError, JSON.stringify(bad));
  }
  assert.deepEqual(base64Decode(""), new Uint8Array(0));
  assert.deepEqual(base64Decode("QQ=="), new Uint8Array([0x41]));
  assert.deepEqual(base64Decode("QUI="), new Uint8Array([0x41, 0x42]));
});

test("hex: lowercase out, either case in, malformed refused", () => {
  assert.equal(hexEncode(new Uint8Array([0, 0xab, 0xff])), "00abff");
  assert.deepEqual(hexDecode("00ABff"), new Uint8Array([0, 0xab, 0xff]));
  assert.throws(() => hexDecode("abc"), TypeError);
  assert.throws(() => hexDecode("zz"), TypeError);
});
