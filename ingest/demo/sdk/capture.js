/**
 * Behavioral capture: records in the browser what the scoring engine reads
 * (`scoring/src/features.rs`, `extract`) and produces the `data` objects of
 * push_event_batch (event schema of docs/SCORING.md):
 *
 * ```json
 * {"device": {"os": "android", "os_version": "14", "screen": {"width": 412, "height": 915, "density": 2.63},
 *             "locale": "vi-VN", "timezone": "Asia/Ho_Chi_Minh", "sdk_version": "0.1.0"},
 *  "events": [{"type": "touch_down", "t": 273, "x": 86.6, "y": 640.2, "pressure": 0.245}, ...]}
 * ```
 *
 * Key values never leave the listener: a keyboard event is reduced on the spot to its
 * time and a coarse `key_class` (`alpha`, `digit`, `space`, `backspace`, `enter`,
 * `punct`, `other`); `key`, `code` and `keyCode` are not stored anywhere.
 */
/** Version of this SDK, sent as `device.sdk_version` (kept equal to package.json's). */
export const SDK_VERSION = "0.1.0";
/** Server and engine limits (docs/API.md "Limits", scoring/src/features.rs). */
export const CAPTURE_LIMITS = {
    /** Largest `data` JSON of one batch, bytes (schemas/src/validate.rs `BATCH_DATA_BYTES`). */
    batchDataBytes: 1024 * 1024,
    /** Batches per challenge (features.rs `MAX_BATCHES`; the server refuses seq ≥ 256). */
    batches: 256,
    /** Events the engine examines per session (features.rs `MAX_EVENTS`); the rest are ignored. */
    eventsPerSession: 20_000,
    /** Largest `t`, ms (features.rs `MAX_T_MS`). */
    maxT: 3_600_000,
};
/** The coarse class of a keyboard event's `key`; the key itself goes no further. */
export function keyClass(key) {
    if (typeof key !== "string")
        return "other";
    if (key === "Backspace")
        return "backspace";
    if (key === "Enter")
        return "enter";
    if (key === " " || key === "Spacebar")
        return "space";
    // One character (a code point): letter, digit or punctuation/symbol.
    if ([...key].length !== 1)
        return "other";
    if (/^\p{L}$/u.test(key))
        return "alpha";
    if (/^\p{Nd}$/u.test(key))
        return "digit";
    if (/^[\p{P}\p{S}]$/u.test(key))
        return "punct";
    return "other";
}
function cleanNum(v) {
    return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined;
}
/**
 * The `device` object from the browser: `os` and `os_version` (from the user agent),
 * `screen` (CSS px, portrait: width ≤ height; `density` = devicePixelRatio), `locale`
 * (`navigator.language`), `timezone` (IANA, from Intl), `sdk_version`. `model` is not
 * available to a page without high-entropy client hints; pass it in `options.device`.
 */
export function detectDevice(env) {
    const g = globalThis;
    const e = env ?? {
        screen: g.screen,
        devicePixelRatio: g.devicePixelRatio,
        navigator: g.navigator,
        timeZone: (() => {
            try {
                return Intl.DateTimeFormat().resolvedOptions().timeZone;
            }
            catch {
                return undefined;
            }
        })(),
    };
    const d = {};
    const ua = e.navigator?.userAgent ?? "";
    let m;
    if ((m = /Android(?:\s+([\d.]+))?/.exec(ua))) {
        d.os = "android";
        if (m[1])
            d.os_version = m[1];
    }
    else if ((m = /(?:iPhone|iPad|iPod).*? OS (\d+(?:_\d+)*)/.exec(ua))) {
        d.os = "ios";
        d.os_version = (m[1] ?? "").replace(/_/g, ".");
    }
    else {
        const p = (e.navigator?.userAgentData?.platform ?? "").toLowerCase();
        if (p === "windows" || /Windows NT/.test(ua))
            d.os = "windows";
        else if (p === "macos" || /Mac OS X/.test(ua))
            d.os = "macos";
        else if (p === "chrome os" || /CrOS/.test(ua))
            d.os = "chromeos";
        else if (p === "linux" || /Linux/.test(ua))
            d.os = "linux";
    }
    const w = cleanNum(e.screen?.width);
    const h = cleanNum(e.screen?.height);
    if (w !== undefined && h !== undefined) {
        d.screen = { width: Math.round(Math.min(w, h)), height: Math.round(Math.max(w, h)) };
        const dpr = cleanNum(e.devicePixelRatio);
        if (dpr !== undefined && dpr <= 10)
            d.screen.density = Math.round(dpr * 100) / 100;
    }
    if (e.navigator?.language)
        d.locale = e.navigator.language;
    if (e.timeZone)
        d.timezone = e.timeZone;
    d.sdk_version = SDK_VERSION;
    return d;
}
/** The device fields in the schema's order (that of docs/SCORING.md and synth.rs), unset ones left out. */
function canonicalDevice(d) {
    const out = {};
    for (const k of ["model", "os", "os_version", "screen", "locale", "timezone", "sdk_version"]) {
        if (d[k] !== undefined && d[k] !== null && d[k] !== "")
            out[k] = d[k];
    }
    return out;
}
const round1 = (v) => Math.round(v * 10) / 10;
const round3 = (v) => Math.round(v * 1000) / 1000;
const utf8Len = (s) => new TextEncoder().encode(s).length;
const DEG = Math.PI / 180;
/**
 * Records behavioral events on a target (normally `window`) and hands them out as batch
 * `data` objects. Listeners are passive; nothing is recorded before {@link start} or after
 * {@link stop}. Batches respect the server's limits: at most `maxEventsPerBatch` events and
 * `maxBatchBytes` of JSON each, at most 256 per challenge, 20 000 events per session.
 */
export class BehaviorCapture {
    #target;
    #maxEvents;
    #maxBytes;
    #flushMs;
    #clock;
    #timers;
    #device;
    #pointerTypes;
    #motionMs;
    #t0;
    #lastT = 0;
    #buf = [];
    #deviceSent = false;
    #batches = 0;
    #recorded = 0;
    #dropped = 0;
    #listeners = [];
    #timer = undefined;
    #callbacks = [];
    #down = new Map(); // pointerId → is primary, for pointers with an open gesture
    #lastMotion = -Infinity;
    #scroll = new WeakMap();
    #foreground = true;
    constructor(target, options = {}) {
        this.#target = target;
        this.#maxEvents = Math.max(1, Math.floor(options.maxEventsPerBatch ?? 500));
        this.#maxBytes = Math.min(CAPTURE_LIMITS.batchDataBytes, Math.max(1024, Math.floor(options.maxBatchBytes ?? CAPTURE_LIMITS.batchDataBytes)));
        this.#flushMs = options.flushIntervalMs ?? 0;
        this.#clock = options.clock ?? (() => performance.now());
        this.#timers = options.timers ?? (typeof globalThis.setInterval === "function" ? { setInterval: (f, ms) => globalThis.setInterval(f, ms), clearInterval: (h) => globalThis.clearInterval(h) } : undefined);
        this.#device = options.device === false ? undefined : canonicalDevice({ ...detectDevice(), ...(options.device ?? {}) });
        this.#pointerTypes = new Set(options.pointerTypes ?? ["touch", "pen"]);
        this.#motionMs = options.motionIntervalMs ?? 100;
    }
    /** Whether listeners are attached. */
    get running() {
        return this.#listeners.length > 0;
    }
    get stats() {
        return { recorded: this.#recorded, dropped: this.#dropped, batches: this.#batches };
    }
    /** Attach the (passive) listeners; `t` counts from the first start. */
    start() {
        if (this.running)
            return;
        if (this.#t0 === undefined)
            this.#t0 = this.#clock();
        const on = (type, fn, capture) => {
            const l = fn;
            const opts = { passive: true, capture };
            this.#target.addEventListener(type, l, opts);
            this.#listeners.push([type, l, opts]);
        };
        on("pointerdown", (e) => this.#pointer("touch_down", e), true);
        on("pointermove", (e) => this.#pointer("touch_move", e), true);
        on("pointerup", (e) => this.#pointer("touch_up", e), true);
        on("pointercancel", (e) => this.#pointer("touch_up", e), true);
        on("keydown", (e) => this.#key("key_down", e), true);
        on("keyup", (e) => this.#key("key_up", e), true);
        on("devicemotion", (e) => this.#motion(e), false);
        on("scroll", (e) => this.#onScroll(e), true);
        on("visibilitychange", (e) => this.#visibility(e), false);
        on("blur", (e) => e.target === this.#target && this.#switch(false), false);
        on("focus", (e) => e.target === this.#target && this.#switch(true), false);
        // The page's own scroll offset before any scroll event, so the first one has a delta.
        const start = scrollOffset(this.#target);
        if (start)
            this.#scroll.set(this.#scrollKey(this.#target), start);
        if (this.#flushMs > 0 && this.#timers)
            this.#timer = this.#timers.setInterval(() => this.flush(), this.#flushMs);
    }
    /** Remove every listener and the timer; buffered events stay for {@link takeBatch}/{@link flush}. */
    stop() {
        for (const [type, l, opts] of this.#listeners)
            this.#target.removeEventListener(type, l, opts);
        this.#listeners = [];
        if (this.#timer !== undefined)
            this.#timers?.clearInterval(this.#timer);
        this.#timer = undefined;
        this.#down.clear();
    }
    /** Call `cb` with every batch handed over (full buffer, timer, {@link flush}); returns an unsubscribe function. */
    onBatch(cb) {
        this.#callbacks.push(cb);
        return () => {
            this.#callbacks = this.#callbacks.filter((c) => c !== cb);
        };
    }
    /** Events buffered and not yet taken. */
    get pending() {
        return this.#buf.length;
    }
    /**
     * The `data` object of the oldest buffered events, within the batch limits (events,
     * bytes), or null when nothing is buffered or 256 batches were handed out. The first
     * batch carries `device`. Call again while it answers non-null to drain the buffer.
     */
    takeBatch() {
        if (this.#buf.length === 0 || this.#batches >= CAPTURE_LIMITS.batches)
            return null;
        const withDevice = !this.#deviceSent && this.#device !== undefined;
        const head = withDevice ? { device: this.#device, events: [] } : { events: [] };
        let bytes = utf8Len(JSON.stringify(head));
        let n = 0;
        for (const { bytes: b } of this.#buf) {
            if (n >= this.#maxEvents)
                break;
            const add = b + (n > 0 ? 1 : 0);
            if (bytes + add > this.#maxBytes)
                break;
            bytes += add;
            n++;
        }
        if (n === 0) {
            // One event larger than the budget cannot be sent: drop it (cannot happen with the schema's events).
            this.#buf.shift();
            this.#dropped++;
            return this.takeBatch();
        }
        head.events = this.#buf.splice(0, n).map((x) => x.ev);
        if (withDevice)
            this.#deviceSent = true;
        this.#batches++;
        return head;
    }
    /** Hand every buffered event to the {@link onBatch} callbacks, in batches. */
    flush() {
        for (let b = this.takeBatch(); b !== null; b = this.takeBatch()) {
            for (const cb of [...this.#callbacks])
                cb(b);
        }
    }
    #now() {
        if (this.#t0 === undefined)
            return undefined;
        const t = Math.max(this.#lastT, Math.round(this.#clock() - this.#t0));
        return t > CAPTURE_LIMITS.maxT ? undefined : t;
    }
    #push(ev) {
        this.#lastT = ev.t;
        this.#buf.push({ ev, bytes: utf8Len(JSON.stringify(ev)) });
        this.#recorded++;
        if (this.#buf.length >= this.#maxEvents && this.#callbacks.length > 0)
            this.flush();
    }
    /** The time of a new event, or undefined (and counted) when a session cap is reached. */
    #admit() {
        const t = this.#now();
        const full = this.#recorded >= CAPTURE_LIMITS.eventsPerSession || this.#batches >= CAPTURE_LIMITS.batches;
        if (t === undefined || full) {
            this.#dropped++;
            return undefined;
        }
        return t;
    }
    #pointer(type, e) {
        if (!this.#pointerTypes.has(String(e.pointerType)))
            return;
        const id = typeof e.pointerId === "number" ? e.pointerId : 0;
        // Only contacts between down and up (a hovering pen or mouse is no gesture).
        if (type === "touch_down")
            this.#down.set(id, e.isPrimary !== false);
        else if (!this.#down.has(id))
            return;
        const primary = this.#down.get(id) ?? true;
        if (type === "touch_up")
            this.#down.delete(id);
        const x = e.clientX, y = e.clientY;
        if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y))
            return;
        const t = this.#admit();
        if (t === undefined)
            return;
        const ev = { type, t, x: round1(x), y: round1(y) };
        // Pressure: only a real reading. Hardware without pressure reports 0.5 while pressed
        // (Pointer Events spec) and 0 when released; neither says anything about the finger.
        const p = e.pressure;
        if (type !== "touch_up" && typeof p === "number" && p > 0 && p <= 1 && p !== 0.5)
            ev.pressure = round3(p);
        if (!primary)
            ev.pointer = 1;
        this.#push(ev);
    }
    #key(type, e) {
        if (type === "key_down" && e.repeat === true)
            return; // auto-repeat is not a new press
        const key_class = keyClass(e.key);
        const t = this.#admit();
        if (t === undefined)
            return;
        this.#push({ type, t, key_class });
    }
    #motion(e) {
        const a = e.accelerationIncludingGravity;
        const ok = (v) => typeof v === "number" && Number.isFinite(v);
        if (!a || !ok(a.x) || !ok(a.y) || !ok(a.z))
            return;
        const now = this.#clock();
        if (now - this.#lastMotion < this.#motionMs)
            return;
        const t = this.#admit();
        if (t === undefined)
            return;
        this.#lastMotion = now;
        const ev = { type: "motion", t, ax: round3(a.x), ay: round3(a.y), az: round3(a.z) };
        // rotationRate is in deg/s (alpha about z, beta about x, gamma about y); the schema wants rad/s.
        const r = e.rotationRate;
        if (r && ok(r.alpha) && ok(r.beta) && ok(r.gamma)) {
            ev.gx = round3(r.beta * DEG);
            ev.gy = round3(r.gamma * DEG);
            ev.gz = round3(r.alpha * DEG);
        }
        this.#push(ev);
    }
    #scrollKey(o) {
        // A document and its window scroll together: key both by the window when there is one.
        const v = o.defaultView;
        return v && typeof v === "object" ? v : o;
    }
    #onScroll(e) {
        const target = (e.target ?? this.#target);
        const off = scrollOffset(target);
        if (!off)
            return;
        const key = this.#scrollKey(target);
        const last = this.#scroll.get(key);
        this.#scroll.set(key, off);
        if (!last)
            return; // first event of an element: its delta is unknown
        const dx = off.x - last.x, dy = off.y - last.y;
        if (dx === 0 && dy === 0)
            return;
        const t = this.#admit();
        if (t === undefined)
            return;
        this.#push({ type: "scroll", t, dx: round1(dx), dy: round1(dy) });
    }
    #visibility(e) {
        const doc = e.target?.visibilityState !== undefined
            ? e.target
            : this.#target.document;
        const state = doc?.visibilityState;
        if (state === "hidden")
            this.#switch(false);
        else if (state === "visible")
            this.#switch(true);
    }
    #switch(foreground) {
        if (foreground === this.#foreground)
            return; // blur + visibilitychange of one switch count once
        this.#foreground = foreground;
        const t = this.#admit();
        if (t === undefined)
            return;
        this.#push({ type: foreground ? "app_foreground" : "app_background", t });
    }
}
/** Scroll offset (CSS px) of an element, a document or a window. */
function scrollOffset(o) {
    if (!o || typeof o !== "object")
        return null;
    const r = o;
    const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
    const se = r.scrollingElement;
    const view = r.defaultView;
    if (view && num(view.scrollY) !== undefined)
        return { x: num(view.scrollX) ?? 0, y: num(view.scrollY) };
    if (se && num(se.scrollTop) !== undefined)
        return { x: num(se.scrollLeft) ?? 0, y: num(se.scrollTop) };
    if (num(r.scrollY) !== undefined)
        return { x: num(r.scrollX) ?? 0, y: num(r.scrollY) };
    if (num(r.scrollTop) !== undefined)
        return { x: num(r.scrollLeft) ?? 0, y: num(r.scrollTop) };
    return null;
}
/**
 * Push every batch `capture` hands over with `session.pushBatch(baseUrl, challengeId, data)`,
 * in order (pushBatch runs a challenge's pushes one at a time and re-signs its retries). A
 * push that still fails is reported to `onError` with its data; later batches go on.
 */
export function connectCapture(capture, session, baseUrl, challengeId, opts = {}) {
    let last = Promise.resolve();
    let pushed = 0;
    let failed = 0;
    const off = capture.onBatch((data) => {
        const p = session.pushBatch(baseUrl, challengeId, data).then(() => {
            pushed++;
        }, (e) => {
            failed++;
            opts.onError?.(e, data);
        });
        last = last.then(() => p);
    });
    const flush = async () => {
        capture.flush();
        await last;
    };
    return {
        flush,
        async close() {
            capture.stop();
            await flush();
            off();
        },
        get pushed() {
            return pushed;
        },
        get failed() {
            return failed;
        },
    };
}
