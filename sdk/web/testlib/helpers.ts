/**
 * Test helpers: the crypto/testdata vectors (TEST-ONLY keys, made by OpenSSL CLI and
 * Python `cryptography`, see crypto/testdata/make_vectors.sh) and a server side written
 * with node:crypto, independent of the SDK's WebCrypto code paths.
 */
import * as nc from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** crypto/testdata of the repository (sdk/web/dist/testlib/ → ../../../../crypto/testdata). */
export const TESTDATA = fileURLToPath(new URL("../../../../crypto/testdata/", import.meta.url));

export function bytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(TESTDATA + name));
}

export function text(name: string): string {
  return readFileSync(TESTDATA + name, "utf8");
}

export const SERVER_PK8 = bytes("server_2048.pk8.der");
export const SERVER_SPKI = bytes("server_2048.spki.der");
export const DEVICE_PK8 = bytes("device_2048.pk8.der");
export const DEVICE_SPKI = bytes("device_2048.spki.der");

/** The AES key of every vector: bytes 00..1f. */
export const K32 = Uint8Array.from({ length: 32 }, (_, i) => i);

export const b64 = (u: Uint8Array): string => Buffer.from(u).toString("base64");
export const unb64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));

/** Flip one bit of the byte at `at` of a base64 text's bytes and re-encode. */
export function flipB64(s: string, at: number): string {
  const raw = unb64(s);
  raw[at]! ^= 0x01;
  return b64(raw);
}

export const nodeServerPriv = nc.createPrivateKey({ key: Buffer.from(SERVER_PK8), format: "der", type: "pkcs8" });
export const nodeServerPub = nc.createPublicKey({ key: Buffer.from(SERVER_SPKI), format: "der", type: "spki" });
export const nodeDevicePriv = nc.createPrivateKey({ key: Buffer.from(DEVICE_PK8), format: "der", type: "pkcs8" });
export const nodeDevicePub = nc.createPublicKey({ key: Buffer.from(DEVICE_SPKI), format: "der", type: "spki" });

export function nodeVerifyPss(pub: nc.KeyObject, message: string | Uint8Array, sig: Uint8Array, saltLength = 32): boolean {
  return nc.verify("sha256", Buffer.from(message), { key: pub, padding: nc.constants.RSA_PKCS1_PSS_PADDING, saltLength }, sig);
}

export function nodeSignPss(priv: nc.KeyObject, message: string | Uint8Array): Uint8Array {
  return new Uint8Array(nc.sign("sha256", Buffer.from(message), { key: priv, padding: nc.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }));
}

export function nodeOaepDecrypt(priv: nc.KeyObject, ct: Uint8Array, oaepHash = "sha256"): Uint8Array {
  return new Uint8Array(nc.privateDecrypt({ key: priv, padding: nc.constants.RSA_PKCS1_OAEP_PADDING, oaepHash }, ct));
}

export function nodeOaepEncrypt(pub: nc.KeyObject, pt: Uint8Array): Uint8Array {
  return new Uint8Array(nc.publicEncrypt({ key: pub, padding: nc.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, pt));
}

export function nodeSeal(key: Uint8Array, pt: Uint8Array | string, nonce = nc.randomBytes(12)): string {
  const c = nc.createCipheriv("aes-256-gcm", key, nonce);
  const ct = Buffer.concat([c.update(Buffer.from(pt)), c.final()]);
  return Buffer.concat([nonce, ct, c.getAuthTag()]).toString("base64");
}

export function nodeOpen(key: Uint8Array, envB64: string): Uint8Array {
  const raw = Buffer.from(envB64, "base64");
  const d = nc.createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(raw.length - 16));
  return new Uint8Array(Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]));
}

export const sha256 = (u: Uint8Array | string): Uint8Array => new Uint8Array(nc.createHash("sha256").update(u).digest());

function mgf1Sha256(seed: Uint8Array, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let c = 0, o = 0; o < len; c++) {
    const ctr = Buffer.alloc(4);
    ctr.writeUInt32BE(c);
    const h = sha256(Buffer.concat([seed, ctr]));
    out.set(h.subarray(0, Math.min(32, len - o)), o);
    o += 32;
  }
  return out;
}

/**
 * Decode RSA-OAEP by hand (raw RSA with the private key, then EME-OAEP with SHA-256 AND
 * MGF1-SHA-256, empty label): the message, or an Error naming what did not match. Checks
 * the exact parameters, which a library's decrypt call cannot tell apart.
 */
export function manualOaepSha256Decode(priv: nc.KeyObject, ct: Uint8Array): Uint8Array {
  const em = new Uint8Array(nc.privateDecrypt({ key: priv, padding: nc.constants.RSA_NO_PADDING }, ct));
  if (em[0] !== 0) throw new Error("OAEP: first byte not 0");
  const maskedSeed = em.subarray(1, 33);
  const maskedDb = em.subarray(33);
  const seedMask = mgf1Sha256(maskedDb, 32);
  const seed = maskedSeed.map((b, i) => b ^ seedMask[i]!);
  const dbMask = mgf1Sha256(seed, maskedDb.length);
  const db = maskedDb.map((b, i) => b ^ dbMask[i]!);
  if (Buffer.compare(db.subarray(0, 32), sha256(new Uint8Array(0))) !== 0) throw new Error("OAEP: lHash is not SHA-256 of the empty label");
  let i = 32;
  while (i < db.length && db[i] === 0) i++;
  if (db[i] !== 1) throw new Error("OAEP: no 0x01 separator");
  return db.subarray(i + 1);
}

/**
 * Decode an RSA-PSS signature by hand (raw RSA with the public key, EMSA-PSS with SHA-256,
 * MGF1-SHA-256): the salt length, after checking H. Throws when it is not such a signature.
 */
export function manualPssSaltLength(pub: nc.KeyObject, message: Uint8Array | string, sig: Uint8Array): number {
  const em = new Uint8Array(nc.publicDecrypt({ key: pub, padding: nc.constants.RSA_NO_PADDING }, sig));
  if (em[em.length - 1] !== 0xbc) throw new Error("PSS: no 0xbc trailer");
  const maskedDb = em.subarray(0, em.length - 33);
  const h = em.subarray(em.length - 33, em.length - 1);
  const dbMask = mgf1Sha256(h, maskedDb.length);
  const db = maskedDb.map((b, i) => b ^ dbMask[i]!);
  db[0]! &= 0x7f; // emBits = 2047 for a 2048-bit modulus
  let i = 0;
  while (i < db.length && db[i] === 0) i++;
  if (db[i] !== 1) throw new Error("PSS: no 0x01 separator");
  const salt = db.subarray(i + 1);
  const mPrime = Buffer.concat([Buffer.alloc(8), sha256(Buffer.from(message)), salt]);
  if (Buffer.compare(sha256(mPrime), h) !== 0) throw new Error("PSS: H does not match");
  return salt.length;
}

/** The device description the capture tests use (a Pixel 7 in Vietnam), without the SDK version. */
export const PIXEL_7 = {
  model: "Pixel 7",
  os: "android",
  os_version: "14",
  screen: { width: 412, height: 915, density: 2.63 },
  locale: "vi-VN",
  timezone: "Asia/Ho_Chi_Minh",
};
