import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { inflateSync } from "node:zlib";
import {
  AUTH_SELFIE_TYPES,
  FLASH_PALETTE,
  GESTURES,
  IdvError,
  SELFIE_LIMITS,
  base64DecodedLength,
  base64Encode,
  captureGesture,
  captureSelfie,
  checkFlashSequence,
  checkImageData,
  checkVideo,
  chooseFlashSequence,
  crc32,
  encodePng,
  faceRequestFields,
  flashColourCount,
  flashVideo,
  frameVideo,
  gestureImage,
  gestureVideo,
  imageData,
  imageFormat,
  runFlashSequence,
  type Gesture,
  type FaceImageData,
  type Video,
} from "../src/index.js";

/** A tiny stand-in JPEG (the signature is what the SDK checks; the server decodes it). */
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
const JPEG_B64 = base64Encode(JPEG);
const SEQ8 = ["#FF0000", "#00FFFF", "#00FF00", "#FF00FF", "#0000FF", "#FFFF00", "#000000", "#FFFFFF"];

function invalid(fn: () => unknown, match: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof IdvError && e.kind === "invalid" && match.test(e.message));
}

const docs = (name: string): string => readFileSync(new URL(`../../../../docs/${name}`, import.meta.url), "utf8");

test("selfie_type sets and the limits are the ones docs/API.md and docs/VISION.md give", () => {
  const api = docs("API.md");
  const row = api.split("\n").find((l) => l.startsWith("| `selfie_type` on authenticate |"));
  assert.ok(row, "the Value sets row of docs/API.md");
  const values = [...row.split("|")[2]!.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]);
  assert.deepEqual([...AUTH_SELFIE_TYPES], values);
  assert.match(api, /`gesture` is one of `left`, `right`, `up`, `down`/);
  assert.deepEqual([...GESTURES], ["left", "right", "up", "down"]);
  assert.match(api, /`frames` non-empty, at most 300/);
  assert.equal(SELFIE_LIMITS.framesPerVideo, 300);
  assert.match(api, /at most 10 MiB decoded/);
  assert.equal(SELFIE_LIMITS.imageBytes, 10 * 1024 * 1024);
  const vision = docs("VISION.md");
  assert.match(vision, /`flash`, `flash_8`,\s+`flash_edge`: 8; `flash_16`, `flash_advanced`: 16; `flash_32`: 32/);
  assert.match(vision, /≥ 150 ms for exposure to settle/);
  assert.equal(SELFIE_LIMITS.flashSettleMs, 150);
  for (const t of ["flash", "flash_8", "flash_edge"]) assert.equal(flashColourCount(t), 8);
  for (const t of ["flash_16", "flash_advanced"]) assert.equal(flashColourCount(t), 16);
  assert.equal(flashColourCount("flash_32"), 32);
  for (const t of ["passive", "active", "light", "", "toString", "constructor", "FLASH"]) assert.equal(flashColourCount(t), undefined);
  // The palette: the 8 corners of the RGB cube (vision/src/flash.rs PALETTE).
  assert.deepEqual(new Set(FLASH_PALETTE).size, 8);
  for (const c of FLASH_PALETTE) assert.match(c, /^#(00|FF)(00|FF)(00|FF)$/);
});

test("chooseFlashSequence: the required count, palette colours, every channel varying, never repeated", () => {
  for (const [type, n] of [["flash", 8], ["flash_16", 16], ["flash_32", 32], ["flash_edge", 8]] as const) {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const seq = chooseFlashSequence(type);
      assert.equal(seq.length, n);
      for (const c of seq) assert.ok((FLASH_PALETTE as readonly string[]).includes(c), c);
      checkFlashSequence(seq, type);
      for (let ch = 0; ch < 3; ch++) {
        const on = seq.filter((c) => c.slice(1 + 2 * ch, 3 + 2 * ch) === "FF").length;
        assert.ok(on > 0 && on < n, `channel ${ch} of ${seq.join(",")}`);
      }
      assert.ok(!seen.has(seq.join()), "a sequence repeated");
      seen.add(seq.join());
    }
  }
  // A fixed source: the sequence follows the bytes (b & 7 into the palette) ...
  const bytes = [1, 4, 2, 5, 3, 6, 0, 7];
  assert.deepEqual(chooseFlashSequence("flash_8", () => new Uint8Array(bytes)), SEQ8);
  // ... and is never handed out twice, nor is a source that only yields one colour accepted.
  invalid(() => chooseFlashSequence("flash_8", () => new Uint8Array(bytes)), /could not draw/);
  invalid(() => chooseFlashSequence("flash_8", (n) => new Uint8Array(n).fill(7)), /could not draw/);
  invalid(() => chooseFlashSequence("passive"), /not a flash type/);
});

test("checkFlashSequence refuses what the server would refuse or fail", () => {
  checkFlashSequence(SEQ8, "flash");
  checkFlashSequence(SEQ8.map((c) => c.toLowerCase()), "flash_8");
  invalid(() => checkFlashSequence(SEQ8.slice(0, 7), "flash_8"), /needs 8 flash colours, got 7/);
  invalid(() => checkFlashSequence(SEQ8, "flash_16"), /needs 16/);
  invalid(() => checkFlashSequence([...SEQ8, "#FFF"], "flash"), /colour 8 "#FFF" is not #RRGGBB/);
  invalid(() => checkFlashSequence(["FF0000", ...SEQ8.slice(1)], "flash"), /not #RRGGBB/);
  invalid(() => checkFlashSequence(["#GG0000", ...SEQ8.slice(1)], "flash"), /not #RRGGBB/);
  // Blue never on: the B channel does not vary.
  invalid(() => checkFlashSequence(["#FF0000", "#00FF00", "#FFFF00", "#000000", "#FF0000", "#00FF00", "#FFFF00", "#000000"], "flash"), /B channel/);
  invalid(() => checkFlashSequence(Array(8).fill("#FFFFFF"), "flash"), /R channel/);
  invalid(() => checkFlashSequence([...SEQ8, ...SEQ8, ...SEQ8, ...SEQ8, ...SEQ8, "#FF0000"], "flash_32"), /at most 40/);
  invalid(() => checkFlashSequence(SEQ8, "passive"), /not a flash type/);
});

test("flashVideo: frames in capture order with index and metadata flash_color (#RRGGBB), as docs/VISION.md step 4", () => {
  const frames = SEQ8.map((colour, i) => ({ image: JPEG, colour: i === 1 ? colour.toLowerCase() : colour }));
  const video = flashVideo(frames, "flash_8");
  assert.deepEqual(JSON.parse(JSON.stringify(video)), {
    frames: SEQ8.map((c, i) => ({ base64: JPEG_B64, index: i, metadata: { flash_color: c } })),
  });
  // Frames may be uploaded images (FrameData `id`, an idv extension).
  const byId = flashVideo(SEQ8.map((colour, i) => ({ image: { id: `img-${i}` }, colour })), "flash", { metadata: { device: "web" } });
  assert.deepEqual(byId.frames![2], { id: "img-2", index: 2, metadata: { flash_color: "#00FF00" } });
  assert.deepEqual(byId.metadata, { device: "web" });
  invalid(() => flashVideo(frames.slice(0, 7), "flash_8"), /needs 8/);
  invalid(() => flashVideo(frames.map((f, i) => (i === 3 ? { ...f, image: new Uint8Array([1, 2, 3]) } : f)), "flash_8"), /videos\[0\]\.frames\[3\]: not a JPEG, PNG or WebP/);
});

test("faceRequestFields: the fields of face_auth / face_auth_register, flash in videos[0]", () => {
  const flash = flashVideo(SEQ8.map((colour) => ({ image: JPEG, colour })), "flash_8");
  const selfieVideo = frameVideo([JPEG, JPEG]);
  const gv = gestureVideo("left", [JPEG, JPEG, JPEG]);
  const fields = faceRequestFields("face_auth", { selfie: JPEG, selfieType: "flash_8", flash, videos: [selfieVideo], gestureVideos: [gv] });
  assert.deepEqual(Object.keys(fields).sort(), ["faces", "gesture_videos", "selfie_type", "videos"]);
  assert.deepEqual(fields.faces, [{ base64: JPEG_B64 }]);
  assert.equal(fields.selfie_type, "flash_8");
  assert.equal(fields.videos![0], flash);
  assert.deepEqual(fields.videos![1], { frames: [{ base64: JPEG_B64, index: 0 }, { base64: JPEG_B64, index: 1 }] });
  assert.deepEqual(fields.gesture_videos, [{ gesture: "left", videos: [{ frames: [0, 1, 2].map((index) => ({ base64: JPEG_B64, index })) }] }]);
  // A selfie by upload id, gesture images, no selfie_type: nothing else appears.
  const plain = faceRequestFields("face_auth_register", { selfie: { id: "img-1" }, gestureFaces: [gestureImage("up", [JPEG])] });
  assert.deepEqual(plain, { faces: [{ id: "img-1" }], gesture_faces: [{ gesture: "up", images: [{ base64: JPEG_B64 }] }] });
  // Registration takes any selfie_type up to 64 characters; face_auth only its value set.
  assert.equal(faceRequestFields("face_auth_register", { selfie: JPEG, selfieType: "my_kind" }).selfie_type, "my_kind");
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, selfieType: "my_kind" }), /selfie_type on face_auth/);
  invalid(() => faceRequestFields("face_auth_register", { selfie: JPEG, selfieType: "x".repeat(65) }), /over 64/);
  // A flash video without a flash type would be judged as a selfie video; a flash type
  // without the frames is not performed.
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, selfieType: "passive", flash }), /needs a flash selfie_type/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, flash }), /needs a flash selfie_type/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, selfieType: "flash" }), /needs the flash frames/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, selfieType: "flash_16", flash }), /needs 16/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, selfieType: "flash", flash: selfieVideo }), /needs metadata flash_color/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, moreFaces: Array(50).fill(JPEG) }), /faces: 51, at most 50/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, videos: Array(51).fill(selfieVideo) }), /videos: 51/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, gestureFaces: [{ gesture: "sideways" as Gesture, images: [{ base64: JPEG_B64 }] }] }), /gesture_faces\[0\]\.gesture/);
  invalid(() => faceRequestFields("face_auth", { selfie: { base64: JPEG_B64, id: "x" } }), /faces\[0\]: exactly one of id and base64/);
});

test("the request-body cap: media over 64 MiB of JSON are refused before sending", () => {
  const nearly10MiB = "A".repeat(Math.floor(((10 * 1024 * 1024) / 3) * 4) - 4);
  const big: FaceImageData = { base64: nearly10MiB };
  checkImageData("faces[0]", big);
  // base64 is 4/3 of the bytes: four 10 MiB images are ~53 MiB of JSON, five ~67 MiB.
  faceRequestFields("face_auth", { selfie: big, moreFaces: [big, big, big] });
  invalid(() => faceRequestFields("face_auth", { selfie: big, moreFaces: [big, big, big, big] }), /over the 67108864 \(64 MiB\) request body cap/);
});

test("ImageData: exactly one of id and base64, 10 MiB, JPEG/PNG/WebP, label and metadata limits", () => {
  assert.deepEqual(imageData(JPEG, { label: "selfie", metadata: { camera: "front", n: 1, ok: true } }), {
    base64: JPEG_B64,
    label: "selfie",
    metadata: { camera: "front", n: 1, ok: true },
  });
  assert.deepEqual(imageData({ id: "img-1" }), { id: "img-1" });
  const tenMiB = new Uint8Array(10 * 1024 * 1024);
  tenMiB.set(JPEG);
  assert.equal(base64DecodedLength(imageData(tenMiB).base64!), 10 * 1024 * 1024);
  const over = new Uint8Array(10 * 1024 * 1024 + 1);
  over.set(JPEG);
  invalid(() => imageData(over), /10485761 bytes, at most 10485760/);
  invalid(() => imageData(new TextEncoder().encode("GIF89a....")), /not a JPEG, PNG or WebP/);
  invalid(() => imageData({ id: "img-1" }, { label: "x" }), /label and metadata go with base64 only/);
  invalid(() => imageData({ id: " " }), /id is 1 to 128/);
  invalid(() => imageData(JPEG, { label: "x".repeat(129) }), /label: over 128/);
  invalid(() => imageData(JPEG, { metadata: { nested: { a: 1 } } as never }), /strings, numbers or booleans/);
  invalid(() => imageData(JPEG, { metadata: { v: "x".repeat(4097) } }), /over 4096/);
  invalid(() => imageData(JPEG, { metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) }), /65 metadata keys/);
  invalid(() => checkImageData("faces[0]", {}), /exactly one of id and base64/);
  invalid(() => checkImageData("faces[0]", { id: "a", metadata: {} }), /base64 only/);
  invalid(() => checkImageData("faces[0]", { base64: "" }), /empty/);
  // Decoded sizes as the server counts them: a data: prefix and padding are not data.
  assert.equal(base64DecodedLength("data:image/jpeg;base64,aGVsbG8="), 5);
  assert.equal(base64DecodedLength("aGVsbG8"), 5);
  assert.equal(base64DecodedLength("aGVsbA=="), 4);
});

test("Video: id or frames, 1 to 300 frames, metadata with frames only", () => {
  const frames = Array.from({ length: 300 }, (_, i) => ({ id: `f${i}` }));
  const v = frameVideo(frames);
  assert.equal(v.frames!.length, 300);
  assert.deepEqual(v.frames![299], { id: "f299", index: 299 });
  invalid(() => frameVideo([...frames, { id: "f300" }]), /301 frames, at most 300/);
  invalid(() => frameVideo([]), /must not be empty/);
  checkVideo("videos[0]", { id: "vid-1" });
  invalid(() => checkVideo("videos[0]", { id: "vid-1", metadata: {} }), /metadata goes with frames/);
  invalid(() => checkVideo("videos[0]", { id: "vid-1", frames: [{ id: "a" }] } as Video), /either id or frames/);
  invalid(() => checkVideo("videos[0]", {}), /either id or frames/);
  invalid(() => checkVideo("videos[0]", { frames: [{ label: "x" }] }), /frames\[0\]: exactly one of base64 and id/);
  invalid(() => checkVideo("videos[0]", { frames: [{ base64: "aA==", index: 1.5 }] }), /index: an integer/);
});

test("gestures: left, right, up, down only; 1 to 50 images", () => {
  assert.deepEqual(gestureImage("right", [JPEG, { id: "img-2" }]), { gesture: "right", images: [{ base64: JPEG_B64 }, { id: "img-2" }] });
  invalid(() => gestureImage("sideways" as Gesture, [JPEG]), /one of left, right, up, down/);
  invalid(() => gestureImage("left", []), /1 to 50 images, got 0/);
  invalid(() => gestureImage("left", Array(51).fill(JPEG)), /got 51/);
  invalid(() => gestureVideo("down", []), /must not be empty/);
});

test("encodePng: a PNG the server can decode (signature, IHDR, CRCs, zlib data of the RGB rows)", async () => {
  const width = 3;
  const height = 2;
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set([i * 10, 100 + i, 255 - i, 77], i * 4);
  for (const compress of [true, false]) {
    const png = await encodePng({ data: rgba, width, height }, { compress });
    assert.equal(imageFormat(png), "png");
    const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
    const chunks: Record<string, Uint8Array> = {};
    let o = 8;
    while (o < png.length) {
      const len = view.getUint32(o);
      const type = new TextDecoder().decode(png.subarray(o + 4, o + 8));
      const data = png.subarray(o + 8, o + 8 + len);
      assert.equal(view.getUint32(o + 8 + len), crc32(png.subarray(o + 4, o + 8 + len)), `CRC of ${type}`);
      chunks[type] = data;
      o += 12 + len;
    }
    assert.deepEqual(Object.keys(chunks), ["IHDR", "IDAT", "IEND"]);
    assert.deepEqual([...chunks.IHDR!], [0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
    const rows = inflateSync(chunks.IDAT!); // zlib, Adler-32 checked by Node
    const expected = [0, 0, 100, 255, 10, 101, 254, 20, 102, 253, 0, 30, 103, 252, 40, 104, 251, 50, 105, 250];
    assert.deepEqual([...rows], expected);
  }
  // A stored stream longer than one deflate block (65,535 bytes) still inflates.
  const wide = { data: new Uint8Array(200 * 200 * 4).fill(9), width: 200, height: 200 };
  const stored = await encodePng(wide, { compress: false });
  assert.equal(crc32(new TextEncoder().encode("IEND")), 0xae426082);
  assert.ok(stored.length > 120_000);
  const storedIdat = stored.subarray(8 + 25 + 8, stored.length - 12 - 4);
  assert.deepEqual(inflateSync(storedIdat).length, 200 * (1 + 200 * 3));
});

test("encodePng refuses a frame whose data does not match its size", async () => {
  await assert.rejects(encodePng({ data: new Uint8Array(10), width: 3, height: 2 }), (e: unknown) => e instanceof IdvError && e.kind === "invalid" && /needs 24/.test(e.message));
  await assert.rejects(encodePng({ data: new Uint8Array(0), width: 0, height: 0 }), /1 to 4096 pixels/);
});

test("the browser helpers refuse to run without a DOM", async () => {
  const video = {} as HTMLVideoElement;
  const unsupported = (e: unknown): boolean => e instanceof IdvError && e.kind === "unsupported" && /document is undefined/.test(e.message);
  await assert.rejects(captureSelfie(video), unsupported);
  await assert.rejects(runFlashSequence(video, {} as HTMLElement, { selfieType: "flash" }), unsupported);
  await assert.rejects(captureGesture(video, "left"), unsupported);
});

test("imageFormat: JPEG, PNG and WebP signatures only", () => {
  assert.equal(imageFormat(JPEG), "jpeg");
  assert.equal(imageFormat(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "png");
  assert.equal(imageFormat(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 ")), "webp");
  assert.equal(imageFormat(new TextEncoder().encode("RIFF\0\0\0\0WAVE")), undefined);
  assert.equal(imageFormat(new Uint8Array([0xff, 0xd8])), undefined);
  assert.equal(imageFormat(new Uint8Array(0)), undefined);
});

test("gesture entries: the gesture, 1 to 50 media each, every medium checked, the field named", () => {
  const img = gestureImage("up", [JPEG]);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, gestureFaces: [{ ...img, gesture: "sideways" as "up" }] }), /gesture_faces\[0\]/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, gestureFaces: [{ ...img, images: [] }] }), /gesture_faces\[0\]\.images: 1 to 50/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, gestureFaces: [{ ...img, images: [{}] }] }), /gesture_faces\[0\]\.images\[0\]/);
  const vid = gestureVideo("down", [JPEG]);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, gestureVideos: [vid, { ...vid, videos: [] }] }), /gesture_videos\[1\]\.videos: 1 to 50/);
  invalid(() => faceRequestFields("face_auth", { selfie: JPEG, gestureVideos: Array(51).fill(vid) }), /gesture_videos: 51, at most 50/);
});
