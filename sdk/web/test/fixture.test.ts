import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { BehaviorCapture, type BatchData } from "../src/index.js";
import { PIXEL_7 } from "../testlib/helpers.js";

/**
 * A scripted session (12 taps, 8 swipes, 11 key presses) through the capture. The Rust
 * engine reads the same session from test/fixtures/capture_session.json
 * (scoring/tests/web_sdk_capture.rs): this test keeps the fixture equal to what the
 * capture produces, so a change on either side fails one of the two.
 */
function scriptedSession(): BatchData[] {
  class Win extends EventTarget {
    scrollX = 0;
    scrollY = 0;
    document = { visibilityState: "visible" };
  }
  const win = new Win();
  const clock = { now: 0 };
  const cap = new BehaviorCapture(win, {
    clock: () => clock.now,
    flushIntervalMs: 0,
    maxEventsPerBatch: 100000,
    device: PIXEL_7,
  });
  cap.start();
  const fire = (type: string, props: Record<string, unknown>, at: number) => {
    clock.now = at;
    win.dispatchEvent(Object.assign(new Event(type), props));
  };
  const p = (x: number, y: number) => ({ pointerType: "touch", pointerId: 1, isPrimary: true, clientX: x, clientY: y, pressure: 0.4 });
  let t = 100;
  for (let i = 0; i < 12; i++) {
    fire("pointerdown", p(100 + i * 7, 400 + i * 3), t);
    t += 80 + (i % 3) * 15;
    fire("pointerup", p(101 + i * 7, 401 + i * 3), t);
    t += 300 + (i % 4) * 40;
  }
  for (let i = 0; i < 8; i++) {
    fire("pointerdown", p(200, 700), t);
    t += 20;
    for (let k = 1; k <= 6; k++) {
      fire("pointermove", p(200 + k, 700 - k * 60), t);
      t += 16;
    }
    fire("pointerup", p(206, 340), t);
    t += 500;
  }
  for (const [i, k] of "password123".split("").entries()) {
    fire("keydown", { key: k, code: "Key" + k.toUpperCase(), repeat: false }, t);
    t += 90 + (i % 3) * 10;
    fire("keyup", { key: k, code: "Key" + k.toUpperCase() }, t);
    t += 140 + (i % 5) * 20;
  }
  const batches: BatchData[] = [];
  for (let b = cap.takeBatch(); b; b = cap.takeBatch()) batches.push(b);
  cap.stop();
  return batches;
}

test("the scripted session equals the fixture the Rust engine reads", () => {
  const fixture = JSON.parse(readFileSync(new URL("../../test/fixtures/capture_session.json", import.meta.url), "utf8"));
  const produced = JSON.parse(JSON.stringify(scriptedSession()));
  assert.deepEqual(produced, fixture);
  assert.equal(produced[0].events.length, 110);
});
