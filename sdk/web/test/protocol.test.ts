import assert from "node:assert/strict";
import * as nc from "node:crypto";
import { test } from "node:test";
import {
  IdvApiError,
  IdvError,
  DeviceKeys,
  authorizationHeader,
  challengeIdHeader,
  contentMd5,
  decryptBody,
  encryptBody,
  encryptSecretKey,
  hexDecode,
  importDevicePrivateKey,
  importRsaPublicKey,
  oaepDecrypt,
  openB64,
  openResponse,
  prepare,
  rfc3339,
  sealB64,
  signPss,
  signRequest,
  stringToSignDevice,
  stringToSignResponse,
  verifyPss,
} from "../src/index.js";
import {
  DEVICE_PK8,
  DEVICE_SPKI,
  K32,
  SERVER_PK8,
  SERVER_SPKI,
  b64,
  bytes,
  flipB64,
  manualOaepSha256Decode,
  manualPssSaltLength,
  nodeDevicePriv,
  nodeDevicePub,
  nodeOaepDecrypt,
  nodeOaepEncrypt,
  nodeOpen,
  nodeSeal,
  nodeServerPriv,
  nodeServerPub,
  nodeSignPss,
  nodeVerifyPss,
  text,
  unb64,
} from "../testlib/helpers.js";

const ESK_OK = text("esk_ok.b64");
const SIG_DEVICE_OK = text("sig_device_ok.b64");
const BODY_ENCRYPTED = text("body_encrypted.b64");
const DPK_ENCRYPTED = text("dpk_encrypted.b64");
// The request of sig_device_ok.b64 (make_vectors.sh).
const V_URI = "/v1/behavior/challenges";
const V_TS = "2026-01-01T00:00:00Z";
const V_MD5 = "q1Ybkpk0ubXWX+0YnSEhqg==";

const device = () => importDevicePrivateKey(DEVICE_PK8);
const serverPub = () => importRsaPublicKey(SERVER_SPKI);
const devicePub = () => importRsaPublicKey(DEVICE_SPKI);

async function rejectsKind(p: Promise<unknown>, kind: string, msg?: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof IdvError && e.kind === kind, msg);
}

// ----- string to sign, headers

test("stringToSignDevice: the Rust known answer, no trailing newline", () => {
  assert.equal(stringToSignDevice("POST", "/v1/x?a=1", "2026-01-01T00:00:00Z", "RVNL", "MD5="), "POST\n/v1/x?a=1\n2026-01-01T00:00:00Z\nRVNL\nMD5=");
  assert.equal(stringToSignResponse("RK==", "DATA"), "RK==DATA");
});

test("headers: Authorization, X-Challenge-ID, X-TV-Timestamp formats", () => {
  assert.equal(authorizationHeader("cud-1", "ESK=", "SIG=="), "TV cud-1:ESK=:SIG==");
  assert.throws(() => authorizationHeader("", "e", "s"), IdvError);
  assert.throws(() => authorizationHeader("a:b", "e", "s"), IdvError);
  assert.equal(challengeIdHeader("7F0C8A44-0000-4000-8000-000000000001"), "TV 7F0C8A44-0000-4000-8000-000000000001");
  assert.throws(() => challengeIdHeader("a b"), IdvError);
  assert.throws(() => challengeIdHeader(""), IdvError);
  assert.equal(rfc3339(new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 987))), "2026-01-01T00:00:00Z");
  assert.match(rfc3339(), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});

// ----- RSA-PSS device signatures

test("PSS: the OpenSSL device signature vector verifies; the must-fail vectors do not", async () => {
  const pub = await devicePub();
  const sts = stringToSignDevice("POST", V_URI, V_TS, ESK_OK, V_MD5);
  assert.equal(await verifyPss(pub.verify, sts, unb64(SIG_DEVICE_OK)), true);
  const no = async (s: string, sig: Uint8Array, why: string, key = pub.verify) => assert.equal(await verifyPss(key, s, sig), false, why);
  await no(sts, unb64(text("sig_device_salt20.b64")), "salt 20");
  await no(sts, unb64(text("sig_device_pkcs1v15.b64")), "PKCS#1 v1.5");
  await no(stringToSignDevice("GET", V_URI, V_TS, ESK_OK, V_MD5), unb64(SIG_DEVICE_OK), "other method");
  await no(stringToSignDevice("POST", "/api" + V_URI, V_TS, ESK_OK, V_MD5), unb64(SIG_DEVICE_OK), "other uri");
  await no(stringToSignDevice("POST", V_URI, "2026-01-01T00:00:01Z", ESK_OK, V_MD5), unb64(SIG_DEVICE_OK), "other timestamp");
  await no(stringToSignDevice("POST", V_URI, V_TS, text("esk_sha1.b64"), V_MD5), unb64(SIG_DEVICE_OK), "other esk");
  await no(stringToSignDevice("POST", V_URI, V_TS, ESK_OK, ""), unb64(SIG_DEVICE_OK), "md5 dropped");
  await no(sts + "\n", unb64(SIG_DEVICE_OK), "trailing newline");
  await no(sts, unb64(flipB64(SIG_DEVICE_OK, 128)), "flipped bit");
  await no(sts, unb64(SIG_DEVICE_OK).subarray(0, 255), "truncated");
  await no(sts, new Uint8Array(0), "empty");
  await no(sts, unb64(SIG_DEVICE_OK), "server key", (await serverPub()).verify);
});

test("PSS: our signatures are SHA-256 / MGF1-SHA-256 / salt 32 (node:crypto and a hand decode agree)", async () => {
  const keys = await device();
  const sts = stringToSignDevice("POST", V_URI, V_TS, ESK_OK, V_MD5);
  const sig = await signPss(keys.sign, sts);
  assert.equal(sig.length, 256);
  assert.equal(nodeVerifyPss(nodeDevicePub, sts, sig, 32), true, "node, salt 32");
  assert.equal(nodeVerifyPss(nodeDevicePub, sts, sig, 20), false, "node, salt 20");
  assert.equal(manualPssSaltLength(nodeDevicePub, sts, sig), 32, "EMSA-PSS decoded by hand");
  // The openssl vector decodes the same way (checks the hand decoder itself).
  assert.equal(manualPssSaltLength(nodeDevicePub, sts, unb64(SIG_DEVICE_OK)), 32);
  assert.equal(manualPssSaltLength(nodeDevicePub, sts, unb64(text("sig_device_salt20.b64"))), 20);
  assert.notDeepEqual(await signPss(keys.sign, sts), sig, "PSS is randomized");
  assert.equal(await verifyPss((await devicePub()).verify, sts, sig), true);
});

test("signRequest: a fixed request's headers; the signature verifies over the documented string", async () => {
  const keys = await device();
  const body = '{"data":"AAAA"}';
  const ctx = { customerUserDeviceId: "cud-1", signKey: keys.sign, encryptedSecretKey: ESK_OK };
  const h = await signRequest(ctx, "POST", "/v1/behavior/create_challenge?x=1", V_TS, body);
  assert.deepEqual(Object.keys(h).sort(), ["Authorization", "X-TV-Content-MD5", "X-TV-Timestamp"]);
  assert.equal(h["X-TV-Timestamp"], V_TS);
  assert.equal(h["X-TV-Content-MD5"], nc.createHash("md5").update(body).digest("base64"));
  const m = /^TV cud-1:([^:]+):([^:]+)$/.exec(h.Authorization!);
  assert.ok(m, h.Authorization);
  assert.equal(m[1], ESK_OK);
  const sts = `POST\n/v1/behavior/create_challenge?x=1\n${V_TS}\n${ESK_OK}\n${h["X-TV-Content-MD5"]}`;
  assert.equal(nodeVerifyPss(nodeDevicePub, sts, unb64(m[2]!)), true);
  assert.equal(nodeVerifyPss(nodeDevicePub, sts.replace("?x=1", ""), unb64(m[2]!)), false, "query is signed");
  const hc = await signRequest(ctx, "POST", "/v1/behavior/push_event_batch", V_TS, body, "c-1");
  assert.equal(hc["X-Challenge-ID"], "TV c-1");
});

// ----- RSA-OAEP

test("OAEP: esk_ok.b64 (openssl) decrypts with the server key to 00..1f; must-fail vectors do not decrypt", async () => {
  const server = await importDevicePrivateKey(SERVER_PK8);
  assert.deepEqual(await oaepDecrypt(server.decrypt, unb64(ESK_OK)), K32);
  for (const name of ["esk_sha1.b64", "esk_mgf1_sha1.b64", "esk_label.b64", "esk_pkcs1v15.b64", "esk_other_key.b64"]) {
    await assert.rejects(oaepDecrypt(server.decrypt, unb64(text(name))), name);
  }
  for (const at of [0, 100, 255]) await assert.rejects(oaepDecrypt(server.decrypt, unb64(flipB64(ESK_OK, at))), `tampered at ${at}`);
  assert.equal((await oaepDecrypt(server.decrypt, unb64(text("esk_len16.b64")))).length, 16);
  assert.equal((await oaepDecrypt(server.decrypt, unb64(text("esk_len33.b64")))).length, 33);
  // esk_other_key is to the device key: it opens there.
  assert.deepEqual(await oaepDecrypt((await device()).decrypt, unb64(text("esk_other_key.b64"))), K32);
});

test("OAEP: encryptSecretKey output is OAEP-SHA-256 with MGF1-SHA-256 and an empty label, only", async () => {
  const server = await serverPub();
  const { secretKey, encryptedSecretKey } = await encryptSecretKey(server.encrypt);
  assert.equal(secretKey.length, 32);
  const ct = unb64(encryptedSecretKey);
  assert.equal(ct.length, 256);
  assert.deepEqual(nodeOaepDecrypt(nodeServerPriv, ct, "sha256"), secretKey, "node OAEP-SHA-256");
  assert.deepEqual(manualOaepSha256Decode(nodeServerPriv, ct), secretKey, "hand decode: SHA-256, MGF1-SHA-256, empty label");
  assert.throws(() => nodeOaepDecrypt(nodeServerPriv, ct, "sha1"), "not OAEP-SHA-1");
  const sha1Key = await nc.webcrypto.subtle.importKey("pkcs8", SERVER_PK8, { name: "RSA-OAEP", hash: "SHA-1" }, false, ["decrypt"]);
  await assert.rejects(nc.webcrypto.subtle.decrypt({ name: "RSA-OAEP" }, sha1Key, ct), "not decryptable as OAEP-SHA-1");
  // The hand decoder refuses the MGF1-SHA-1 and labelled vectors (checks the decoder).
  assert.throws(() => manualOaepSha256Decode(nodeServerPriv, unb64(text("esk_mgf1_sha1.b64"))));
  assert.throws(() => manualOaepSha256Decode(nodeServerPriv, unb64(text("esk_label.b64"))));
  assert.throws(() => manualOaepSha256Decode(nodeServerPriv, unb64(text("esk_pkcs1v15.b64"))));
  assert.deepEqual(manualOaepSha256Decode(nodeServerPriv, unb64(ESK_OK)), K32);
  // The device key cannot open it.
  await assert.rejects(oaepDecrypt((await device()).decrypt, ct));
  // Fresh keys, randomized ciphertexts; a given key encrypts to it.
  const again = await encryptSecretKey(server.encrypt);
  assert.notDeepEqual(again.secretKey, secretKey);
  const fixed = await encryptSecretKey(server.encrypt, K32);
  assert.deepEqual(nodeOaepDecrypt(nodeServerPriv, unb64(fixed.encryptedSecretKey)), K32);
  assert.notEqual((await encryptSecretKey(server.encrypt, K32)).encryptedSecretKey, fixed.encryptedSecretKey);
  await rejectsKind(encryptSecretKey(server.encrypt, K32.subarray(0, 16)), "key");
});

// ----- Public keys

test("importRsaPublicKey: accepts RSA SPKI 2048..4096, refuses what the server refuses", async () => {
  assert.equal((await importRsaPublicKey(SERVER_SPKI)).bits, 2048);
  assert.equal((await importRsaPublicKey(DEVICE_SPKI)).bits, 2048);
  assert.equal((await importRsaPublicKey(bytes("rsa_4096.spki.der"))).bits, 4096);
  const refused: [string, Uint8Array][] = [
    ["rsa_1024", bytes("rsa_1024.spki.der")],
    ["rsa_6144", bytes("rsa_6144.spki.der")],
    ["ec", bytes("ec_p256.spki.der")],
    ["pkcs1 RSAPublicKey", bytes("device_2048.pkcs1pub.der")],
    ["id-RSASSA-PSS", bytes("rsa_pss_oid_2048.spki.der")],
    ["trailing byte", new Uint8Array([...DEVICE_SPKI, 0])],
    ["truncated", DEVICE_SPKI.subarray(0, 200)],
    ["empty", new Uint8Array(0)],
  ];
  for (const [why, der] of refused) await rejectsKind(importRsaPublicKey(der), "server_key", why);
});

// ----- AES-256-GCM envelopes and bodies

test("AES-GCM: Python `cryptography` vectors and NIST gcmEncryptExtIV256 count 0 through the envelope", async () => {
  const nonce = hexDecode("cafebabefacedbaddecaf888");
  assert.equal(await sealB64(K32, '{"session_id":"s-1"}', nonce), BODY_ENCRYPTED);
  assert.equal(new TextDecoder().decode(await openB64(K32, BODY_ENCRYPTED)), '{"session_id":"s-1"}');
  assert.deepEqual(await openB64(K32, DPK_ENCRYPTED), DEVICE_SPKI);
  const key = hexDecode("31bdadd96698c204aa9ce1448ea94ae1fb4a9a0b3c9d773b51bb1822666b8f22");
  const env = unb64(await sealB64(key, hexDecode("2db5168e932556f8089a0622981d017d"), hexDecode("0d18e06c7c725ac9e362e1ce")));
  assert.equal(Buffer.from(env.subarray(0, 12)).toString("hex"), "0d18e06c7c725ac9e362e1ce");
  assert.equal(Buffer.from(env.subarray(12)).toString("hex"), "fa4362189661d163fcd6a56d8bf0405ad636ac1bbedd5cc3ee727dc2ab4a9489");
});

test("AES-GCM: must-fail envelopes", async () => {
  const sealed = await sealB64(K32, "secret");
  assert.equal(new TextDecoder().decode(await openB64(K32, sealed)), "secret");
  assert.equal(new TextDecoder().decode(nodeOpen(K32, sealed)), "secret", "node opens ours");
  const wrong = new Uint8Array(K32);
  wrong[0]! ^= 1;
  await rejectsKind(openB64(wrong, sealed), "decrypt", "wrong key");
  const n = unb64(sealed).length;
  await rejectsKind(openB64(K32, flipB64(sealed, n - 1)), "decrypt", "tag");
  await rejectsKind(openB64(K32, flipB64(sealed, 12)), "decrypt", "ciphertext");
  await rejectsKind(openB64(K32, flipB64(sealed, 0)), "decrypt", "nonce");
  await rejectsKind(openB64(K32, flipB64(BODY_ENCRYPTED, 40)), "decrypt", "vector flipped");
  await rejectsKind(openB64(K32, b64(new Uint8Array(27))), "malformed", "shorter than nonce + tag");
  await rejectsKind(openB64(K32, "not base64!"), "malformed");
  await rejectsKind(openB64(K32, ""), "malformed");
  await rejectsKind(openB64(K32.subarray(0, 16), sealed), "key", "AES-128 key");
  assert.notEqual(await sealB64(K32, "x"), await sealB64(K32, "x"), "fresh nonces");
});

test("encryptBody/decryptBody: exactly {\"data\":\"<envelope>\"}; the vector body decrypts", async () => {
  const body = await encryptBody(K32, '{"session_id":"s-1"}');
  const t = new TextDecoder().decode(body);
  const m = /^\{"data":"([A-Za-z0-9+/=]+)"\}$/.exec(t);
  assert.ok(m, t);
  assert.equal(new TextDecoder().decode(nodeOpen(K32, m[1]!)), '{"session_id":"s-1"}');
  assert.equal(new TextDecoder().decode(await decryptBody(K32, body)), '{"session_id":"s-1"}');
  assert.equal(new TextDecoder().decode(await decryptBody(K32, `{"data": "${BODY_ENCRYPTED}"}`)), '{"session_id":"s-1"}');
  await rejectsKind(decryptBody(K32, '{"data": 1}'), "malformed");
  await rejectsKind(decryptBody(K32, "nope"), "malformed");
  const other = new Uint8Array(32).fill(7);
  await rejectsKind(decryptBody(other, body), "decrypt");
});

test("prepare: node:crypto playing the server accepts the request and recovers the plaintext", async () => {
  const keys = await device();
  const server = await serverPub();
  const { secretKey, encryptedSecretKey } = await encryptSecretKey(server.encrypt);
  const ctx = { customerUserDeviceId: "cud-1", signKey: keys.sign, encryptedSecretKey, secretKey };
  const plaintext = '{"nonce":"n","seq":0,"prev_batch_hash":"","batch_hash":"h","data":{"events":[]}}';
  const req = await prepare(ctx, "/v1/behavior/push_event_batch", V_TS, plaintext, "c-1");
  const h = req.headers;
  assert.equal(h["X-Challenge-ID"], "TV c-1");
  const [, id, esk, sig] = /^TV ([^:]+):([^:]+):([^:]+)$/.exec(h.Authorization!)!;
  assert.equal(id, "cud-1");
  assert.equal(h["X-TV-Content-MD5"], nc.createHash("md5").update(req.body).digest("base64"));
  const sts = ["POST", "/v1/behavior/push_event_batch", h["X-TV-Timestamp"], esk, h["X-TV-Content-MD5"]].join("\n");
  assert.equal(nodeVerifyPss(nodeDevicePub, sts, unb64(sig!)), true);
  const key = nodeOaepDecrypt(nodeServerPriv, unb64(esk!));
  assert.deepEqual(key, secretKey);
  const data = JSON.parse(new TextDecoder().decode(req.body)).data as string;
  assert.equal(new TextDecoder().decode(nodeOpen(key, data)), plaintext);
});

// ----- Responses

function nodeResponse(plaintext: string, opts: { to?: nc.KeyObject; key?: Uint8Array; signer?: nc.KeyObject } = {}) {
  const rk = opts.key ?? new Uint8Array(nc.randomBytes(32));
  const response_key = b64(nodeOaepEncrypt(opts.to ?? nodeDevicePub, rk));
  const data = nodeSeal(rk.length === 32 ? rk : new Uint8Array(32), plaintext);
  const signature = b64(nodeSignPss(opts.signer ?? nodeServerPriv, response_key + data));
  return { data, response_key, signature };
}

test("openResponse: response_ok.json (openssl + Python) opens to the documented plaintext", async () => {
  const dev = await device();
  const srv = await serverPub();
  assert.deepEqual(await openResponse(text("response_ok.json"), srv.verify, dev.decrypt), { data: { status: "success" } });
  const made = nodeResponse('{"data":{"challenge_id":"c-1","nonce":"ab"}}');
  assert.deepEqual(await openResponse(JSON.stringify(made), srv.verify, dev.decrypt), { data: { challenge_id: "c-1", nonce: "ab" } });
});

test("openResponse: must-fail responses", async () => {
  const dev = await device();
  const srv = await serverPub();
  const ok = JSON.parse(text("response_ok.json")) as { data: string; response_key: string; signature: string };
  const open = (r: object | string, verify = srv.verify, decrypt = dev.decrypt) =>
    openResponse(typeof r === "string" ? r : JSON.stringify(r), verify, decrypt);
  await rejectsKind(open({ ...ok, signature: flipB64(ok.signature, 255) }), "response_signature", "signature flipped");
  await rejectsKind(open({ ...ok, data: flipB64(ok.data, 14) }), "response_signature", "data flipped");
  const other = nodeResponse('{"data":{"status":"success"}}');
  await rejectsKind(open({ ...ok, data: other.data }), "response_signature", "data of another response");
  await rejectsKind(open({ ...ok, response_key: other.response_key }), "response_signature", "response_key of another response");
  await rejectsKind(open({ ...ok, signature: "not base64!" }), "response_signature");
  await rejectsKind(open(ok, (await devicePub()).verify), "response_signature", "verified with the wrong (device) key");
  await rejectsKind(open(nodeResponse("{}", { signer: nodeDevicePriv })), "response_signature", "signed by another key");
  // Properly signed, but the response key is encrypted to another key, or not 32 bytes.
  await rejectsKind(open(nodeResponse("{}", { to: nodeServerPub })), "response_decrypt", "to the server key");
  await rejectsKind(open(ok, srv.verify, (await importDevicePrivateKey(SERVER_PK8)).decrypt), "response_decrypt", "wrong device key");
  await rejectsKind(open(nodeResponse("{}", { key: new Uint8Array(16) })), "response_decrypt", "16-byte response key");
  await rejectsKind(open("not json"), "malformed");
  await rejectsKind(open({ data: ok.data, signature: ok.signature }), "malformed", "no response_key");
  await rejectsKind(open("[1]"), "malformed");
  await assert.rejects(
    openResponse('{"errors":[{"code":"access_denied","message":"x"}]}', srv.verify, dev.decrypt, 403),
    (e: unknown) => e instanceof IdvApiError && e.code === "access_denied" && e.status === 403,
  );
});

// ----- Device keys, register_device

test("DeviceKeys: PKCS#8 import derives the OpenSSL SPKI; non-extractable by default; 1024 bits refused", async () => {
  const k = await DeviceKeys.fromPkcs8(DEVICE_PK8);
  assert.deepEqual(k.publicKeyDer, DEVICE_SPKI);
  assert.equal(k.publicKeyDerB64(), b64(DEVICE_SPKI));
  assert.equal(k.signKey.extractable, false);
  assert.equal(k.decryptKey.algorithm.name, "RSA-OAEP");
  await rejectsKind(k.toPkcs8(), "key");
  const kx = await DeviceKeys.fromPkcs8(DEVICE_PK8, { extractable: true });
  assert.deepEqual(await kx.toPkcs8(), DEVICE_PK8);
  await rejectsKind(DeviceKeys.fromPkcs8(bytes("rsa_1024.pk8.der")), "key");
  await rejectsKind(DeviceKeys.fromPkcs8(new Uint8Array([1, 2, 3])), "key");
  const restored = await DeviceKeys.fromCryptoKeys(k.signKey, k.decryptKey, k.publicKeyDer);
  assert.equal(restored.publicKeyDerB64(), b64(DEVICE_SPKI));
  await rejectsKind(DeviceKeys.fromCryptoKeys(k.decryptKey, k.signKey, k.publicKeyDer), "key");
});

test("DeviceKeys.generate: a fresh 2048-bit key signs and decrypts as the server expects", async () => {
  const k = await DeviceKeys.generate();
  assert.equal((await importRsaPublicKey(k.publicKeyDer)).bits, 2048);
  const pub = nc.createPublicKey({ key: Buffer.from(k.publicKeyDer), format: "der", type: "spki" });
  const sig = await signPss(k.signKey, "m");
  assert.equal(manualPssSaltLength(pub, "m", sig), 32);
  assert.deepEqual(await oaepDecrypt(k.decryptKey, nodeOaepEncrypt(pub, K32)), K32);
  assert.notDeepEqual(k.publicKeyDer, DEVICE_SPKI);
});

test("registerDeviceBody: plain and encrypted bodies the server (node:crypto) can read", async () => {
  const k = await DeviceKeys.fromPkcs8(DEVICE_PK8);
  const plain = await k.registerDeviceBody("kp-1", SERVER_SPKI, "user-1", "phone-1", false);
  assert.deepEqual(plain, { key_pair_id: "kp-1", device_public_key: b64(DEVICE_SPKI), cus_user_id: "user-1", device_id: "phone-1" });
  const enc = await k.registerDeviceBody("kp-1", SERVER_SPKI, "user-1", "phone-1", true);
  assert.equal(enc.protocol, "encrypted");
  const key = manualOaepSha256Decode(nodeServerPriv, unb64(enc.encrypted_secret_key!));
  assert.equal(key.length, 32);
  assert.deepEqual(nodeOpen(key, enc.device_public_key), DEVICE_SPKI);
  await rejectsKind(k.registerDeviceBody("kp-1", bytes("rsa_1024.spki.der"), "u", "d", true), "server_key");
});
