#!/usr/bin/env node
// Runs the published TrustVision JS SDK (@tsocial/trustvision-sdk 2.11.2), unchanged,
// against a running idv and reports what works.
//
//   cd tests/sdk && npm ci
//   IDV_BASE_URL=http://127.0.0.1:8080 IDV_ACCESS_KEY_ID=AK... IDV_SECRET_KEY=... \
//   IDV_TEST_IMAGE=/path/to/face.jpg node compat.mjs
//
// Required environment:
//   IDV_BASE_URL        where idv listens, without the /api prefix (a trailing /api is
//                       taken off; the /api twin is exercised by its own check)
//   IDV_ACCESS_KEY_ID   an access key (`idv keys create --client NAME`)
//   IDV_SECRET_KEY      its secret
//   IDV_TEST_IMAGE      a JPEG with exactly one face
// Optional:
//   IDV_TEST_CARD_IMAGE  the image for the card checks (default IDV_TEST_IMAGE)
//   IDV_CARD_TYPE        card_type for the card checks (default vn.national_id)
//   IDV_SDK_TZ           the time zone the SDK signs in (default Asia/Ho_Chi_Minh, so
//                        X-TV-Timestamp carries +07:00 as it does for the SDK's users;
//                        UTC gives a trailing Z)
//   IDV_ALLOW_NOT_PERFORMED=1  count a 501 not_performed answer as a pass
//   IDV_SDK_EXTRA=1      also check download/update of an uploaded image, an upload
//                        with metadata and client_settings
//   IDV_CHECK_TIMEOUT_MS per-check limit (default 60000)
//
// Output: one line per check, `PASS name` or `FAIL name: reason`, then exactly one
// line `N passed, M failed`. Exit status 1 when any check failed.
//
// The SDK is used as published: TrustVisionAPI for its own methods, and the SDK's exported
// createHttpClient (its TVAuthorizer + HTTP client, the same objects TrustVisionAPI uses)
// for idv operations the SDK has no method for. globalThis.fetch is wrapped only to
// observe each exchange (headers sent, HTTP status), never to change it.

import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createHmac } from 'node:crypto';
import { resolveObjectURL } from 'node:buffer';

// Must be set before the SDK formats its first timestamp; Node re-reads TZ when set.
process.env.TZ = process.env.IDV_SDK_TZ || 'Asia/Ho_Chi_Minh';

const require = createRequire(import.meta.url);
// The package's "main" is a UMD bundle; from ESM only its module.exports object is the
// default import, so the API class is `.default` (the README's `import X from` form is
// for bundlers).
const sdk = require('@tsocial/trustvision-sdk');
const TrustVisionAPI = sdk.default;
const { createHttpClient } = sdk;

const results = [];
function pass(name) {
  results.push(true);
  console.log(`PASS ${name}`);
}
function fail(name, reason) {
  results.push(false);
  const line = String(reason).replace(/\s+/g, ' ').trim().slice(0, 600);
  console.log(`FAIL ${name}: ${line}`);
}
function finish() {
  const passed = results.filter(Boolean).length;
  const failed = results.length - passed;
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

// ---- configuration ---------------------------------------------------------------

const env = process.env;
const missing = ['IDV_BASE_URL', 'IDV_ACCESS_KEY_ID', 'IDV_SECRET_KEY', 'IDV_TEST_IMAGE'].filter((k) => !env[k]);
if (missing.length) {
  fail('config', `missing ${missing.join(', ')}`);
  finish();
}
const ROOT = env.IDV_BASE_URL.replace(/\/+$/, '').replace(/\/api$/, '');
const AK = env.IDV_ACCESS_KEY_ID;
const SK = env.IDV_SECRET_KEY;
const CARD_TYPE = env.IDV_CARD_TYPE || 'vn.national_id';
const ALLOW_NOT_PERFORMED = env.IDV_ALLOW_NOT_PERFORMED === '1';
const EXTRA = env.IDV_SDK_EXTRA === '1';
const CHECK_TIMEOUT_MS = Number(env.IDV_CHECK_TIMEOUT_MS || 60000);
const RUN = `sdkcompat-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

let faceBytes;
let cardBytes;
try {
  faceBytes = await readFile(env.IDV_TEST_IMAGE);
  cardBytes = env.IDV_TEST_CARD_IMAGE ? await readFile(env.IDV_TEST_CARD_IMAGE) : faceBytes;
} catch (e) {
  fail('config', `cannot read test image: ${e.message}`);
  finish();
}
const faceB64 = faceBytes.toString('base64');
const cardB64 = cardBytes.toString('base64');
const faceName = basename(env.IDV_TEST_IMAGE);

// ---- observing what the SDK sends (pass-through) ---------------------------------

const exchanges = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async function observedFetch(url, options = {}) {
  const record = {
    url: String(url),
    method: options.method,
    headers: { ...(options.headers || {}) },
    status: undefined,
  };
  exchanges.push(record);
  const response = await realFetch(url, options);
  record.status = response.status;
  return response;
};
function lastExchange(pathSuffix) {
  for (let i = exchanges.length - 1; i >= 0; i--) {
    if (new URL(exchanges[i].url).pathname.endsWith(pathSuffix)) return exchanges[i];
  }
  return undefined;
}

// ---- clients ---------------------------------------------------------------------

// TrustVisionAPI(accessKey, secretKey, env, options): env is 'testing' | 'staging' |
// 'production' or, anything else, the base URL itself.
const api = new TrustVisionAPI(AK, SK, ROOT);
// The SDK's own signed client, for idv operations the SDK has no method for.
const http = createHttpClient(AK, SK, ROOT);
// Same, through the /api prefix the SDK's built-in hosts use (it still signs /v1/...).
const httpApi = createHttpClient(AK, SK, `${ROOT}/api`);

// ---- helpers ---------------------------------------------------------------------

class CheckError extends Error {}
const NOT_PERFORMED = Symbol('not_performed');

function describe(res, pathSuffix) {
  const ex = pathSuffix ? lastExchange(pathSuffix) : undefined;
  const status = ex && ex.status !== undefined ? `HTTP ${ex.status} ` : '';
  let body;
  try {
    body = JSON.stringify(res);
  } catch {
    body = String(res);
  }
  return `${status}${(body || '').slice(0, 300)}`;
}

// Checks the TrustVision envelope. Returns the response, or NOT_PERFORMED when the
// answer is 501 not_performed and that is allowed. `allowFailure` accepts a finished
// `data.status: "failure"` answer that carries its errors. `status: false` for answers
// whose SDK type has no `data.status` (uploads, metadata updates).
function envelope(res, pathSuffix, { allowFailure = false, status = true } = {}) {
  if (res === null || typeof res !== 'object') {
    throw new CheckError(`not a JSON object: ${describe(res, pathSuffix)}`);
  }
  const errors = Array.isArray(res.errors) ? res.errors : [];
  if (errors.length) {
    const code = errors[0] && errors[0].code;
    if (code === 'not_performed' && ALLOW_NOT_PERFORMED) return NOT_PERFORMED;
    if (allowFailure && res.data && res.data.status === 'failure' && typeof code === 'string') return res;
    throw new CheckError(`error ${code}: ${describe(res, pathSuffix)}`);
  }
  if (res.data === null || typeof res.data !== 'object') {
    throw new CheckError(`no data object: ${describe(res, pathSuffix)}`);
  }
  if (status && res.data.status !== 'success') {
    throw new CheckError(`data.status is ${JSON.stringify(res.data.status)}: ${describe(res, pathSuffix)}`);
  }
  return res;
}

function need(cond, what, res, pathSuffix) {
  if (!cond) throw new CheckError(`${what}: ${describe(res, pathSuffix)}`);
}

// The SDK's types put some result fields at the top level and the API puts them in
// `data`; accept either.
function field(res, name) {
  if (res.data && res.data[name] !== undefined) return res.data[name];
  return res[name];
}

function validCompare(list) {
  return (
    Array.isArray(list) &&
    list.length > 0 &&
    list.every(
      (c) =>
        c &&
        typeof c.face1_id === 'string' &&
        typeof c.face2_id === 'string' &&
        typeof c.score === 'number' &&
        ['matched', 'unmatched', 'unsure'].includes(c.result),
    )
  );
}

function withTimeout(promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new CheckError(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function check(name, fn) {
  try {
    await withTimeout(Promise.resolve().then(fn));
    pass(name);
  } catch (e) {
    let reason = e && e.message ? e.message : String(e);
    if (e && e.cause) reason += ` (${e.cause.code || e.cause.message || e.cause})`;
    if (!(e instanceof CheckError) && e && e.name) reason = `${e.name}: ${reason}`;
    fail(name, reason);
  }
}

// Local-time RFC 3339 with an offset or Z, whole seconds: what the SDK sends.
const SDK_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;

function assertSdkSigning(ex, method, signedPath) {
  need(ex, `no ${method} ${signedPath} request observed`, null);
  const ts = ex.headers['X-TV-Timestamp'];
  const authz = ex.headers.Authorization;
  if (!SDK_TIMESTAMP.test(ts || '')) throw new CheckError(`unexpected X-TV-Timestamp ${ts}`);
  const expected = createHmac('sha256', SK).update(`${method}\n${signedPath}\n${ts}`).digest('base64');
  if (authz !== `TV ${AK}:${expected}`) {
    throw new CheckError(`the SDK did not sign "${method}\\n${signedPath}\\n${ts}" as expected: ${authz}`);
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// ---- (a) one signed JSON call to an operation idv has ----------------------------

await check('signed_json_call', async () => {
  const res = await http.post('/v1/face_auth_user', { cus_user_id: `${RUN}-a` });
  envelope(res, '/v1/face_auth_user');
  need(['registered', 'not_registered'].includes(res.data.verdict), 'data.verdict', res, '/v1/face_auth_user');
  const ex = lastExchange('/v1/face_auth_user');
  need(new URL(ex.url).pathname === '/v1/face_auth_user', `sent to ${ex.url}`, res);
  assertSdkSigning(ex, 'POST', '/v1/face_auth_user');
});

// The SDK's built-in hosts end in /api; it then sends /api/v1/... but signs /v1/....
await check('signed_json_call_api_prefix', async () => {
  const res = await httpApi.post('/v1/face_auth_user', { cus_user_id: `${RUN}-api` });
  envelope(res, '/v1/face_auth_user');
  need(['registered', 'not_registered'].includes(res.data.verdict), 'data.verdict', res, '/v1/face_auth_user');
  const ex = lastExchange('/v1/face_auth_user');
  need(new URL(ex.url).pathname === '/api/v1/face_auth_user', `sent to ${ex.url}`, res);
  assertSdkSigning(ex, 'POST', '/v1/face_auth_user');
});

// ---- (b) two calls in the same second --------------------------------------------
// The SDK's timestamp has whole seconds and its signature does not cover the body, so
// two calls to one path in one second carry the same Authorization header. Two different
// requests (different bodies) must both be accepted.

await check('two_calls_same_second', async () => {
  for (let attempt = 1; attempt <= 3; attempt++) {
    // Start just after a second boundary so both are signed within it.
    await sleep(1000 - (Date.now() % 1000) + 20);
    const before = exchanges.length;
    const [r1, r2] = await Promise.all([
      http.post('/v1/face_auth_user', { cus_user_id: `${RUN}-b1` }),
      http.post('/v1/face_auth_user', { cus_user_id: `${RUN}-b2` }),
    ]);
    const [e1, e2] = exchanges.slice(before, before + 2);
    if (!e1 || !e2 || e1.headers['X-TV-Timestamp'] !== e2.headers['X-TV-Timestamp']) {
      if (attempt === 3) throw new CheckError('could not sign two calls within one second');
      continue;
    }
    need(e1.headers.Authorization === e2.headers.Authorization, 'the two signatures differ', null);
    for (const r of [r1, r2]) {
      envelope(r, '/v1/face_auth_user');
      need(['registered', 'not_registered'].includes(r.data.verdict), 'data.verdict', r);
    }
    return;
  }
});

// ---- (c) upload through the SDK, then use the id ---------------------------------

let imageId;

await check('upload_image', async () => {
  const file = new File([faceBytes], faceName, { type: 'image/jpeg' });
  // POST /v1/images, multipart/form-data: file (filename, image/jpeg), label.
  const res = await api.uploadImage({ file, label: 'portrait' });
  envelope(res, '/v1/images', { status: false });
  need(typeof res.data.image_id === 'string' && res.data.image_id.length > 0, 'data.image_id', res, '/v1/images');
  imageId = res.data.image_id;
  assertSdkSigning(lastExchange('/v1/images'), 'POST', '/v1/images');
});

await check('mix_compare_faces_sync_uploaded_id', async () => {
  if (!imageId) throw new CheckError('no image id (upload_image failed)');
  const res = await http.post('/v1/mix_compare_faces_sync', { image1: { id: imageId }, image2: { id: imageId } });
  if (envelope(res, '/v1/mix_compare_faces_sync') === NOT_PERFORMED) return;
  const list = field(res, 'compare_faces');
  need(validCompare(list), 'compare_faces', res, '/v1/mix_compare_faces_sync');
  need(list[0].result === 'matched', 'an image compared with itself is not matched', res, '/v1/mix_compare_faces_sync');
});

// ---- (d) the SDK's own methods for compare / card / liveness / sanity / tampering --

await check('compare_faces_sync', async () => {
  const res = await api.compareFaces({ image1: { base64: faceB64 }, image2: { base64: faceB64 } });
  if (envelope(res, '/v1/compare_faces_sync') === NOT_PERFORMED) return;
  const list = field(res, 'compare_faces');
  need(validCompare(list), 'compare_faces', res, '/v1/compare_faces_sync');
  need(list[0].result === 'matched', 'an image compared with itself is not matched', res, '/v1/compare_faces_sync');
});

await check('read_id_card_info_sync', async () => {
  const res = await api.readIDCard({ card_type: CARD_TYPE, image1: { base64: cardB64 } });
  const out = envelope(res, '/v1/read_id_card_info_sync', { allowFailure: true });
  if (out === NOT_PERFORMED || res.data.status === 'failure') return;
  need(Array.isArray(res.data.card_information), 'data.card_information', res, '/v1/read_id_card_info_sync');
  need(
    res.data.card_information.every((e) => e && typeof e.field === 'string' && 'value' in e),
    'card_information entries {field, value}',
    res,
    '/v1/read_id_card_info_sync',
  );
});

await check('verify_face_liveness_sync', async () => {
  const res = await api.verifyFaceLiveness({ images: [{ base64: faceB64 }] });
  const out = envelope(res, '/v1/verify_face_liveness_sync', { allowFailure: true });
  if (out === NOT_PERFORMED || res.data.status === 'failure') return;
  need(typeof res.data.is_live === 'boolean', 'data.is_live', res, '/v1/verify_face_liveness_sync');
  need(typeof res.data.score === 'number', 'data.score', res, '/v1/verify_face_liveness_sync');
});

await check('verify_portrait_sanity_sync', async () => {
  const res = await api.requestVerifyPortrait({ image: { base64: faceB64 } });
  const out = envelope(res, '/v1/verify_portrait_sanity_sync', { allowFailure: true });
  if (out === NOT_PERFORMED || res.data.status === 'failure') return;
  const ps = res.data.portrait_sanity;
  need(ps && typeof ps.verdict === 'string' && typeof ps.score === 'number', 'data.portrait_sanity {verdict, score}', res, '/v1/verify_portrait_sanity_sync');
});

await check('verify_id_card_sanity_sync', async () => {
  const res = await api.requestVerifyIDCard({ card_type: CARD_TYPE, image1: { base64: cardB64 } });
  const out = envelope(res, '/v1/verify_id_card_sanity_sync', { allowFailure: true });
  if (out === NOT_PERFORMED || res.data.status === 'failure') return;
  // The SDK's type spells it `cart_sanity` at the top level; the API's `card_sanity`.
  const cs = field(res, 'card_sanity') || field(res, 'cart_sanity');
  need(cs && typeof cs.verdict === 'string' && typeof cs.score === 'number', 'card_sanity {verdict, score}', res, '/v1/verify_id_card_sanity_sync');
});

await check('detect_id_card_tampering_sync', async () => {
  const res = await api.detectIDTampering({ image: { base64: cardB64 } });
  const out = envelope(res, '/v1/detect_id_card_tampering_sync', { allowFailure: true });
  if (out === NOT_PERFORMED || res.data.status === 'failure') return;
  const ct = res.data.card_tampering;
  need(ct && typeof ct.result === 'string' && typeof ct.score === 'number', 'data.card_tampering {result, score}', res, '/v1/detect_id_card_tampering_sync');
});

// ---- optional: the rest of the image API -----------------------------------------

if (EXTRA) {
  await check('download_image', async () => {
    if (!imageId) throw new CheckError('no image id (upload_image failed)');
    // GET /v1/images/{id}; the SDK reads the body as a Blob and returns a blob: URL.
    const url = await api.downloadImage(imageId);
    const blob = resolveObjectURL(url);
    need(blob, `not a blob URL: ${url}`, null);
    const got = Buffer.from(await blob.arrayBuffer());
    const ex = lastExchange(`/v1/images/${imageId}`);
    if (!got.equals(faceBytes)) {
      throw new CheckError(`HTTP ${ex && ex.status} body differs from the upload (${got.length} bytes): ${got.subarray(0, 200).toString('utf8')}`);
    }
    assertSdkSigning(ex, 'GET', `/v1/images/${imageId}`);
  });

  await check('update_image_metadata', async () => {
    if (!imageId) throw new CheckError('no image id (upload_image failed)');
    // PATCH /v1/images/{id}, JSON body as given (the SDK's type calls the field `metatada`).
    const res = await api.updateMetadata(imageId, { metadata: { source: 'sdk-compat' }, label: 'portrait', override: true });
    envelope(res, `/v1/images/${imageId}`, { status: false });
    need(res.data.image_id === imageId, 'data.image_id', res, `/v1/images/${imageId}`);
  });

  await check('upload_image_with_metadata', async () => {
    // The SDK's form encoder sends an object's entries as metadata[0], metadata[1], ...
    // holding value[0], value[1], ... (so the string "undefined"), not the values.
    const file = new File([faceBytes], faceName, { type: 'image/jpeg' });
    const res = await api.uploadImage({ file, label: 'portrait', metadata: { source: 'sdk-compat' } });
    envelope(res, '/v1/images', { status: false });
    need(typeof res.data.image_id === 'string' && res.data.image_id.length > 0, 'data.image_id', res, '/v1/images');
  });

  // Operations idv does not offer answer a documented code (501 not_supported), never a
  // bare 404 or a made-up answer (docs/API.md "TrustVision SDK compatibility").
  await check('client_settings_not_supported', async () => {
    const res = await api.clientSettings();
    need(res && Array.isArray(res.errors) && res.errors[0] && res.errors[0].code === 'not_supported', 'errors[0].code == not_supported', res, '/v1/client_settings');
  });
  await check('search_faces_sync_not_supported', async () => {
    const res = await api.searchFaces({ image: { base64: faceBytes.toString('base64') } });
    need(res && Array.isArray(res.errors) && res.errors[0] && res.errors[0].code === 'not_supported', 'errors[0].code == not_supported', res, '/v1/search_faces_sync');
  });
}

finish();
