// End-to-end test of the demo page (`idv serve --demo`, /demo/) in headless Chromium,
// against a real server: the page loads the demo key, registers a device, pushes the
// typing and swipes it captured and scores them; registers a face and authenticates
// another photo of the same person; reads a card photo. scripts/browser_test.sh starts the
// server and runs this file with `node --test`.
//
// Environment: IDV_DEMO_URL (http://127.0.0.1:PORT), IDV_FACE_PHOTO and IDV_FACE_PHOTO_2
// (two photos of one person), IDV_CARD_PHOTO and IDV_CARD_TYPE (e.g. in.pan),
// IDV_ARTIFACTS (screenshots: behavior.png, face.png, card.png), IDV_CHROMIUM (default
// /usr/bin/chromium; playwright-core drives the system's Chromium, it downloads none).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`set ${name} (see the comment at the top of ${import.meta.url})`);
  return v;
}
function photo(name) {
  const p = resolve(need(name));
  if (!existsSync(p)) throw new Error(`${name}: no file at ${p}`);
  return p;
}

const url = need("IDV_DEMO_URL").replace(/\/+$/, "");
const artifacts = resolve(process.env.IDV_ARTIFACTS || "target/browser-artifacts");
mkdirSync(artifacts, { recursive: true });

let browser;
let page;
const pageErrors = [];
const consoleErrors = [];

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.IDV_CHROMIUM || "/usr/bin/chromium",
    // IDV_FAKE_CAMERA: a Y4M video Chromium plays as the camera (the camera flow below).
    args: ["--no-sandbox", ...(process.env.IDV_FAKE_CAMERA
      ? ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-video-capture=${process.env.IDV_FAKE_CAMERA}`]
      : [])],
    headless: true,
  });
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: "en-US", timezoneId: "Asia/Kolkata" });
  page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(e));
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  await page.goto(`${url}/demo/`);
  await page.waitForSelector("#config-status[data-state]", { timeout: 30_000 });
  const state = await page.getAttribute("#config-status", "data-state");
  assert.equal(state, "ready", `the page could not load its demo key: ${await page.innerText("#config-status")}`);
});

after(async () => {
  // Console errors are reported, not failed on: a refused fetch logs one by itself.
  for (const e of consoleErrors) console.log(`browser console error: ${e}`);
  await browser?.close();
});

// An uncaught exception or unhandled rejection in the page fails the test that caused it.
function noPageErrors() {
  assert.deepEqual(pageErrors.map((e) => e.stack || String(e)), [], "errors thrown in the page");
}

// Wait until `sel` reports the outcome of `step` (data-state set by the page), and return it.
async function outcome(sel, step, timeout) {
  await page.waitForSelector(`${sel}[data-step="${step}"][data-state]`, { timeout });
  return { state: await page.getAttribute(sel, "data-state"), text: await page.innerText(sel) };
}

const field = (sel, name) => page.innerText(`${sel} [data-field="${name}"]`);

// Each flow saves a full-page screenshot, whether it passed or not.
async function withScreenshot(name, fn) {
  try {
    await fn();
  } finally {
    await page?.screenshot({ path: `${artifacts}/${name}.png`, fullPage: true }).catch(() => undefined);
  }
}

// A small deterministic generator, so a run types and swipes the same way every time.
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

// Type like a person: each key held 70-140 ms, 60-200 ms between keys (keyboard.type's
// fixed delay would hold every key for 0 ms, which the engine cannot use as a dwell time).
async function typeLikeAPerson(text, rand) {
  for (const ch of text) {
    await page.keyboard.down(ch);
    await sleep(70 + rand() * 70);
    await page.keyboard.up(ch);
    await sleep(60 + rand() * 140);
  }
}

// Swipes across the pad with the mouse (the page records mouse pointers as touch), each
// about 300 ms long with a slight bow, then a few taps.
async function swipeOnPad(rand) {
  const box = await page.locator("#behavior-pad").boundingBox();
  for (let i = 0; i < 5; i++) {
    const y0 = box.y + 30 + i * 30;
    const x0 = box.x + 40 + rand() * 40;
    const len = 250 + rand() * 150;
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    for (let s = 1; s <= 15; s++) {
      const f = s / 15;
      await page.mouse.move(x0 + len * f, y0 + 12 * Math.sin(Math.PI * f));
      await sleep(20);
    }
    await page.mouse.up();
    await sleep(250 + rand() * 200);
  }
  for (let i = 0; i < 4; i++) {
    await page.mouse.move(box.x + 500 + i * 20, box.y + 150);
    await page.mouse.down();
    await sleep(80 + rand() * 40);
    await page.mouse.up();
    await sleep(200);
  }
}

test("behavior: register a device, capture typing and swipes, score two sessions", { timeout: 240_000 }, async () => {
  await withScreenshot("behavior", async () => {
    const rand = rng(7);
    // Two sessions: the first enrolls the user's baseline (docs/API.md operation 15: 1000,
    // LOW, is_first_session), the second is scored against it.
    for (const session of [1, 2]) {
      await page.click("#behavior-start");
      const started = await outcome("#behavior-result", "start", 60_000);
      assert.equal(started.state, "done", `session ${session}: start: ${started.text}`);

      await page.click("#behavior-text");
      await typeLikeAPerson("The quick brown fox jumps over the lazy dog at 10 past 4.", rand);
      await swipeOnPad(rand);
      const recorded = await page.innerText("#behavior-status");
      assert.match(recorded, /^[1-9]\d* events recorded/, `session ${session}: the page recorded nothing: ${recorded}`);

      await page.click("#behavior-score");
      const scored = await outcome("#behavior-result", "score", 60_000);
      assert.equal(scored.state, "done", `session ${session}: score: ${scored.text}`);
      const score = await field("#behavior-result", "behavior_score");
      assert.match(score, /^\d+$/, `session ${session}: no numeric score shown: ${scored.text}`);
      assert.ok(Number(score) >= 0 && Number(score) <= 1000, `score ${score} out of 0-1000`);
      assert.match(await field("#behavior-result", "risk_level"), /^(LOW|MEDIUM|HIGH|CRITICAL)$/);
      const details = await field("#behavior-result", "more_details");
      if (session === 1) {
        assert.match(details, /"is_first_session":true/, `session 1 should enroll the baseline: ${scored.text}`);
        assert.equal(score, "1000", "a first session answers 1000");
      } else {
        assert.doesNotMatch(details, /is_first_session/, `session 2 should be scored against the baseline: ${scored.text}`);
      }
      console.log(`behavior session ${session}: score ${score}`);
    }
    noPageErrors();
  });
});

test("face: register one photo, authenticate another of the same person", { timeout: 240_000 }, async () => {
  await withScreenshot("face", async () => {
    await page.setInputFiles("#face-register-file", photo("IDV_FACE_PHOTO"));
    await page.click("#face-register");
    const registered = await outcome("#face-result", "register", 120_000);
    assert.equal(registered.state, "done", `register: ${registered.text}`);
    assert.equal(await field("#face-result", "status"), "success", `register: ${registered.text}`);

    await page.setInputFiles("#face-auth-file", photo("IDV_FACE_PHOTO_2"));
    await page.click("#face-auth");
    const auth = await outcome("#face-result", "auth", 120_000);
    assert.equal(auth.state, "done", `authenticate: ${auth.text}`);
    assert.equal(await field("#face-result", "auth_check.result"), "matched", `authenticate: ${auth.text}`);
    assert.match(await field("#face-result", "auth_check.score"), /^(0(\.\d+)?|1(\.0+)?)$/);
    // The page says whether it drew a box, and draws only what the answer holds.
    assert.match(await page.innerText("#face-boxes"), /face box/);
    console.log(`face: ${(await page.innerText("#face-result")).split("\n")[0]}`);

    // The two photos compared: face boxes from the answer drawn on both.
    await page.click("#face-compare");
    const compared = await outcome("#face-result", "compare", 120_000);
    assert.equal(compared.state, "done", `compare: ${compared.text}`);
    assert.equal(await field("#face-result", "compare_faces.result"), "matched", `compare: ${compared.text}`);
    assert.match(await page.innerText("#face-boxes"), /^[1-9]\d* face box\(es\) from mix_compare_faces_sync drawn/);
    console.log(`face: ${(await page.innerText("#face-result")).split("\n")[0]}`);
    noPageErrors();
  });
});

// The camera path: the SDK's captureSelfie grabs a frame of the (fake) camera playing the
// second photo, and that frame authenticates the user registered above.
test("face: authenticate with a photo taken by the camera", { timeout: 240_000, skip: !process.env.IDV_FAKE_CAMERA && "IDV_FAKE_CAMERA not set" }, async () => {
  await withScreenshot("camera", async () => {
    await page.click("#camera-start");
    await page.waitForFunction(() => /^(camera on|no camera)/.test(document.querySelector("#camera-status")?.textContent ?? ""), null, { timeout: 30_000 });
    assert.equal(await page.innerText("#camera-status"), "camera on");
    await page.click("#camera-auth");
    await page.waitForFunction(() => /^(photo taken|capture failed)/.test(document.querySelector("#camera-status")?.textContent ?? ""), null, { timeout: 30_000 });
    assert.equal(await page.innerText("#camera-status"), "photo taken for authenticate");
    await page.click("#face-auth");
    const auth = await outcome("#face-result", "auth", 120_000);
    assert.equal(auth.state, "done", `authenticate from the camera: ${auth.text}`);
    assert.equal(await field("#face-result", "auth_check.result"), "matched", `authenticate from the camera: ${auth.text}`);
    console.log(`camera: ${(await page.innerText("#face-result")).split("\n")[0]}`);
    noPageErrors();
  });
});

test("card: read a card photo", { timeout: 240_000 }, async () => {
  await withScreenshot("card", async () => {
    await page.selectOption("#card-type", need("IDV_CARD_TYPE"));
    await page.setInputFiles("#card-file", photo("IDV_CARD_PHOTO"));
    await page.click("#card-read");
    const read = await outcome("#card-result", "read", 120_000);
    assert.equal(read.state, "done", `read: ${read.text}`);
    const rows = await page.locator("#card-result table.card-info tbody tr").count();
    assert.ok(rows >= 1, `no card field shown: ${read.text}`);
    console.log(`card: ${rows} field(s), status ${await field("#card-result", "status")}`);
    noPageErrors();
  });
});
