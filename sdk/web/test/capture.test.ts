import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PIXEL_7 } from "../testlib/helpers.js";
import { test } from "node:test";
import {
  BehaviorCapture,
  CAPTURE_LIMITS,
  SDK_VERSION,
  connectCapture,
  detectDevice,
  keyClass,
  type BatchData,
  type CaptureOptions,
} from "../src/index.js";

/** An EventTarget standing in for `window`, counting its listeners. */
class FakeWindow extends EventTarget {
  listeners = 0;
  options: unknown[] = [];
  scrollX = 0;
  scrollY = 0;
  document = { visibilityState: "visible" };
  override addEventListener(type: string, l: EventListenerOrEventListenerObject | null, o?: AddEventListenerOptions | boolean): void {
    this.listeners++;
    this.options.push(o);
    super.addEventListener(type, l, o);
  }
  override removeEventListener(type: string, l: EventListenerOrEventListenerObject | null, o?: EventListenerOptions | boolean): void {
    this.listeners--;
    super.removeEventListener(type, l, o);
  }
}

const DEVICE = { ...PIXEL_7, sdk_version: SDK_VERSION };

function setup(opts: CaptureOptions = {}) {
  const win = new FakeWindow();
  const clock = { now: 1000 };
  const cap = new BehaviorCapture(win, { device: DEVICE, clock: () => clock.now, flushIntervalMs: 0, ...opts });
  const fire = (type: string, props: Record<string, unknown> = {}, at = 0) => {
    clock.now = 1000 + at;
    win.dispatchEvent(Object.assign(new Event(type), props));
  };
  return { win, clock, cap, fire };
}

const touch = (x: number, y: number, extra: Record<string, unknown> = {}) => ({ pointerType: "touch", pointerId: 7, isPrimary: true, clientX: x, clientY: y, ...extra });

/**
 * The acceptance rules of scoring/src/features.rs `event` (type, `t` range and order,
 * required fields and their ranges): an event failing them would be skipped by the engine.
 */
function engineAccepts(batches: BatchData[]): { accepted: number; skipped: string[] } {
  let last = -Infinity;
  let accepted = 0;
  const skipped: string[] = [];
  const inR = (v: unknown, lo: number, hi: number) => typeof v === "number" && Number.isFinite(v) && v >= lo && v <= hi;
  for (const b of batches) {
    for (const e of b.events as unknown as Record<string, unknown>[]) {
      const t = e.t;
      let ok = typeof e.type === "string" && inR(t, 0, 3_600_000) && (t as number) >= last;
      if (ok) {
        switch (e.type) {
          case "touch_down": case "touch_move": case "touch_up":
            ok = inR(e.x, -1000, 20000) && inR(e.y, -1000, 20000) && (e.pointer === undefined || Number.isInteger(e.pointer)); break;
          case "key_down": case "key_up":
            ok = ["alpha", "digit", "space", "backspace", "enter", "punct", "other"].includes(e.key_class as string); break;
          case "motion":
            ok = inR(e.ax, -200, 200) && inR(e.ay, -200, 200) && inR(e.az, -200, 200); break;
          case "scroll":
            ok = inR(e.dy, -20000, 20000); break;
          case "app_background": case "app_foreground":
            ok = true; break;
          default:
            ok = false;
        }
      }
      if (ok) {
        accepted++;
        last = t as number;
      } else skipped.push(JSON.stringify(e));
    }
  }
  return { accepted, skipped };
}

function drain(cap: BehaviorCapture): BatchData[] {
  const out: BatchData[] = [];
  for (let b = cap.takeBatch(); b; b = cap.takeBatch()) out.push(b);
  return out;
}

test("events in → the exact data object out", () => {
  const { cap, fire, win } = setup();
  cap.start();
  fire("pointerdown", touch(86.63, 640.24, { pressure: 0.2449 }), 273);
  fire("pointermove", touch(85.9, 638.8, { pressure: 0.2451 }), 289);
  fire("pointerup", touch(87, 640.7, { pressure: 0 }), 403);
  fire("keydown", { key: "a", code: "KeyA" }, 971);
  fire("keyup", { key: "a", code: "KeyA" }, 1095.4);
  fire("devicemotion", { accelerationIncludingGravity: { x: -1.2921, y: 9.2594, z: 3.634 }, rotationRate: { alpha: 180, beta: 90, gamma: -45 } }, 1000 + 200);
  win.scrollY = 42.5;
  fire("scroll", {}, 1500);
  win.document.visibilityState = "hidden";
  fire("visibilitychange", {}, 2100);
  win.document.visibilityState = "visible";
  fire("visibilitychange", {}, 7300);
  const batch = cap.takeBatch();
  assert.deepEqual(batch, {
    device: DEVICE,
    events: [
      { type: "touch_down", t: 273, x: 86.6, y: 640.2, pressure: 0.245 },
      { type: "touch_move", t: 289, x: 85.9, y: 638.8, pressure: 0.245 },
      { type: "touch_up", t: 403, x: 87, y: 640.7 },
      { type: "key_down", t: 971, key_class: "alpha" },
      { type: "key_up", t: 1095, key_class: "alpha" },
      { type: "motion", t: 1200, ax: -1.292, ay: 9.259, az: 3.634, gx: 1.571, gy: -0.785, gz: 3.142 },
      { type: "scroll", t: 1500, dx: 0, dy: 42.5 },
      { type: "app_background", t: 2100 },
      { type: "app_foreground", t: 7300 },
    ],
  });
  assert.equal(cap.takeBatch(), null, "everything was taken");
  // JSON key order is the one the server hashes (data serialized once by pushBatch).
  assert.ok(JSON.stringify(batch).startsWith('{"device":{"model":"Pixel 7","os":"android"'));
  assert.deepEqual(engineAccepts([batch!]), { accepted: 9, skipped: [] });
});

test("keys and types of every event as scoring/src/synth.rs builds them", () => {
  const { cap, fire, win } = setup();
  cap.start();
  let at = 0;
  for (let i = 0; i < 3; i++) {
    fire("pointerdown", touch(100 + i, 200, { pressure: 0.3 }), (at += 10));
    fire("pointermove", touch(140 + i, 230, { pressure: 0.31 }), (at += 16));
    fire("pointerup", touch(180 + i, 260), (at += 16));
  }
  for (const k of ["x", "7", " ", "Backspace", "Enter", ",", "Shift"]) {
    fire("keydown", { key: k }, (at += 90));
    fire("keyup", { key: k }, (at += 80));
  }
  for (let i = 0; i < 3; i++) fire("devicemotion", { accelerationIncludingGravity: { x: 0.1, y: 9.2, z: 3 }, rotationRate: { alpha: 1, beta: 2, gamma: 3 } }, (at += 150));
  win.scrollY = 10;
  fire("scroll", {}, (at += 16));
  win.document.visibilityState = "hidden";
  fire("visibilitychange", {}, (at += 100));
  const [b, ...rest] = drain(cap);
  assert.equal(rest.length, 0);
  // device: synth.rs Device::to_json keys, screen nested with width/height/density.
  assert.deepEqual(Object.keys(b!.device!).sort(), ["locale", "model", "os", "os_version", "screen", "sdk_version", "timezone"]);
  assert.deepEqual(Object.keys(b!.device!.screen!).sort(), ["density", "height", "width"]);
  const allowed: Record<string, string[]> = {
    touch_down: ["type", "t", "x", "y", "pressure", "pointer"],
    touch_move: ["type", "t", "x", "y", "pressure", "pointer"],
    touch_up: ["type", "t", "x", "y", "pressure", "pointer"],
    key_down: ["type", "t", "key_class"],
    key_up: ["type", "t", "key_class"],
    motion: ["type", "t", "ax", "ay", "az", "gx", "gy", "gz"],
    scroll: ["type", "t", "dx", "dy"],
    app_background: ["type", "t"],
    app_foreground: ["type", "t"],
  };
  const seen = new Set<string>();
  let last = 0;
  for (const e of b!.events as unknown as Record<string, unknown>[]) {
    const type = e.type as string;
    seen.add(type);
    for (const k of Object.keys(e)) assert.ok(allowed[type]!.includes(k), `${type} has ${k}`);
    // synth.rs writes t as an integer (t.round() as i64); every number is a JSON number.
    assert.ok(Number.isInteger(e.t) && (e.t as number) >= last, `t ${e.t}`);
    last = e.t as number;
    for (const [k, v] of Object.entries(e)) if (k !== "type" && k !== "key_class") assert.equal(typeof v, "number", `${type}.${k}`);
    // synth.rs key events carry exactly type, t, key_class (its key_events_carry_only_a_class test).
    if (type.startsWith("key_")) assert.equal(Object.keys(e).length, 3);
  }
  assert.deepEqual([...seen].sort(), ["app_background", "key_down", "key_up", "motion", "scroll", "touch_down", "touch_move", "touch_up"]);
  assert.deepEqual(
    (b!.events as { type: string; key_class?: string }[]).filter((e) => e.type === "key_down").map((e) => e.key_class),
    ["alpha", "digit", "space", "backspace", "enter", "punct", "other"],
  );
  assert.deepEqual(engineAccepts([b!]).skipped, []);
});

test("key values never appear in the output", () => {
  const { cap, fire } = setup({ maxEventsPerBatch: 3 });
  cap.start();
  const secrets = ["s3cr3t", "Hunter2Pass", "ß", "€", "Digit7", "KeyQ"];
  let at = 0;
  for (const key of ["s3cr3t", "Hunter2Pass", "ß", "€", "7", "q"]) {
    const props = { key, code: key === "7" ? "Digit7" : key === "q" ? "KeyQ" : "s3cr3t", keyCode: 229, which: 229, char: key };
    fire("keydown", props, (at += 100));
    fire("keyup", props, (at += 100));
  }
  const batches = drain(cap);
  assert.equal(batches.length, 4);
  const text = JSON.stringify(batches);
  for (const s of secrets) assert.ok(!text.includes(s), `${s} leaked: ${text}`);
  assert.ok(!text.includes("229") && !text.includes('"key"') && !text.includes('"code"'));
  const classes = batches.flatMap((b) => b.events).filter((e) => e.type === "key_down").map((e) => (e as { key_class: string }).key_class);
  assert.deepEqual(classes, ["other", "other", "alpha", "punct", "digit", "alpha"]);
});

test("keyClass maps keys to the engine's classes", () => {
  assert.equal(keyClass("é"), "alpha");
  assert.equal(keyClass("Ж"), "alpha");
  assert.equal(keyClass("0"), "digit");
  assert.equal(keyClass(" "), "space");
  assert.equal(keyClass("Backspace"), "backspace");
  assert.equal(keyClass("Enter"), "enter");
  assert.equal(keyClass("@"), "punct");
  assert.equal(keyClass("Unidentified"), "other");
  assert.equal(keyClass(undefined), "other");
  // auto-repeat keydowns are not new presses
  const { cap, fire } = setup();
  cap.start();
  fire("keydown", { key: "a" }, 1);
  fire("keydown", { key: "a", repeat: true }, 40);
  fire("keyup", { key: "a" }, 90);
  assert.deepEqual(cap.takeBatch()!.events.map((e) => e.type), ["key_down", "key_up"]);
});

test("batches split at maxEventsPerBatch; device only in the first", () => {
  const { cap, fire } = setup({ maxEventsPerBatch: 5 });
  cap.start();
  for (let i = 0; i < 12; i++) fire("keydown", { key: "a" }, i * 10);
  const batches = drain(cap);
  assert.deepEqual(batches.map((b) => b.events.length), [5, 5, 2]);
  assert.deepEqual(batches.map((b) => "device" in b), [true, false, false]);
  assert.deepEqual(batches.flatMap((b) => b.events).map((e) => e.t), [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]);
  assert.deepEqual(cap.stats, { recorded: 12, dropped: 0, batches: 3 });
});

test("batches split at maxBatchBytes, as close to the limit as events allow", () => {
  const limit = 2048;
  const { cap, fire } = setup({ maxBatchBytes: limit, maxEventsPerBatch: 10_000 });
  cap.start();
  const n = 200;
  for (let i = 0; i < n; i++) fire("pointerdown", touch(100.25 + i, 12345.5, { pressure: 0.123 }), i);
  const batches = drain(cap);
  assert.ok(batches.length > 3);
  const all = batches.flatMap((b) => b.events);
  assert.equal(all.length, n);
  for (let i = 0; i < batches.length; i++) {
    const size = new TextEncoder().encode(JSON.stringify(batches[i])).length;
    assert.ok(size <= limit, `batch ${i}: ${size} bytes`);
    if (i + 1 < batches.length) {
      const next = batches[i + 1]!.events[0]!;
      const grown = { ...batches[i]!, events: [...batches[i]!.events, next] };
      assert.ok(new TextEncoder().encode(JSON.stringify(grown)).length > limit, `batch ${i} could have held one more event`);
    }
  }
  // The default is the server's limit (schemas/src/validate.rs BATCH_DATA_BYTES).
  assert.equal(CAPTURE_LIMITS.batchDataBytes, 1024 * 1024);
});

test("at most 256 batches and 20 000 events per challenge", () => {
  const { cap, fire } = setup({ maxEventsPerBatch: 1 });
  cap.start();
  for (let i = 0; i < 300; i++) fire("keydown", { key: "a" }, i);
  const batches = drain(cap);
  assert.equal(batches.length, 256);
  assert.equal(cap.takeBatch(), null);
  fire("keydown", { key: "a" }, 400); // after the last batch: nothing can carry it
  assert.equal(cap.stats.batches, 256);
  assert.equal(cap.stats.recorded, 300);
  assert.equal(cap.stats.dropped, 1);

  const s = setup({ maxEventsPerBatch: 10_000 });
  s.cap.start();
  for (let i = 0; i < CAPTURE_LIMITS.eventsPerSession + 5; i++) s.fire("keyup", { key: "a" }, i / 10);
  assert.equal(s.cap.pending, 20_000);
  assert.equal(s.cap.stats.dropped, 5);
});

test("stop() removes every listener; nothing is recorded after it", () => {
  const { cap, fire, win } = setup();
  cap.start();
  assert.ok(win.listeners > 0);
  assert.ok(win.options.every((o) => (o as AddEventListenerOptions).passive === true), "listeners are passive");
  fire("keydown", { key: "a" }, 5);
  cap.stop();
  assert.equal(win.listeners, 0);
  assert.equal(cap.running, false);
  fire("keydown", { key: "b" }, 10);
  fire("pointerdown", touch(1, 1), 11);
  fire("devicemotion", { accelerationIncludingGravity: { x: 0, y: 9.8, z: 0 } }, 12);
  win.document.visibilityState = "hidden";
  fire("visibilitychange", {}, 13);
  assert.equal(cap.pending, 1);
  // A restart continues the same timeline (t never goes back).
  cap.start();
  fire("keyup", { key: "a" }, 50);
  assert.deepEqual(cap.takeBatch()!.events.map((e) => [e.type, e.t]), [["key_down", 5], ["key_up", 50]]);
});

test("pointers: only touch/pen contacts, non-primary marked, fake pressure dropped", () => {
  const { cap, fire } = setup();
  cap.start();
  fire("pointermove", touch(5, 5), 1); // no contact yet: not a gesture
  fire("pointerdown", { pointerType: "mouse", pointerId: 1, isPrimary: true, clientX: 1, clientY: 1, pressure: 0.5 }, 2);
  fire("pointerup", { pointerType: "mouse", pointerId: 1, isPrimary: true, clientX: 1, clientY: 1 }, 3);
  fire("pointerdown", touch(10, 20, { pressure: 0.5 }), 4); // 0.5 = hardware without pressure
  fire("pointerdown", touch(50, 60, { pointerId: 8, isPrimary: false, pressure: 0.4 }), 5);
  fire("pointercancel", touch(50, 60, { pointerId: 8, isPrimary: false }), 6);
  fire("pointerup", touch(11, 21), 7);
  fire("pointerup", touch(11, 21), 8); // no open contact
  assert.deepEqual(cap.takeBatch()!.events, [
    { type: "touch_down", t: 4, x: 10, y: 20 },
    { type: "touch_down", t: 5, x: 50, y: 60, pressure: 0.4, pointer: 1 },
    { type: "touch_up", t: 6, x: 50, y: 60, pointer: 1 },
    { type: "touch_up", t: 7, x: 11, y: 21 },
  ]);
});

test("motion is sampled at most every motionIntervalMs; blur+hidden count as one switch", () => {
  const { cap, fire, win } = setup({ motionIntervalMs: 50 });
  cap.start();
  const m = { accelerationIncludingGravity: { x: 0, y: 9.8, z: 0.5 }, rotationRate: null };
  for (const at of [0, 10, 20, 49, 50, 60, 120]) fire("devicemotion", m, at);
  fire("devicemotion", { accelerationIncludingGravity: { x: null, y: 1, z: 1 } }, 300); // no accelerometer
  fire("blur", {}, 400);
  win.document.visibilityState = "hidden";
  fire("visibilitychange", {}, 401);
  fire("focus", {}, 900);
  const ev = cap.takeBatch()!.events;
  assert.deepEqual(ev.map((e) => [e.type, e.t]), [["motion", 0], ["motion", 50], ["motion", 120], ["app_background", 400], ["app_foreground", 900]]);
  assert.ok(!("gx" in ev[0]!), "no gyroscope fields without rotationRate");
});

test("flush timer and full buffers hand batches to onBatch", () => {
  let tick: (() => void) | undefined;
  let cleared = 0;
  const timers = { setInterval: (fn: () => void) => ((tick = fn), 42), clearInterval: (h: unknown) => void (h === 42 && cleared++) };
  const { cap, fire } = setup({ flushIntervalMs: 1000, maxEventsPerBatch: 4, timers });
  const got: BatchData[] = [];
  const off = cap.onBatch((b) => got.push(b));
  cap.start();
  for (let i = 0; i < 5; i++) fire("keydown", { key: "1" }, i);
  assert.deepEqual(got.map((b) => b.events.length), [4], "a full buffer goes at once");
  tick!();
  assert.deepEqual(got.map((b) => b.events.length), [4, 1]);
  tick!(); // nothing buffered: no empty batch
  assert.equal(got.length, 2);
  cap.stop();
  assert.equal(cleared, 1);
  off();
  cap.start();
  fire("keyup", { key: "1" }, 9);
  cap.flush();
  assert.equal(got.length, 2, "unsubscribed");
});

test("connectCapture pushes every batch in order and reports failures", async () => {
  const { cap, fire } = setup({ maxEventsPerBatch: 2 });
  const pushes: [string, string, BatchData][] = [];
  let n = 0;
  const session = {
    pushBatch: async (baseUrl: string, challengeId: string, data: object | string) => {
      const i = n++;
      await new Promise((r) => setTimeout(r, i === 0 ? 20 : 1)); // the first answer is the slowest
      if (i === 1) throw new Error("refused");
      pushes.push([baseUrl, challengeId, data as BatchData]);
      return {} as never;
    },
  };
  const errors: BatchData[] = [];
  const conn = connectCapture(cap, session, "https://idv.example", "c-1", { onError: (_e, d) => errors.push(d) });
  cap.start();
  for (let i = 0; i < 7; i++) fire("keydown", { key: "a" }, i);
  await conn.close();
  assert.equal(cap.running, false);
  assert.equal(n, 4);
  assert.equal(conn.pushed, 3);
  assert.equal(conn.failed, 1);
  assert.deepEqual(errors.map((d) => d.events.map((e) => e.t)), [[2, 3]]);
  assert.deepEqual(pushes.map((p) => p[2].events.map((e) => e.t)).sort(), [[0, 1], [4, 5], [6]]);
  assert.ok(pushes.every((p) => p[0] === "https://idv.example" && p[1] === "c-1"));
  assert.ok("device" in pushes.find((p) => p[2].events[0]!.t === 0)![2]);
});

test("detectDevice reads the browser's description", () => {
  const android = detectDevice({
    screen: { width: 915, height: 412 },
    devicePixelRatio: 2.625,
    navigator: { language: "vi-VN", userAgent: "Mozilla/5.0 (Linux; Android 14; SM-A536E) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36" },
    timeZone: "Asia/Ho_Chi_Minh",
  });
  // A page cannot read the model: everything else of the Pixel 7's description.
  const { model: _model, ...withoutModel } = DEVICE;
  assert.deepEqual(android, withoutModel);
  const ios = detectDevice({ navigator: { userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15" } });
  assert.deepEqual(ios, { os: "ios", os_version: "17.5", sdk_version: SDK_VERSION });
  // options.device replaces detected fields
  const win = new FakeWindow();
  const cap = new BehaviorCapture(win, { device: { model: "X1", sdk_version: "9" }, clock: () => 0 });
  cap.start();
  win.dispatchEvent(Object.assign(new Event("keydown"), { key: "a" }));
  const d = cap.takeBatch()!.device!;
  assert.equal(d.model, "X1");
  assert.equal(d.sdk_version, "9");
  cap.stop();
  const none = new BehaviorCapture(win, { device: false, clock: () => 0 });
  none.start();
  win.dispatchEvent(Object.assign(new Event("keydown"), { key: "a" }));
  assert.ok(!("device" in none.takeBatch()!));
  none.stop();
});

test("SDK_VERSION is package.json's version", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  assert.equal(SDK_VERSION, pkg.version);
});
