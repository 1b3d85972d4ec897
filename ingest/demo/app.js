// The idv demo page (`idv serve --demo`): the behavior, face and card flows of the API,
// run from the browser with the web SDK (sdk/web, copied into ./sdk).
//
// The page signs Access Key requests itself, with the demo key the server hands out to
// loopback visitors only (config.json). That is a demo shortcut: in a real integration the
// Access Key stays on your backend, and the browser runs only the device side
// (DeviceKeys, DeviceSession, BehaviorCapture).
//
// Every flow writes its outcome into its result element (#behavior-result, #face-result,
// #card-result) with `data-step` (which call) and `data-state`: `done` (HTTP 200 with
// data), `refused` (an error answer; status and code shown) or `error` (the request or
// the page failed). `data-state` is absent while a call runs. The server's answers are
// shown as they came: nothing is filled in when a field is missing.
import {
  AccessKeyClient, BehaviorCapture, DeviceKeys, DeviceSession, IdvApiError,
  base64Decode, base64Encode, captureSelfie, connectCapture,
} from "./sdk/index.js";

const $ = (id) => document.getElementById(id);
const BASE = location.origin;
let idv; // AccessKeyClient, once config.json is loaded
let config;

// ---------------------------------------------------------------------------------------
// DOM helpers (server text goes in as text nodes, never as HTML)

function h(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

const show = (v) => (v === undefined ? "(absent)" : v === null ? "null" : typeof v === "object" ? JSON.stringify(v) : String(v));

// A two-column table of [label, field name, value] rows; each value cell carries
// data-field so a reader (or a test) can find a field without parsing text.
function fields(rows) {
  return h("table", { class: "fields" },
    h("tbody", {}, rows.map(([label, field, value]) =>
      h("tr", {}, h("th", {}, label), h("td", { "data-field": field }, show(value))))));
}

// The envelope's `errors` (an HTTP 200 `failure` still answers with data and says why here).
function errorList(errors) {
  if (!Array.isArray(errors) || errors.length === 0) return null;
  return h("ul", { class: "errors" }, errors.map((e) =>
    h("li", {}, h("code", {}, e?.code ?? "(no code)"), " ", e?.message ?? "", e?.detail ? ` ${JSON.stringify(e.detail)}` : "")));
}

// The whole answer, folded away, for anyone who wants every field.
const rawJson = (body) => h("details", {}, h("summary", {}, "Full answer (JSON)"), h("pre", {}, JSON.stringify(body, null, 2)));

// Run one call of a flow and record its outcome on `el`.
async function run(el, step, fn) {
  el.removeAttribute("data-state");
  el.dataset.step = step;
  el.replaceChildren(h("p", { class: "pending" }, `${step}: waiting for the server…`));
  try {
    const nodes = await fn();
    el.replaceChildren(...nodes);
    el.dataset.state = "done";
  } catch (e) {
    if (e instanceof IdvApiError) {
      // A refusal: the HTTP status and the error code exactly as the server answered.
      el.replaceChildren(
        h("p", { class: "refusal" }, `${step}: refused, HTTP ${e.status} `, h("code", { "data-field": "code" }, e.code || "(no code)")),
        errorList(e.errors) ?? "", e.body !== undefined ? rawJson(e.body) : "");
      el.dataset.state = "refused";
    } else {
      el.replaceChildren(h("p", { class: "failure" }, `${step}: failed: ${e?.message ?? e}`));
      el.dataset.state = "error";
      console.error(e);
    }
  }
}

const userId = () => {
  const u = $("user-id").value.trim();
  if (!u) throw new Error("enter a user id first");
  return u;
};

const fileBase64 = async (blob) => base64Encode(new Uint8Array(await blob.arrayBuffer()));

// Draw `blob` on `canvas` at its own size (the server's coordinates are the upload's pixels).
async function drawImage(canvas, blob) {
  const bitmap = await createImageBitmap(blob);
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  canvas.hidden = false;
  ctx.lineWidth = Math.max(2, Math.round(Math.max(canvas.width, canvas.height) / 250));
  ctx.strokeStyle = "#00e676";
  return ctx;
}

// ---------------------------------------------------------------------------------------
// 1. Behavior

const behavior = { user: null, session: null, challengeId: null, capture: null, conn: null, pushErrors: [], ticker: 0 };

async function startBehavior() {
  const user = userId();
  const serverKey = base64Decode(config.server_public_key);
  // register_device makes a new device record per call: register once per user and page.
  if (behavior.user !== user) {
    $("behavior-status").textContent = "generating a device key and registering it…";
    const keys = await DeviceKeys.generate();
    const registration = await keys.registerDeviceBody(config.key_pair_id, serverKey, user, "demo-browser", true);
    const { body } = await idv.post("/v1/register_device", registration);
    behavior.session = await DeviceSession.create(body.data.customer_user_device_id, keys, serverKey);
    behavior.user = user;
  }
  const challenge = await behavior.session.createChallenge(BASE, `demo-${Date.now()}`);
  // Mouse input is recorded too (the SDK records touch and pen only by default) so that a
  // desktop visitor's swipes count; the engine then reads them as touch gestures.
  const capture = new BehaviorCapture(window, { flushIntervalMs: 2000, pointerTypes: ["touch", "pen", "mouse"] });
  behavior.pushErrors = [];
  const conn = connectCapture(capture, behavior.session, BASE, challenge.challengeId, {
    onError: (e) => behavior.pushErrors.push(e),
  });
  Object.assign(behavior, { challengeId: challenge.challengeId, capture, conn });
  capture.start();
  clearPad();
  $("behavior-text").value = "";
  $("behavior-text").disabled = false;
  $("behavior-score").disabled = false;
  behavior.ticker = setInterval(tick, 500);
  tick();
  $("behavior-text").focus();
  return [h("p", {}, "Session open (challenge ", h("code", {}, challenge.challengeId), "). Type and swipe, then score it.")];
}

function tick() {
  const { capture, conn } = behavior;
  if (!capture) return;
  $("behavior-status").textContent =
    `${capture.stats.recorded} events recorded, ${conn.pushed} batch(es) pushed${conn.failed ? `, ${conn.failed} refused` : ""}`;
}

async function scoreBehavior() {
  const { capture, conn, challengeId } = behavior;
  clearInterval(behavior.ticker);
  behavior.capture = null;
  $("behavior-score").disabled = true;
  $("behavior-text").disabled = true;
  try {
    await conn.close(); // stop listening, push what is buffered, wait for every push
    $("behavior-status").textContent = `${capture.stats.recorded} events recorded, ${conn.pushed} batch(es) pushed`;
    if (behavior.pushErrors.length) throw behavior.pushErrors[0]; // a refused batch: show its code
    const { body } = await idv.post("/v1/behavior/score", { challenge_id: challengeId });
    return renderScore(body);
  } finally {
    $("behavior-start").disabled = false;
    $("behavior-start").textContent = "Start another session";
  }
}

function renderScore(body) {
  const d = body.data ?? {};
  const out = [];
  if (typeof d.behavior_score === "number") {
    out.push(h("p", { class: `score risk-${String(d.risk_level).toLowerCase()}` },
      h("span", { "data-field": "behavior_score" }, d.behavior_score), " / 1000 · ",
      h("span", { "data-field": "risk_level" }, show(d.risk_level))));
  }
  const first = d.more_details?.is_first_session === true;
  out.push(fields([
    ["status", "status", d.status],
    ["is_fraud", "is_fraud", d.is_fraud ?? "(absent: false)"],
    ["is_confident", "is_confident", d.is_confident ?? "(absent: false)"],
    ["first session", "more_details", d.more_details ?? "(absent: scored against the baseline)"],
    ...Object.entries(d.groups ?? {}).map(([g, v]) => [`group ${g}`, `groups.${g}`, `score ${show(v?.score)}, weight ${show(v?.weight)}`]),
    ...(body.decision ? [["decision", "decision", body.decision]] : []),
    ["request_id", "request_id", d.request_id],
  ]));
  const explainers = Array.isArray(d.explainers) ? d.explainers : [];
  out.push(h("h3", {}, "Explainers"));
  if (explainers.length === 0) {
    out.push(h("p", { class: "status" }, first
      ? "none: a first session enrolls the baseline and is not compared with anything"
      : "none: nothing in this session differed much from the baseline"));
  } else {
    out.push(h("ul", { class: "explainers" }, explainers.map((e) =>
      h("li", {}, h("code", {}, e.feature), ` (${e.group}) ${e.direction}`, e.z !== undefined ? `, z = ${e.z}` : ""))));
  }
  out.push(errorList(body.errors) ?? "", rawJson(body));
  return out;
}

// The swipe pad: draws the pointer's trail so the visitor sees the swipe; the capture
// itself listens on the whole window.
const pad = $("behavior-pad");
const padCtx = pad.getContext("2d");
let padDown = false;
function clearPad() {
  padCtx.fillStyle = "#f4f6fb";
  padCtx.fillRect(0, 0, pad.width, pad.height);
}
function padPoint(e) {
  const r = pad.getBoundingClientRect();
  return [(e.clientX - r.left) * (pad.width / r.width), (e.clientY - r.top) * (pad.height / r.height)];
}
pad.addEventListener("pointerdown", (e) => {
  padDown = true;
  pad.setPointerCapture(e.pointerId);
  padCtx.strokeStyle = "#3056d3";
  padCtx.lineWidth = 4;
  padCtx.lineCap = "round";
  const [x, y] = padPoint(e);
  padCtx.fillStyle = "#3056d3";
  padCtx.beginPath();
  padCtx.arc(x, y, 4, 0, 2 * Math.PI); // a dot, so a tap shows too
  padCtx.fill();
  padCtx.beginPath();
  padCtx.moveTo(x, y);
});
pad.addEventListener("pointermove", (e) => {
  if (!padDown) return;
  padCtx.lineTo(...padPoint(e));
  padCtx.stroke();
});
for (const t of ["pointerup", "pointercancel"]) pad.addEventListener(t, () => { padDown = false; });
clearPad();

// ---------------------------------------------------------------------------------------
// 2. Face

const faceImages = { register: null, auth: null }; // the latest file or camera photo per step

async function previewFace(blob) {
  await drawImage($("face-canvas"), blob);
  $("face-boxes").textContent = "";
}

for (const step of ["register", "auth"]) {
  $(`face-${step}-file`).addEventListener("change", async (e) => {
    const file = e.target.files?.[0];
    if (!file) return;
    faceImages[step] = file;
    await previewFace(file).catch((err) => { $("face-boxes").textContent = `cannot show this image: ${err.message}`; });
  });
}

async function faceCall(step) {
  const blob = faceImages[step];
  if (!blob) throw new Error(`choose a photo to ${step === "auth" ? "authenticate" : "register"} first`);
  const path = step === "register" ? "/v1/face_auth_register" : "/v1/face_auth";
  const { body } = await idv.post(path, { cus_user_id: userId(), faces: [{ base64: await fileBase64(blob) }] });
  await drawFaceBoxes(blob, body);
  return renderFace(step, body);
}

// mix_compare_faces_sync of the two photos: the operation that answers face boxes
// (every face of each image, the compared one first); both photos are drawn side by side
// with their boxes, the compared face thicker.
async function compareFaces() {
  const [first, second] = [faceImages.register, faceImages.auth];
  if (!first || !second) throw new Error("choose a photo to register and one to authenticate first");
  const { body } = await idv.post("/v1/mix_compare_faces_sync", {
    image1: { base64: await fileBase64(first) },
    image2: { base64: await fileBase64(second) },
  });
  const d = body.data ?? {};
  const [a, b] = [await createImageBitmap(first), await createImageBitmap(second)];
  const canvas = $("face-canvas");
  canvas.width = a.width + b.width;
  canvas.height = Math.max(a.height, b.height);
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(a, 0, 0);
  ctx.drawImage(b, a.width, 0);
  canvas.hidden = false;
  ctx.strokeStyle = "#00e676";
  const unit = Math.max(2, Math.round(canvas.width / 400));
  let drawn = 0;
  for (const [image, dx] of [[d.image1, 0], [d.image2, a.width]]) {
    (image?.faces ?? []).forEach((f, i) => {
      const bb = f?.bounding_box;
      if (!bb) return;
      ctx.lineWidth = i === 0 ? unit * 2 : unit;
      ctx.strokeRect(dx + bb.left, bb.top, bb.right - bb.left, bb.bottom - bb.top);
      drawn += 1;
    });
  }
  a.close();
  b.close();
  $("face-boxes").textContent = drawn
    ? `${drawn} face box(es) from mix_compare_faces_sync drawn (the compared face of each photo thicker)`
    : "The comparison found no face, so nothing is drawn.";
  const c = d.compare_faces?.[0] ?? {};
  return [
    h("p", { class: `verdict ${c.result === "matched" ? "good" : "bad"}` }, "Compare: ", show(c.result ?? d.status)),
    fields([
      ["status", "status", d.status],
      ["result", "compare_faces.result", c.result],
      ["score (0–1)", "compare_faces.score", c.score],
      ["portrait sanity (second photo)", "portrait_sanity.verdict", d.portrait_sanity?.verdict],
      ["is_live (second photo)", "liveness_check.is_live", d.liveness_check?.is_live],
      ["request_id", "request_id", d.request_id],
    ]),
    errorList(body.errors) ?? "", rawJson(body),
  ];
}

// Every `bounding_box` {top, right, bottom, left} anywhere in the answer. face_auth and
// face_auth_register answer none today (docs/API.md: only mix_compare_faces_sync returns
// face boxes); the page draws what is there and says so when nothing is.
function findFaceBoxes(v, out = []) {
  if (Array.isArray(v)) v.forEach((x) => findFaceBoxes(x, out));
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (k === "bounding_box" && ["top", "right", "bottom", "left"].every((s) => typeof x?.[s] === "number")) out.push(x);
      else findFaceBoxes(x, out);
    }
  }
  return out;
}

async function drawFaceBoxes(blob, body) {
  const ctx = await drawImage($("face-canvas"), blob);
  const boxes = findFaceBoxes(body);
  for (const b of boxes) ctx.strokeRect(b.left, b.top, b.right - b.left, b.bottom - b.top);
  $("face-boxes").textContent = boxes.length
    ? `${boxes.length} face box(es) from the answer drawn on the photo`
    : "The answer has no face box, so nothing is drawn on the photo.";
}

function renderFace(step, body) {
  const d = body.data ?? {};
  const v = d.validate_faces_result ?? {};
  const live = v.liveness_check ?? {};
  const rows = [["status", "status", d.status]];
  if (step === "auth") {
    rows.push(["match", "auth_check.result", d.auth_check?.result], ["score (0–1)", "auth_check.score", d.auth_check?.score]);
  } else {
    rows.push(["register_id", "register_id", d.register_id], ["face types", "face_types", d.face_types]);
  }
  rows.push(
    ["is_live", "is_live", v.is_live ?? "(absent: no liveness method gave a verdict)"],
    ["liveness verdict", "liveness_check.verdict", live.verdict ?? live.images?.[0]?.verdict],
    ["liveness score", "liveness_check.score", live.score],
    ["liveness not performed", "liveness_check.not_performed", live.not_performed],
    ["sanity verdict", "sanity_verdict", v.sanity_verdict],
    ["portrait sanity", "portrait_sanity", v.sanity_check?.portrait_sanity],
    ["request_id", "request_id", d.request_id],
  );
  const verdict = step === "auth" ? d.auth_check?.result : d.status === "success" ? "registered" : undefined;
  return [
    h("p", { class: `verdict ${verdict === "matched" || verdict === "registered" ? "good" : "bad"}` },
      step === "auth" ? "Authenticate: " : "Register: ", show(verdict ?? d.status)),
    fields(rows), errorList(body.errors) ?? "", rawJson(body),
  ];
}

// Camera: a frame of the front camera becomes the photo of one step (the SDK's
// captureSelfie grabs an unmirrored JPEG).
const video = $("camera");
$("camera-start").addEventListener("click", async () => {
  try {
    video.srcObject = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "user" }, audio: false });
    video.hidden = false;
    await video.play();
    $("camera-register").disabled = $("camera-auth").disabled = false;
    $("camera-status").textContent = "camera on";
  } catch (e) {
    $("camera-status").textContent = `no camera: ${e.message}`;
  }
});
for (const step of ["register", "auth"]) {
  $(`camera-${step}`).addEventListener("click", async () => {
    try {
      const { jpeg } = await captureSelfie(video);
      faceImages[step] = new Blob([jpeg], { type: "image/jpeg" });
      await previewFace(faceImages[step]);
      $("camera-status").textContent = `photo taken for ${step === "auth" ? "authenticate" : "register"}`;
    } catch (e) {
      $("camera-status").textContent = `capture failed: ${e.message}`;
    }
  });
}

// ---------------------------------------------------------------------------------------
// 3. Card

$("card-file").addEventListener("change", async (e) => {
  const file = e.target.files?.[0];
  if (file) await drawImage($("card-canvas"), file).catch(() => undefined);
  $("card-boxes").textContent = "";
});

async function readCard() {
  const file = $("card-file").files?.[0];
  if (!file) throw new Error("choose a photo of the card first");
  const { body } = await idv.post("/v1/read_id_card_info_with_sanity", {
    card_type: $("card-type").value,
    image1: { base64: await fileBase64(file) },
  });
  // card_box: the card's four corners in the photo's pixels, or null when no card shape was found.
  const ctx = await drawImage($("card-canvas"), file);
  const box = body.data?.image1?.card_box;
  const corners = box ? [box.top_left, box.top_right, box.bottom_right, box.bottom_left] : [];
  if (corners.length && corners.every((p) => typeof p?.x === "number" && typeof p?.y === "number")) {
    ctx.beginPath();
    corners.forEach((p, i) => (i ? ctx.lineTo(p.x, p.y) : ctx.moveTo(p.x, p.y)));
    ctx.closePath();
    ctx.stroke();
    $("card-boxes").textContent = "The card's outline (card_box) from the answer is drawn on the photo.";
  } else {
    $("card-boxes").textContent = "The answer has no card_box, so nothing is drawn on the photo.";
  }
  return renderCard(body);
}

function renderCard(body) {
  const d = body.data ?? {};
  const info = Array.isArray(d.card_information) ? d.card_information : [];
  const table = info.length
    ? h("table", { class: "card-info" },
        h("thead", {}, h("tr", {}, ["field", "value", "confidence", "score"].map((t) => h("th", {}, t)))),
        h("tbody", {}, info.map((f) => h("tr", {},
          h("td", {}, h("code", {}, f.field)), h("td", {}, show(f.value)),
          h("td", { class: f.confidence_verdict === "SURE" ? "sure" : "unsure" }, show(f.confidence_verdict)),
          h("td", {}, typeof f.confidence_score === "number" ? f.confidence_score.toFixed(2) : show(f.confidence_score))))))
    : h("p", { class: "status" }, "No field was read (card_information is empty).");
  return [
    fields([
      ["status", "status", d.status],
      ["card sanity", "card_sanity.verdict", d.card_sanity?.verdict],
      ["card sanity score", "card_sanity.score", d.card_sanity?.score],
      ["not performed", "not_performed", d.not_performed],
      ["request_id", "request_id", d.request_id],
    ]),
    errorList(body.errors) ?? "", table, rawJson(body),
  ];
}

// ---------------------------------------------------------------------------------------
// Start: load the demo key, then enable the buttons.

$("user-id").value = `demo-${crypto.randomUUID().slice(0, 8)}`;
$("behavior-start").addEventListener("click", async () => {
  $("behavior-start").disabled = true; // one session at a time (a double click would open two)
  await run($("behavior-result"), "start", startBehavior);
  if ($("behavior-result").dataset.state !== "done") $("behavior-start").disabled = false;
});
$("behavior-score").addEventListener("click", () => run($("behavior-result"), "score", scoreBehavior));
for (const step of ["register", "auth"]) {
  $(`face-${step}`).addEventListener("click", async () => {
    await run($("face-result"), step, () => faceCall(step));
    // One line per call, so the registration's outcome stays in sight after authenticating.
    const first = $("face-result").firstElementChild?.textContent ?? "";
    $("face-log").append(h("li", {}, `${first} (${$("face-result").dataset.state})`));
  });
}
$("face-compare").addEventListener("click", async () => {
  await run($("face-result"), "compare", compareFaces);
  const first = $("face-result").firstElementChild?.textContent ?? "";
  $("face-log").append(h("li", {}, `${first} (${$("face-result").dataset.state})`));
});
$("card-read").addEventListener("click", () => run($("card-result"), "read", readCard));

try {
  const resp = await fetch("config.json", { cache: "no-store" });
  if (!resp.ok) throw new Error(`config.json: HTTP ${resp.status} (the demo key is handed out on this machine only)`);
  config = await resp.json();
  idv = new AccessKeyClient(BASE, config.access_key_id, config.secret_key);
  for (const id of ["behavior-start", "face-register", "face-auth", "face-compare", "card-read"]) $(id).disabled = false;
  $("config-status").textContent = `Demo key ${config.access_key_id} of client ${config.client_id}, signing in this page.`;
  $("config-status").dataset.state = "ready";
} catch (e) {
  $("config-status").textContent = `Cannot load the demo key: ${e.message}`;
  $("config-status").dataset.state = "error";
}
