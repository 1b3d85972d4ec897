import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { test } from "node:test";
import { contentMd5, hexEncode, md5 } from "../src/index.js";

test("md5: RFC 1321 appendix A.5 test suite", () => {
  const suite: [string, string][] = [
    ["", "d41d8cd98f00b204e9800998ecf8427e"],
    ["a", "0cc175b9c0f1b6a831c399e269772661"],
    ["abc", "900150983cd24fb0d6963f7d28e17f72"],
    ["message digest", "f96b697d7cb7938d525a2f31aaf161d0"],
    ["abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"],
    ["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"],
    ["12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"],
  ];
  for (const [input, want] of suite) {
    assert.equal(hexEncode(md5(input)), want, JSON.stringify(input));
    assert.equal(hexEncode(md5(new TextEncoder().encode(input))), want, `bytes of ${JSON.stringify(input)}`);
  }
});

test("md5: every length around the padding boundaries, and 1 MiB, match node:crypto", () => {
  const lengths = [...Array.from({ length: 200 }, (_, i) => i), 1000, 4095, 4096, 4097, (1 << 20) + 3];
  for (const n of lengths) {
    const data = new Uint8Array(randomBytes(n));
    assert.equal(hexEncode(md5(data)), createHash("md5").update(data).digest("hex"), `length ${n}`);
  }
});

test("md5: strings are hashed as UTF-8", () => {
  const s = 'é ✓ "quoted" \u{1F600}';
  assert.equal(hexEncode(md5(s)), createHash("md5").update(s, "utf8").digest("hex"));
});

test("contentMd5: base64 of the digest (values from `openssl md5 -binary | base64`)", () => {
  assert.equal(contentMd5(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  assert.equal(contentMd5("{}"), "mZFLkyvTelC5g8XnyQrpOw==");
  assert.equal(contentMd5('{"session_id":"s-1"}'), "+F6IrelgYXZ/hzaIJuk0BQ==");
  assert.notEqual(contentMd5('{"session_id":"s-1"} '), "+F6IrelgYXZ/hzaIJuk0BQ==");
});
