//! Synthetic behavioral population (no public behavioral data set of this kind exists).
//!
//! A [`User`] is a set of parameters drawn, from a fixed seed, out of population
//! distributions: typing rhythm (hold and down-down times, their dispersion, digit vs.
//! letter holds, backspace rate), tap duration, touch pressure and contact size, swipe
//! dynamics (speed, length, velocity profile, arc direction and size, start position from
//! the handedness), the holding posture (pitch, roll), hand tremor, scroll flings and app
//! switching, and a device (model, OS, screen, locale, timezone, SDK version, plus the
//! hardware's pressure and size gains and sensor noise, which the SDK does not report but
//! which shape the readings). Users' timing parameters share a latent "tempo" factor, so
//! features are correlated across users. A session draws "day" parameters around the
//! user's own (a common pace shift of all timings, independent log-normal shifts per
//! parameter, and a posture: sitting, standing, walking or lying down, which moves the
//! holding angle, tremor and rotation), picks which kinds of interaction it contains (not
//! every session types, swipes or scrolls), then generates events around those.
//!
//! [`User::session_batches`] returns the `data` objects of the batches of one session in
//! the event schema of docs/SCORING.md, as an SDK would send them. Everything is
//! deterministic given the seeds. The distributions are documented in docs/SCORING.md,
//! "Synthetic population"; they are plausible guesses, not measurements.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};

/// A standard normal draw (Box-Muller).
pub fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let u1: f64 = rng.gen_range(f64::EPSILON..1.0);
    let u2: f64 = rng.gen::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn lognormal<R: Rng + ?Sized>(rng: &mut R, median: f64, sigma: f64) -> f64 {
    median * (sigma * normal(rng)).exp()
}

/// Derives the seed of item `i` from a parent seed (SplitMix64 step).
pub fn derive_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i.wrapping_add(1)));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A synthetic device: what the SDK reports plus hidden hardware characteristics.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub model: String,
    pub os: String,
    pub os_version: String,
    pub screen_width: u32,
    pub screen_height: u32,
    pub density: f64,
    pub locale: String,
    pub timezone: String,
    pub sdk_version: String,
    /// Whether the touch screen reports pressure (most iPhones do not).
    pub reports_pressure: bool,
    /// Multiplier the hardware applies to the finger's true pressure and contact size.
    pub pressure_gain: f64,
    pub size_gain: f64,
    /// Accelerometer noise floor, m/s^2.
    pub sensor_noise: f64,
}

/// (model, os, width dp, height dp, density, reports pressure)
const MODELS: &[(&str, &str, u32, u32, f64, bool)] = &[
    ("SM-A536E", "android", 412, 915, 2.625, true),
    ("SM-S918B", "android", 384, 824, 3.75, true),
    ("Pixel 7", "android", 412, 915, 2.625, true),
    ("Redmi Note 12", "android", 393, 873, 2.75, true),
    ("CPH2305", "android", 360, 800, 3.0, true),
    ("vivo 1920", "android", 360, 800, 2.0, true),
    ("moto g54", "android", 393, 873, 2.75, true),
    ("RMX3630", "android", 393, 873, 2.75, true),
    ("iPhone14,5", "ios", 390, 844, 3.0, false),
    ("iPhone15,2", "ios", 393, 852, 3.0, false),
    ("iPhone12,8", "ios", 375, 667, 2.0, false),
    ("iPhone16,2", "ios", 430, 932, 3.0, false),
];

const LOCALES: &[(&str, &str, f64)] = &[
    ("vi-VN", "Asia/Ho_Chi_Minh", 0.70),
    ("en-US", "Asia/Ho_Chi_Minh", 0.15),
    ("en-SG", "Asia/Singapore", 0.05),
    ("en-GB", "Europe/London", 0.04),
    ("ko-KR", "Asia/Seoul", 0.03),
    ("ja-JP", "Asia/Tokyo", 0.03),
];

impl Device {
    /// Draws a device from the catalogue (models, OS versions, locales by prevalence).
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Device {
        let (model, os, w, h, density, reports_pressure) = MODELS[rng.gen_range(0..MODELS.len())];
        let os_version = if os == "ios" {
            ["16.7", "17.5", "18.1"][rng.gen_range(0..3)]
        } else {
            ["12", "13", "14"][rng.gen_range(0..3)]
        };
        let r: f64 = rng.gen();
        let mut acc = 0.0;
        let mut loc = LOCALES[0];
        for l in LOCALES {
            acc += l.2;
            if r < acc {
                loc = *l;
                break;
            }
        }
        // The gains are a property of the model (same model, same sensor), with a little
        // unit-to-unit spread.
        let model_idx = MODELS.iter().position(|m| m.0 == model).unwrap_or(0) as f64;
        let pressure_gain = (0.65 + 0.07 * model_idx) * lognormal(rng, 1.0, 0.05);
        let size_gain = (1.25 - 0.04 * model_idx) * lognormal(rng, 1.0, 0.05);
        Device {
            model: model.to_string(),
            os: os.to_string(),
            os_version: os_version.to_string(),
            screen_width: w,
            screen_height: h,
            density,
            locale: loc.0.to_string(),
            timezone: loc.1.to_string(),
            sdk_version: ["1.4.2", "1.5.0"][rng.gen_range(0..2)].to_string(),
            reports_pressure,
            pressure_gain,
            size_gain,
            sensor_noise: lognormal(rng, 0.03, 0.3),
        }
    }

    /// The same device after an OS and SDK update.
    pub fn upgraded(&self) -> Device {
        let mut d = self.clone();
        d.os_version = match (d.os.as_str(), d.os_version.as_str()) {
            ("ios", v) if v.starts_with("16") => "17.5".into(),
            ("ios", _) => "18.2".into(),
            (_, "12") => "13".into(),
            (_, "13") => "14".into(),
            _ => "15".into(),
        };
        d.sdk_version = "1.6.0".into();
        d
    }

    /// The `device` object of the event schema.
    pub fn to_json(&self) -> Value {
        json!({
            "model": self.model,
            "os": self.os,
            "os_version": self.os_version,
            "screen": {"width": self.screen_width, "height": self.screen_height, "density": self.density},
            "locale": self.locale,
            "timezone": self.timezone,
            "sdk_version": self.sdk_version,
        })
    }
}

/// A synthetic user: behavioral parameters and a device.
#[derive(Debug, Clone, PartialEq)]
pub struct User {
    pub seed: u64,
    pub device: Device,
    pub right_handed: bool,
    /// ln ms of a key hold; its within-session sd.
    pub dwell_mu: f64,
    pub dwell_sigma: f64,
    /// ln-hold difference of digits vs. letters.
    pub digit_delta: f64,
    /// ln ms of down-down latency; its within-session sd.
    pub dd_mu: f64,
    pub dd_sigma: f64,
    pub backspace_rate: f64,
    pub tap_mu: f64,
    pub tap_sigma: f64,
    /// True finger pressure and contact size (before the device gains).
    pub pressure: f64,
    pub size: f64,
    /// ln dp/ms, ln dp.
    pub swipe_speed_mu: f64,
    pub swipe_len_mu: f64,
    /// Velocity-profile skew (exponent applied to normalized time).
    pub swipe_gamma: f64,
    /// Arc of swipes: signed offset at the middle over the chord.
    pub swipe_bow: f64,
    /// Horizontal start of swipes as a fraction of the screen width.
    pub swipe_start_x: f64,
    pub pitch: f64,
    pub roll: f64,
    pub tremor: f64,
    pub rotation: f64,
    pub scroll_dist_mu: f64,
    pub scroll_speed_mu: f64,
    /// App switches per minute.
    pub switch_rate: f64,
}

/// Per-session ("day") parameters.
struct Day {
    dwell_mu: f64,
    dd_mu: f64,
    tap_mu: f64,
    pressure: f64,
    size: f64,
    swipe_speed_mu: f64,
    swipe_len_mu: f64,
    swipe_bow: f64,
    swipe_start_x: f64,
    pitch: f64,
    roll: f64,
    tremor: f64,
    rotation: f64,
    scroll_dist_mu: f64,
    scroll_speed_mu: f64,
}

impl User {
    /// Draws a user from the population distributions; deterministic in `seed`.
    pub fn new(seed: u64) -> User {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let r = &mut rng;
        let device = Device::random(r);
        let right_handed = r.gen_bool(0.85);
        let hand = if right_handed { 1.0 } else { -1.0 };
        // A shared "tempo" factor: people fast at typing tend to be fast at tapping and
        // swiping too, so the features are correlated across users.
        let tempo = normal(r);
        User {
            seed,
            device,
            right_handed,
            dwell_mu: (95.0f64).ln() + 0.12 * tempo + 0.18 * normal(r),
            dwell_sigma: r.gen_range(0.15..0.35),
            digit_delta: 0.05 + 0.08 * normal(r),
            dd_mu: (260.0f64).ln() + 0.18 * tempo + 0.2 * normal(r),
            dd_sigma: r.gen_range(0.25..0.5),
            backspace_rate: r.gen_range(0.01..0.12),
            tap_mu: (90.0f64).ln() + 0.10 * tempo + 0.18 * normal(r),
            tap_sigma: r.gen_range(0.18..0.35),
            pressure: r.gen_range(0.3..0.7),
            size: r.gen_range(0.15..0.35),
            swipe_speed_mu: (1.5f64).ln() - 0.2 * tempo + 0.25 * normal(r),
            swipe_len_mu: (330.0f64).ln() + 0.22 * normal(r),
            swipe_gamma: r.gen_range(0.7..1.4),
            swipe_bow: hand * (0.06 + 0.04 * normal(r)),
            swipe_start_x: 0.5 + hand * 0.12 + 0.07 * normal(r),
            pitch: 50.0 + 12.0 * normal(r),
            roll: hand * 3.0 + 6.0 * normal(r),
            tremor: lognormal(r, 0.15, 0.4),
            rotation: lognormal(r, 0.05, 0.4),
            scroll_dist_mu: (400.0f64).ln() + 0.3 * normal(r),
            scroll_speed_mu: (1.2f64).ln() + 0.3 * normal(r),
            switch_rate: (r.gen_range((0.1f64).ln()..(2.0f64).ln())).exp(),
        }
    }

    fn day<R: Rng + ?Sized>(&self, rng: &mut R) -> Day {
        // Posture: sitting 60%, standing 15%, walking 15%, lying down 10%.
        let p: f64 = rng.gen();
        let (d_pitch, tremor_f, rot_f) = if p < 0.60 {
            (0.0, 1.0, 1.0)
        } else if p < 0.75 {
            (-5.0, 1.5, 1.3)
        } else if p < 0.90 {
            (-10.0, 3.0, 2.5)
        } else {
            (25.0, 0.7, 0.8)
        };
        // Hurry or fatigue moves all timings together.
        let pace = 0.05 * normal(rng);
        let n = |rng: &mut R, s: f64| s * normal(rng);
        Day {
            dwell_mu: self.dwell_mu + pace + n(rng, 0.07),
            dd_mu: self.dd_mu + 1.5 * pace + n(rng, 0.10),
            tap_mu: self.tap_mu + pace + n(rng, 0.09),
            pressure: self.pressure * n(rng, 0.09).exp(),
            size: self.size * n(rng, 0.07).exp(),
            swipe_speed_mu: self.swipe_speed_mu - 1.5 * pace + n(rng, 0.14),
            swipe_len_mu: self.swipe_len_mu + n(rng, 0.12),
            swipe_bow: self.swipe_bow + n(rng, 0.02),
            swipe_start_x: self.swipe_start_x + n(rng, 0.05),
            pitch: self.pitch + n(rng, 7.0) + d_pitch,
            roll: self.roll + n(rng, 4.0),
            tremor: self.tremor * n(rng, 0.2).exp() * tremor_f,
            rotation: self.rotation * n(rng, 0.2).exp() * rot_f,
            scroll_dist_mu: self.scroll_dist_mu + n(rng, 0.15),
            scroll_speed_mu: self.scroll_speed_mu + n(rng, 0.15),
        }
    }

    /// One session of this user on their own device, split into `n_batches` batches.
    pub fn session_batches<R: Rng + ?Sized>(&self, n_batches: usize, rng: &mut R) -> Vec<Value> {
        self.session_batches_on(&self.device, n_batches, rng)
    }

    /// One session of this user's behavior on `device` (e.g. an impostor on a victim's
    /// phone), split into `n_batches` batches (at least one).
    pub fn session_batches_on<R: Rng + ?Sized>(&self, device: &Device, n_batches: usize, rng: &mut R) -> Vec<Value> {
        let events = self.session_events(device, rng);
        let n_batches = n_batches.clamp(1, events.len().max(1));
        let per = events.len().div_ceil(n_batches).max(1);
        let mut out = Vec::with_capacity(n_batches);
        for (i, chunk) in events.chunks(per).enumerate() {
            let mut m = Map::new();
            if i == 0 {
                m.insert("device".into(), device.to_json());
            }
            m.insert("events".into(), Value::Array(chunk.to_vec()));
            out.push(Value::Object(m));
        }
        while out.len() < n_batches {
            out.push(json!({"events": []}));
        }
        out
    }

    fn session_events<R: Rng + ?Sized>(&self, dev: &Device, rng: &mut R) -> Vec<Value> {
        let d = self.day(rng);
        let mut ev: Vec<(f64, Value)> = Vec::new();
        // Activities in random order with think-time gaps.
        let mut acts: Vec<u8> = Vec::new();
        // Not every session has every kind of interaction.
        let n_typing = if rng.gen_bool(0.85) { rng.gen_range(1..=4) } else { 0 };
        let n_taps = if rng.gen_bool(0.95) { rng.gen_range(4..=20) } else { 0 };
        let n_swipes = if rng.gen_bool(0.75) { rng.gen_range(2..=14) } else { 0 };
        let n_scrolls = if rng.gen_bool(0.6) { rng.gen_range(2..=10) } else { 0 };
        acts.extend(std::iter::repeat_n(0u8, n_typing));
        acts.extend(std::iter::repeat_n(1u8, n_taps));
        acts.extend(std::iter::repeat_n(2u8, n_swipes));
        acts.extend(std::iter::repeat_n(3u8, n_scrolls));
        for i in (1..acts.len()).rev() {
            let j = rng.gen_range(0..=i);
            acts.swap(i, j);
        }
        let keys_total = rng.gen_range(10..=60);
        let per_burst = (keys_total / n_typing.max(1)).max(4);
        let mut t = rng.gen_range(200.0..800.0);
        for a in acts {
            t = match a {
                0 => self.typing(&d, per_burst, t, rng, &mut ev),
                1 => self.tap(&d, dev, t, rng, &mut ev),
                2 => self.swipe(&d, dev, t, rng, &mut ev),
                _ => self.scroll(&d, t, rng, &mut ev),
            };
            t += lognormal(rng, 700.0, 0.5);
        }
        // App switches: Poisson-ish count over the session, each a background period.
        let minutes = t / 60_000.0;
        let expected = self.switch_rate * minutes;
        let mut switches = 0;
        while rng.gen::<f64>() < expected / (switches as f64 + 1.0) && switches < 5 {
            switches += 1;
        }
        let mut shift_points: Vec<(f64, f64)> = Vec::new();
        for _ in 0..switches {
            let at = rng.gen_range(0.0..t);
            let away = rng.gen_range(2_000.0..10_000.0);
            shift_points.push((at, away));
        }
        shift_points.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Shift events after each switch by the time spent away.
        let shift = |x: f64| -> f64 { x + shift_points.iter().filter(|(at, _)| *at <= x).map(|(_, a)| a).sum::<f64>() };
        let mut shifted: Vec<(f64, Value)> = Vec::with_capacity(ev.len() + 2 * switches);
        for (ts, mut v) in ev {
            let nt = shift(ts);
            if let Some(o) = v.as_object_mut() {
                o.insert("t".into(), json!(nt.round() as i64));
            }
            shifted.push((nt, v));
        }
        let mut end = shift(t);
        for (i, (at, away)) in shift_points.iter().enumerate() {
            let before: f64 = shift_points[..i].iter().map(|(_, a)| a).sum();
            let start = at + before;
            shifted.push((start, json!({"type": "app_background", "t": start.round() as i64})));
            shifted.push((start + away, json!({"type": "app_foreground", "t": (start + away).round() as i64})));
        }
        // Motion sensors at 20 Hz over the whole session (also while away: the phone is held).
        end += 200.0;
        let phase: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
        let mut mt = 0.0;
        let g = 9.81;
        while mt < end {
            let pitch = (d.pitch + 3.0 * (std::f64::consts::TAU * mt / 7000.0 + phase).sin()).to_radians();
            let roll = (d.roll + 2.0 * (std::f64::consts::TAU * mt / 5300.0 + phase).cos()).to_radians();
            let noise = (d.tremor * d.tremor + dev.sensor_noise * dev.sensor_noise).sqrt();
            let ax = g * roll.sin() + noise * normal(rng);
            let ay = g * pitch.sin() * roll.cos() + noise * normal(rng);
            let az = g * pitch.cos() * roll.cos() + noise * normal(rng);
            let w = d.rotation;
            shifted.push((
                mt,
                json!({"type": "motion", "t": mt.round() as i64,
                    "ax": r3(ax), "ay": r3(ay), "az": r3(az),
                    "gx": r3(w * normal(rng)), "gy": r3(w * normal(rng)), "gz": r3(w * normal(rng))}),
            ));
            mt += 50.0;
        }
        // Stable sort by the integer timestamps the SDK would send.
        shifted.sort_by(|a, b| a.0.round().total_cmp(&b.0.round()));
        shifted.into_iter().map(|(_, v)| v).collect()
    }

    fn typing<R: Rng + ?Sized>(&self, d: &Day, n: usize, start: f64, rng: &mut R, ev: &mut Vec<(f64, Value)>) -> f64 {
        let digits = rng.gen_bool(0.4); // an amount or account-number field
        let mut t = start;
        for i in 0..n {
            let class = if rng.gen::<f64>() < self.backspace_rate {
                "backspace"
            } else if digits {
                "digit"
            } else if i % 6 == 5 {
                "space"
            } else {
                "alpha"
            };
            let mu = d.dwell_mu + if class == "digit" { self.digit_delta } else { 0.0 };
            let dwell = (mu + self.dwell_sigma * normal(rng)).exp().clamp(25.0, 900.0);
            ev.push((t, json!({"type": "key_down", "t": t.round() as i64, "key_class": class})));
            ev.push((t + dwell, json!({"type": "key_up", "t": (t + dwell).round() as i64, "key_class": class})));
            let dd = (d.dd_mu + self.dd_sigma * normal(rng)).exp().clamp(45.0, 1_400.0);
            // Keep the next press after this key's down (rollover allowed).
            t += dd.max(dwell * 0.3);
        }
        t
    }

    fn touch_extras<R: Rng + ?Sized>(&self, d: &Day, dev: &Device, rng: &mut R, p_scale: f64) -> (Option<f64>, f64) {
        let pressure = dev
            .reports_pressure
            .then(|| (d.pressure * dev.pressure_gain * p_scale * (0.08 * normal(rng)).exp()).clamp(0.01, 1.0));
        let size = (d.size * dev.size_gain * (0.07 * normal(rng)).exp()).clamp(0.01, 1.0);
        (pressure, size)
    }

    fn tap<R: Rng + ?Sized>(&self, d: &Day, dev: &Device, start: f64, rng: &mut R, ev: &mut Vec<(f64, Value)>) -> f64 {
        let w = f64::from(dev.screen_width);
        let h = f64::from(dev.screen_height);
        let x = rng.gen_range(0.1..0.9) * w;
        let y = rng.gen_range(0.15..0.95) * h;
        let dur = (d.tap_mu + self.tap_sigma * normal(rng)).exp().clamp(30.0, 380.0);
        let (p, s) = self.touch_extras(d, dev, rng, 1.0);
        ev.push((start, touch("touch_down", start, x, y, p, Some(s))));
        if rng.gen_bool(0.5) {
            let tm = start + dur / 2.0;
            ev.push((tm, touch("touch_move", tm, x + normal(rng), y + normal(rng), p, Some(s))));
        }
        let te = start + dur;
        ev.push((te, touch("touch_up", te, x + normal(rng), y + normal(rng), p, Some(s))));
        te
    }

    fn swipe<R: Rng + ?Sized>(&self, d: &Day, dev: &Device, start: f64, rng: &mut R, ev: &mut Vec<(f64, Value)>) -> f64 {
        let w = f64::from(dev.screen_width);
        let h = f64::from(dev.screen_height);
        let up = rng.gen_bool(0.7);
        let len = (d.swipe_len_mu + 0.2 * normal(rng)).exp().clamp(40.0, h * 0.8);
        let speed = (d.swipe_speed_mu + 0.18 * normal(rng)).exp().clamp(0.1, 8.0);
        let dur = (len / speed).clamp(40.0, 2_000.0);
        let x0 = ((d.swipe_start_x + 0.04 * normal(rng)) * w).clamp(5.0, w - 5.0);
        let y0 = if up { h * 0.55 + len / 2.0 } else { h * 0.45 - len / 2.0 }.clamp(5.0, h - 5.0);
        let dir = if up { -1.0 } else { 1.0 };
        let bow = d.swipe_bow + 0.03 * normal(rng);
        let (p, s) = self.touch_extras(d, dev, rng, 1.1);
        let gamma = self.swipe_gamma;
        let mut tt = 0.0;
        ev.push((start, touch("touch_down", start, x0, y0, p, Some(s))));
        loop {
            tt += 16.0 + rng.gen_range(-2.0..2.0);
            let done = tt >= dur;
            let tau: f64 = (tt / dur).min(1.0);
            let tg = tau.powf(gamma);
            let sprog = 10.0 * tg.powi(3) - 15.0 * tg.powi(4) + 6.0 * tg.powi(5);
            let off = bow * len * (std::f64::consts::PI * sprog).sin();
            let x = x0 + off + 0.5 * normal(rng);
            let y = y0 + dir * sprog * len + 0.5 * normal(rng);
            let pp = p.map(|v| (v * (0.95 + 0.1 * (std::f64::consts::PI * sprog).sin())).min(1.0));
            let ts = start + tt.min(dur);
            let kind = if done { "touch_up" } else { "touch_move" };
            ev.push((ts, touch(kind, ts, x, y, pp, Some(s))));
            if done {
                break;
            }
        }
        start + dur
    }

    fn scroll<R: Rng + ?Sized>(&self, d: &Day, start: f64, rng: &mut R, ev: &mut Vec<(f64, Value)>) -> f64 {
        let dist = (d.scroll_dist_mu + 0.25 * normal(rng)).exp().clamp(20.0, 5_000.0);
        let speed = (d.scroll_speed_mu + 0.2 * normal(rng)).exp().clamp(0.05, 10.0);
        let dur = (dist / speed).clamp(48.0, 3_000.0);
        let n = ((dur / 16.0).round() as usize).max(3);
        let sign = if rng.gen_bool(0.7) { 1.0 } else { -1.0 };
        // Decaying fling: step k proportional to (n - k).
        let total: f64 = (1..=n).map(|k| (n + 1 - k) as f64).sum();
        for k in 1..=n {
            let step = dist * (n + 1 - k) as f64 / total;
            let ts = start + dur * (k as f64) / (n as f64);
            ev.push((ts, json!({"type": "scroll", "t": ts.round() as i64, "dx": 0.0, "dy": r1(sign * step)})));
        }
        start + dur
    }
}

fn r1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

fn r3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

fn touch(kind: &str, t: f64, x: f64, y: f64, pressure: Option<f64>, size: Option<f64>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(kind));
    m.insert("t".into(), json!(t.round() as i64));
    m.insert("x".into(), json!(r1(x)));
    m.insert("y".into(), json!(r1(y)));
    if let Some(p) = pressure {
        m.insert("pressure".into(), json!(r3(p)));
    }
    if let Some(s) = size {
        m.insert("size".into(), json!(r3(s)));
    }
    Value::Object(m)
}

/// A population of `n` users derived from one seed.
pub fn population(seed: u64, n: usize) -> Vec<User> {
    (0..n as u64).map(|i| User::new(derive_seed(seed, i))).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_well_formed() {
        let u = User::new(42);
        assert_eq!(u, User::new(42));
        assert_ne!(u, User::new(43));
        let a = u.session_batches(4, &mut ChaCha8Rng::seed_from_u64(9));
        let b = u.session_batches(4, &mut ChaCha8Rng::seed_from_u64(9));
        assert_eq!(a, b);
        assert_eq!(a.len(), 4);
        assert!(a[0].get("device").is_some());
        // Timestamps are non-decreasing across batches, and the extractor accepts everything.
        let mut last = -1i64;
        let mut n = 0;
        for batch in &a {
            for e in batch["events"].as_array().unwrap() {
                let t = e["t"].as_i64().unwrap();
                assert!(t >= last);
                last = t;
                n += 1;
            }
        }
        assert!(n > 300 && n < crate::features::MAX_EVENTS, "{n} events");
        let f = crate::extract(&a).unwrap();
        assert_eq!(f.counts.skipped, 0);
        assert_eq!(f.counts.events as usize, n);
        assert!(f.values.len() >= 18, "{} features", f.values.len());
    }

    #[test]
    fn key_events_carry_only_a_class() {
        let u = User::new(5);
        let batches = u.session_batches(2, &mut ChaCha8Rng::seed_from_u64(1));
        for b in &batches {
            for e in b["events"].as_array().unwrap() {
                if e["type"].as_str().unwrap().starts_with("key_") {
                    let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
                    assert_eq!(keys.len(), 3, "{e}");
                }
            }
        }
    }
}
