//! Feature extraction: from the `data` objects of a challenge's batches (the event schema
//! of docs/SCORING.md) to one [`SessionFeatures`] value.
//!
//! The extractor is total: it never panics on hostile input. Structural errors at the batch
//! level (a batch that is not an object, an `events` that is not an array, a `device` that
//! is not an object) are errors; problems inside single events (unknown type, missing or
//! non-numeric fields, out-of-range values, negative or decreasing timestamps) make the
//! event skipped and counted. Work is bounded by [`MAX_BATCHES`] and [`MAX_EVENTS`].
//!
//! Key values never enter the engine: a key event is read for its `t` and its coarse
//! `key_class` only; every other field of it (should an SDK send one) is ignored, and the
//! extracted features are session aggregates from which no text can be recovered.

use crate::stats::Welford;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, VecDeque};

/// Batches looked at per session; later batches are counted in `dropped_events` (as one
/// each) and otherwise ignored.
pub const MAX_BATCHES: usize = 256;
/// Events examined per session, across all batches; the rest are counted and ignored.
pub const MAX_EVENTS: usize = 20_000;
/// Largest accepted `t` (milliseconds since the challenge started): one hour.
pub const MAX_T_MS: f64 = 3_600_000.0;
/// Longest kept device string (characters); longer ones are truncated.
pub const MAX_DEVICE_STRING: usize = 64;
/// Points kept per touch gesture; further moves only extend the path length.
pub const MAX_GESTURE_POINTS: usize = 512;
/// Key presses kept per session.
pub const MAX_KEYS: usize = 4_096;
/// Version of the feature set; stored in baselines and feature vectors.
pub const FEATURE_SCHEMA_VERSION: u32 = 1;

/// The three groups of the spec's `data.groups`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalGroup {
    DeviceDescription,
    DeviceBehavior,
    UserBehavior,
}

impl SignalGroup {
    pub fn as_str(self) -> &'static str {
        match self {
            SignalGroup::DeviceDescription => "device_description",
            SignalGroup::DeviceBehavior => "device_behavior",
            SignalGroup::UserBehavior => "user_behavior",
        }
    }
}

/// One numeric behavioral feature. `prior_sd` is the between-session standard deviation
/// assumed for a user before their baseline has enough sessions (in the feature's unit,
/// log units for log-transformed features); `min_obs` the observations a session needs for
/// the feature to be computed; `weight` its weight inside its group.
#[derive(Debug, Clone, Copy)]
pub struct FeatureDef {
    pub name: &'static str,
    pub group: SignalGroup,
    pub unit: &'static str,
    pub prior_sd: f64,
    pub min_obs: u32,
    pub weight: f64,
}

const fn def(name: &'static str, group: SignalGroup, unit: &'static str, prior_sd: f64, min_obs: u32, weight: f64) -> FeatureDef {
    FeatureDef { name, group, unit, prior_sd, min_obs, weight }
}

use SignalGroup::{DeviceBehavior as DB, UserBehavior as UB};

/// The feature catalogue (documented in docs/SCORING.md, "Features").
pub const FEATURES: &[FeatureDef] = &[
    // Keystroke timing (never key values).
    def("keystroke.dwell_mean", UB, "mean ln(hold ms)", 0.10, 5, 1.0),
    def("keystroke.dwell_sd", UB, "sd ln(hold ms)", 0.035, 8, 1.0),
    def("keystroke.dd_mean", UB, "mean ln(down-down ms)", 0.15, 5, 1.0),
    def("keystroke.dd_sd", UB, "sd ln(down-down ms)", 0.075, 8, 0.25),
    def("keystroke.ud_mean", UB, "mean up-down ms", 45.0, 5, 1.0),
    def("keystroke.backspace_rate", UB, "backspaces / presses", 0.045, 10, 0.25),
    def("keystroke.digit_dwell_delta", UB, "mean ln hold digit - alpha", 0.10, 6, 0.25),
    // Touch: taps.
    def("tap.duration_mean", UB, "mean ln(ms)", 0.13, 3, 1.0),
    def("tap.pressure_mean", DB, "mean ln(pressure)", 0.09, 3, 1.0),
    def("tap.size_mean", DB, "mean ln(size)", 0.075, 3, 1.0),
    // Touch: swipes.
    def("swipe.velocity_mean", UB, "mean ln(dp/ms)", 0.19, 2, 1.0),
    def("swipe.peak_ratio", UB, "mean ln(peak/mean speed)", 0.08, 2, 0.25),
    def("swipe.length_mean", UB, "mean ln(dp)", 0.15, 2, 0.5),
    def("swipe.duration_mean", UB, "mean ln(ms)", 0.25, 2, 1.0),
    def("swipe.bow_mean", UB, "mean signed mid-path offset / chord", 0.022, 2, 1.0),
    def("swipe.start_x", UB, "mean start x / screen width", 0.05, 2, 1.0),
    def("swipe.pressure_mean", DB, "mean ln(pressure)", 0.09, 2, 1.0),
    // Motion sensors.
    def("motion.pitch", DB, "degrees", 11.0, 20, 0.5),
    def("motion.roll", DB, "degrees", 4.0, 20, 0.5),
    def("motion.jitter", DB, "ln(sd |a| m/s2)", 0.45, 20, 0.25),
    def("motion.gyro", DB, "ln(mean |w| rad/s)", 0.40, 20, 0.25),
    // Scroll.
    def("scroll.burst_distance", UB, "mean ln(dp)", 0.19, 2, 1.0),
    def("scroll.burst_speed", UB, "mean ln(dp/ms)", 0.19, 2, 1.0),
    // Focus / app switches.
    def("app.switch_rate", UB, "ln(1 + switches/min)", 0.42, 1, 0.25),
];

/// Looks a feature definition up by name.
pub fn feature_def(name: &str) -> Option<&'static FeatureDef> {
    FEATURES.iter().find(|f| f.name == name)
}

/// Why a session could not be turned into features.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FeatureError {
    #[error("no batches")]
    NoBatches,
    #[error("batch {batch}: {reason}")]
    MalformedBatch { batch: usize, reason: &'static str },
    #[error("no usable behavioral events ({skipped} skipped)")]
    NoBehavioralData { skipped: u32 },
}

impl FeatureError {
    /// Stable engine error code for `errors[].code` of a `data.status = failure` answer.
    pub fn code(&self) -> &'static str {
        match self {
            FeatureError::NoBatches => "no_event_data",
            FeatureError::MalformedBatch { .. } => "malformed_event_data",
            FeatureError::NoBehavioralData { .. } => "insufficient_event_data",
        }
    }
}

/// The device description sent by the SDK (all fields optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_height: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_density: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_version: Option<String>,
}

impl DeviceInfo {
    /// Parses the `device` object leniently: wrong-typed or out-of-range fields are dropped.
    pub fn from_json(obj: &Map<String, Value>) -> DeviceInfo {
        let s = |k: &str| obj.get(k).and_then(Value::as_str).map(clean_string).filter(|v| !v.is_empty());
        let dim = |k: &str| {
            obj.get(k)
                .and_then(Value::as_f64)
                .filter(|v| v.is_finite() && *v >= 1.0 && *v <= 20_000.0)
                .map(|v| v.round() as u32)
        };
        let screen = obj.get("screen").and_then(Value::as_object);
        let sdim = |k: &str| {
            screen
                .and_then(|o| o.get(k))
                .and_then(Value::as_f64)
                .filter(|v| v.is_finite() && *v >= 1.0 && *v <= 20_000.0)
                .map(|v| v.round() as u32)
        };
        let density = screen
            .and_then(|o| o.get("density"))
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite() && *v > 0.0 && *v <= 10.0)
            .map(|v| (v * 100.0).round() / 100.0);
        DeviceInfo {
            model: s("model"),
            os: s("os").map(|v| v.to_ascii_lowercase()),
            os_version: s("os_version"),
            screen_width: sdim("width").or_else(|| dim("screen_width")),
            screen_height: sdim("height").or_else(|| dim("screen_height")),
            screen_density: density,
            locale: s("locale"),
            timezone: s("timezone"),
            sdk_version: s("sdk_version"),
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == DeviceInfo::default()
    }

    /// The categorical attributes compared by the device-description group, as
    /// (attribute, canonical value) pairs; attributes the SDK did not send are absent.
    pub fn attributes(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::with_capacity(7);
        if let Some(v) = &self.model {
            out.push(("model", v.clone()));
        }
        if let Some(v) = &self.os {
            out.push(("os", v.clone()));
        }
        if let Some(v) = &self.os_version {
            out.push(("os_version", v.clone()));
        }
        if let (Some(w), Some(h)) = (self.screen_width, self.screen_height) {
            let d = self.screen_density.map(|d| format!("@{d}")).unwrap_or_default();
            out.push(("screen", format!("{w}x{h}{d}")));
        }
        if let Some(v) = &self.locale {
            out.push(("locale", v.clone()));
        }
        if let Some(v) = &self.timezone {
            out.push(("timezone", v.clone()));
        }
        if let Some(v) = &self.sdk_version {
            out.push(("sdk_version", v.clone()));
        }
        out
    }

    /// The device as JSON, for the policy context.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

fn clean_string(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(MAX_DEVICE_STRING).collect::<String>().trim().to_string()
}

/// One computed feature: its value and how many observations it is based on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub value: f64,
    pub n: u32,
}

/// Counters describing what the extractor saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventCounts {
    /// Events accepted.
    pub events: u32,
    /// Events skipped (malformed, unknown type, out of order, out of range).
    pub skipped: u32,
    /// Events not examined because of the caps.
    pub dropped: u32,
    pub key_presses: u32,
    pub taps: u32,
    pub swipes: u32,
    pub motion_samples: u32,
    pub scroll_events: u32,
    pub app_switches: u32,
    /// Time between the first and the last accepted event, ms.
    pub duration_ms: u64,
}

/// The feature vector of one session: what the baseline folds and what is scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionFeatures {
    pub schema_version: u32,
    pub device: DeviceInfo,
    /// False when batches of the same session described different devices.
    pub device_consistent: bool,
    /// Computed features by name (features without enough observations are absent).
    pub values: BTreeMap<String, Observed>,
    pub counts: EventCounts,
}

impl SessionFeatures {
    pub fn value(&self, name: &str) -> Option<f64> {
        self.values.get(name).map(|o| o.value).filter(|v| v.is_finite())
    }

    pub fn observed(&self, name: &str) -> Option<Observed> {
        self.values.get(name).copied().filter(|o| o.value.is_finite())
    }
}

#[derive(Clone, Copy)]
struct Pt {
    t: f64,
    x: f64,
    y: f64,
    pressure: Option<f64>,
    size: Option<f64>,
}

struct Gesture {
    pts: Vec<Pt>,
    path: f64,
    multi: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyClass {
    Alpha,
    Digit,
    Space,
    Backspace,
    Enter,
    Punct,
    Other,
}

impl KeyClass {
    fn parse(v: Option<&Value>) -> KeyClass {
        match v.and_then(Value::as_str) {
            Some("alpha") => KeyClass::Alpha,
            Some("digit") => KeyClass::Digit,
            Some("space") => KeyClass::Space,
            Some("backspace") => KeyClass::Backspace,
            Some("enter") => KeyClass::Enter,
            Some("punct") => KeyClass::Punct,
            _ => KeyClass::Other,
        }
    }
}

struct Press {
    down: f64,
    up: Option<f64>,
    class: KeyClass,
}

#[derive(Default)]
struct Acc {
    // keys
    presses: Vec<Press>,
    pending: VecDeque<usize>,
    // touch
    gesture: Option<Gesture>,
    tap_duration: Welford,
    tap_pressure: Welford,
    tap_size: Welford,
    swipe_velocity: Welford,
    swipe_peak: Welford,
    swipe_length: Welford,
    swipe_duration: Welford,
    swipe_bow: Welford,
    swipe_start_x: Welford,
    swipe_pressure: Welford,
    // motion
    acc_sum: [f64; 3],
    acc_mag: Welford,
    gyro_mag: Welford,
    motion_n: u32,
    // scroll
    scroll_last_t: Option<f64>,
    burst: Option<(f64, f64, f64)>, // (start t, last t, distance)
    burst_distance: Welford,
    burst_speed: Welford,
    // app
    switches: u32,
    counts: EventCounts,
    first_t: Option<f64>,
    last_t: f64,
}

fn num(obj: &Map<String, Value>, key: &str, lo: f64, hi: f64) -> Option<f64> {
    obj.get(key).and_then(Value::as_f64).filter(|v| v.is_finite() && *v >= lo && *v <= hi)
}

/// Extracts the session's features from the `data` objects of its batches, in `seq` order.
pub fn extract(batches: &[Value]) -> Result<SessionFeatures, FeatureError> {
    if batches.is_empty() {
        return Err(FeatureError::NoBatches);
    }
    let mut acc = Acc::default();
    let mut device: Option<DeviceInfo> = None;
    let mut device_consistent = true;
    let mut examined = 0usize;
    let mut last_t = f64::NEG_INFINITY;

    for (i, batch) in batches.iter().enumerate() {
        if i >= MAX_BATCHES {
            acc.counts.dropped = acc.counts.dropped.saturating_add(1);
            continue;
        }
        let obj = batch.as_object().ok_or(FeatureError::MalformedBatch { batch: i, reason: "data is not an object" })?;
        match obj.get("device") {
            None | Some(Value::Null) => {}
            Some(Value::Object(d)) => {
                let info = DeviceInfo::from_json(d);
                match &device {
                    None => device = Some(info),
                    Some(first) if *first != info => device_consistent = false,
                    Some(_) => {}
                }
            }
            Some(_) => return Err(FeatureError::MalformedBatch { batch: i, reason: "device is not an object" }),
        }
        let events = match obj.get("events") {
            None | Some(Value::Null) => continue,
            Some(Value::Array(a)) => a,
            Some(_) => return Err(FeatureError::MalformedBatch { batch: i, reason: "events is not an array" }),
        };
        for ev in events {
            if examined >= MAX_EVENTS {
                acc.counts.dropped = acc.counts.dropped.saturating_add(1);
                continue;
            }
            examined += 1;
            let accepted = match ev.as_object() {
                Some(e) => event(&mut acc, e, &mut last_t, device.as_ref()),
                None => false,
            };
            if accepted {
                acc.counts.events += 1;
            } else {
                acc.counts.skipped += 1;
            }
        }
    }
    let device = device.unwrap_or_default();
    let values = finish(&mut acc);
    if values.is_empty() {
        return Err(FeatureError::NoBehavioralData { skipped: acc.counts.skipped });
    }
    Ok(SessionFeatures { schema_version: FEATURE_SCHEMA_VERSION, device, device_consistent, values, counts: acc.counts })
}

/// Handles one event; returns whether it was accepted.
fn event(acc: &mut Acc, e: &Map<String, Value>, last_t: &mut f64, device: Option<&DeviceInfo>) -> bool {
    let Some(kind) = e.get("type").and_then(Value::as_str) else { return false };
    let Some(t) = num(e, "t", 0.0, MAX_T_MS) else { return false };
    if t < *last_t {
        return false; // out of order
    }
    let ok = match kind {
        "touch_down" | "touch_move" | "touch_up" => touch(acc, kind, t, e, device),
        "key_down" | "key_up" => key(acc, kind, t, e),
        "motion" => motion(acc, e),
        "scroll" => scroll(acc, t, e),
        "app_background" => {
            acc.switches += 1;
            acc.counts.app_switches += 1;
            true
        }
        "app_foreground" => true,
        _ => false,
    };
    if ok {
        *last_t = t;
        acc.first_t.get_or_insert(t);
        acc.last_t = t;
    }
    ok
}

fn touch(acc: &mut Acc, kind: &str, t: f64, e: &Map<String, Value>, device: Option<&DeviceInfo>) -> bool {
    let pointer = e.get("pointer").and_then(Value::as_u64).unwrap_or(0);
    let (Some(x), Some(y)) = (num(e, "x", -1_000.0, 20_000.0), num(e, "y", -1_000.0, 20_000.0)) else {
        return false;
    };
    let pt = Pt { t, x, y, pressure: num(e, "pressure", 0.0, 16.0), size: num(e, "size", 0.0, 16.0) };
    if pointer != 0 {
        // A second finger: the gesture in progress is multi-touch and not used.
        if let Some(g) = acc.gesture.as_mut() {
            g.multi = true;
        }
        return true;
    }
    match kind {
        "touch_down" => {
            // A down while a gesture is open aborts the open one.
            acc.gesture = Some(Gesture { pts: vec![pt], path: 0.0, multi: false });
            true
        }
        "touch_move" => match acc.gesture.as_mut() {
            Some(g) => {
                add_point(g, pt);
                true
            }
            None => false,
        },
        _ => match acc.gesture.take() {
            Some(mut g) => {
                add_point(&mut g, pt);
                finish_gesture(acc, &g, device);
                true
            }
            None => false,
        },
    }
}

fn add_point(g: &mut Gesture, pt: Pt) {
    if let Some(last) = g.pts.last() {
        g.path += (pt.x - last.x).hypot(pt.y - last.y);
    }
    if g.pts.len() < MAX_GESTURE_POINTS {
        g.pts.push(pt);
    } else if let Some(last) = g.pts.last_mut() {
        *last = pt;
    }
}

fn finish_gesture(acc: &mut Acc, g: &Gesture, device: Option<&DeviceInfo>) {
    let (Some(first), Some(last)) = (g.pts.first(), g.pts.last()) else { return };
    if g.multi {
        return;
    }
    let duration = last.t - first.t;
    if !(duration > 0.0 && duration <= 10_000.0) {
        return;
    }
    let chord = (last.x - first.x).hypot(last.y - first.y);
    let pressures: Vec<f64> = g.pts.iter().filter_map(|p| p.pressure).filter(|p| *p > 0.0).collect();
    let mean_pressure = (!pressures.is_empty()).then(|| pressures.iter().sum::<f64>() / pressures.len() as f64);
    if chord < 12.0 && g.path < 24.0 && duration < 400.0 {
        acc.counts.taps += 1;
        acc.tap_duration.push(duration.ln());
        if let Some(p) = mean_pressure {
            acc.tap_pressure.push(p.ln());
        }
        let sizes: Vec<f64> = g.pts.iter().filter_map(|p| p.size).filter(|s| *s > 0.0).collect();
        if !sizes.is_empty() {
            acc.tap_size.push((sizes.iter().sum::<f64>() / sizes.len() as f64).ln());
        }
        return;
    }
    if chord < 24.0 || g.pts.len() < 3 {
        return; // long press or small drag: not used
    }
    acc.counts.swipes += 1;
    let velocity = g.path / duration;
    acc.swipe_velocity.push(velocity.ln());
    acc.swipe_length.push(g.path.ln());
    acc.swipe_duration.push(duration.ln());
    // Peak speed over windows of at least 20 ms.
    let mut peak: f64 = 0.0;
    let mut j = 0usize;
    for i in 1..g.pts.len() {
        while j < i && g.pts[i].t - g.pts[j].t >= 20.0 {
            let dt = g.pts[i].t - g.pts[j].t;
            let d = (g.pts[i].x - g.pts[j].x).hypot(g.pts[i].y - g.pts[j].y);
            peak = peak.max(d / dt);
            j += 1;
        }
    }
    if peak > 0.0 && velocity > 0.0 {
        acc.swipe_peak.push((peak / velocity).max(1e-3).ln());
    }
    // Bow: perpendicular offset of the path's half-length point from the chord, over the chord,
    // signed so that positive is towards +x (towards +y for a vertical normal).
    let (ux, uy) = ((last.x - first.x) / chord, (last.y - first.y) / chord);
    let (mut nx, mut ny) = (-uy, ux);
    if nx < -1e-9 || (nx.abs() <= 1e-9 && ny < 0.0) {
        nx = -nx;
        ny = -ny;
    }
    let half = g.path / 2.0;
    let mut walked = 0.0;
    let mut mid = *first;
    for w in g.pts.windows(2) {
        walked += (w[1].x - w[0].x).hypot(w[1].y - w[0].y);
        mid = w[1];
        if walked >= half {
            break;
        }
    }
    let bow = ((mid.x - first.x) * nx + (mid.y - first.y) * ny) / chord;
    if bow.is_finite() {
        acc.swipe_bow.push(bow.clamp(-2.0, 2.0));
    }
    if let Some(w) = device.and_then(|d| d.screen_width) {
        let fx = first.x / f64::from(w);
        if (-0.2..=1.2).contains(&fx) {
            acc.swipe_start_x.push(fx);
        }
    }
    if let Some(p) = mean_pressure {
        acc.swipe_pressure.push(p.ln());
    }
}

fn key(acc: &mut Acc, kind: &str, t: f64, e: &Map<String, Value>) -> bool {
    if kind == "key_down" {
        if acc.presses.len() >= MAX_KEYS {
            return false;
        }
        acc.presses.push(Press { down: t, up: None, class: KeyClass::parse(e.get("key_class")) });
        acc.pending.push_back(acc.presses.len() - 1);
        if acc.pending.len() > 16 {
            acc.pending.pop_front();
        }
        true
    } else {
        match acc.pending.pop_front() {
            Some(i) => {
                if let Some(p) = acc.presses.get_mut(i) {
                    p.up = Some(t);
                }
                true
            }
            None => false,
        }
    }
}

fn motion(acc: &mut Acc, e: &Map<String, Value>) -> bool {
    let a = (num(e, "ax", -200.0, 200.0), num(e, "ay", -200.0, 200.0), num(e, "az", -200.0, 200.0));
    let (Some(ax), Some(ay), Some(az)) = a else { return false };
    acc.acc_sum[0] += ax;
    acc.acc_sum[1] += ay;
    acc.acc_sum[2] += az;
    acc.acc_mag.push((ax * ax + ay * ay + az * az).sqrt());
    let g = (num(e, "gx", -100.0, 100.0), num(e, "gy", -100.0, 100.0), num(e, "gz", -100.0, 100.0));
    if let (Some(gx), Some(gy), Some(gz)) = g {
        acc.gyro_mag.push((gx * gx + gy * gy + gz * gz).sqrt());
    }
    acc.motion_n += 1;
    acc.counts.motion_samples += 1;
    true
}

fn scroll(acc: &mut Acc, t: f64, e: &Map<String, Value>) -> bool {
    let dx = num(e, "dx", -20_000.0, 20_000.0).unwrap_or(0.0);
    let Some(dy) = num(e, "dy", -20_000.0, 20_000.0) else { return false };
    let d = dx.hypot(dy);
    acc.counts.scroll_events += 1;
    let continues = acc.scroll_last_t.is_some_and(|lt| t - lt <= 150.0);
    match (&mut acc.burst, continues) {
        (Some(b), true) => {
            b.1 = t;
            b.2 += d;
        }
        _ => {
            close_burst(acc);
            acc.burst = Some((t, t, d));
        }
    }
    acc.scroll_last_t = Some(t);
    true
}

fn close_burst(acc: &mut Acc) {
    if let Some((start, end, dist)) = acc.burst.take() {
        let dur = end - start;
        if dist >= 1.0 && dur >= 16.0 {
            acc.burst_distance.push(dist.ln());
            acc.burst_speed.push((dist / dur).ln());
        }
    }
}

fn finish(acc: &mut Acc) -> BTreeMap<String, Observed> {
    close_burst(acc);
    acc.counts.duration_ms = match acc.first_t {
        Some(f) => (acc.last_t - f).max(0.0) as u64,
        None => 0,
    };
    let mut out = BTreeMap::new();
    let mut put = |name: &str, value: Option<f64>, n: u32| {
        let Some(v) = value.filter(|v| v.is_finite()) else { return };
        if let Some(d) = feature_def(name) {
            if n >= d.min_obs {
                out.insert(name.to_string(), Observed { value: v, n });
            }
        }
    };
    let mean = |w: &Welford| w.mean();

    // Keystrokes.
    let mut dwell = Welford::default();
    let mut dwell_alpha = Welford::default();
    let mut dwell_digit = Welford::default();
    let mut dd = Welford::default();
    let mut ud = Welford::default();
    let mut backspaces = 0u32;
    for p in &acc.presses {
        if p.class == KeyClass::Backspace {
            backspaces += 1;
        }
        if let Some(up) = p.up {
            let h = up - p.down;
            if h > 0.0 && h <= 2_000.0 {
                dwell.push(h.ln());
                match p.class {
                    KeyClass::Alpha => dwell_alpha.push(h.ln()),
                    KeyClass::Digit => dwell_digit.push(h.ln()),
                    _ => {}
                }
            }
        }
    }
    for w in acc.presses.windows(2) {
        let d = w[1].down - w[0].down;
        if d > 0.0 && d <= 1_500.0 {
            dd.push(d.ln());
            if let Some(up0) = w[0].up {
                let f = w[1].down - up0;
                if (-1_000.0..=1_500.0).contains(&f) {
                    ud.push(f);
                }
            }
        }
    }
    acc.counts.key_presses = acc.presses.len() as u32;
    put("keystroke.dwell_mean", mean(&dwell), dwell.n);
    put("keystroke.dwell_sd", dwell.sd(), dwell.n);
    put("keystroke.dd_mean", mean(&dd), dd.n);
    put("keystroke.dd_sd", dd.sd(), dd.n);
    put("keystroke.ud_mean", mean(&ud), ud.n);
    let np = acc.presses.len() as u32;
    put("keystroke.backspace_rate", (np > 0).then(|| f64::from(backspaces) / f64::from(np)), np);
    if dwell_alpha.n >= 3 && dwell_digit.n >= 3 {
        let delta = dwell_digit.mean - dwell_alpha.mean;
        put("keystroke.digit_dwell_delta", Some(delta), dwell_alpha.n + dwell_digit.n);
    }

    // Touch.
    put("tap.duration_mean", mean(&acc.tap_duration), acc.tap_duration.n);
    put("tap.pressure_mean", mean(&acc.tap_pressure), acc.tap_pressure.n);
    put("tap.size_mean", mean(&acc.tap_size), acc.tap_size.n);
    put("swipe.velocity_mean", mean(&acc.swipe_velocity), acc.swipe_velocity.n);
    put("swipe.peak_ratio", mean(&acc.swipe_peak), acc.swipe_peak.n);
    put("swipe.length_mean", mean(&acc.swipe_length), acc.swipe_length.n);
    put("swipe.duration_mean", mean(&acc.swipe_duration), acc.swipe_duration.n);
    put("swipe.bow_mean", mean(&acc.swipe_bow), acc.swipe_bow.n);
    put("swipe.start_x", mean(&acc.swipe_start_x), acc.swipe_start_x.n);
    put("swipe.pressure_mean", mean(&acc.swipe_pressure), acc.swipe_pressure.n);

    // Motion.
    if acc.motion_n > 0 {
        let n = f64::from(acc.motion_n);
        let (ax, ay, az) = (acc.acc_sum[0] / n, acc.acc_sum[1] / n, acc.acc_sum[2] / n);
        if (ax * ax + ay * ay + az * az).sqrt() > 1.0 {
            put("motion.pitch", Some(ay.atan2(az).to_degrees()), acc.motion_n);
            put("motion.roll", Some(ax.atan2(ay.hypot(az)).to_degrees()), acc.motion_n);
        }
        put("motion.jitter", acc.acc_mag.sd().map(|s| (s + 0.01).ln()), acc.acc_mag.n);
        put("motion.gyro", mean(&acc.gyro_mag).map(|g| (g + 0.001).ln()), acc.gyro_mag.n);
    }

    // Scroll.
    put("scroll.burst_distance", mean(&acc.burst_distance), acc.burst_distance.n);
    put("scroll.burst_speed", mean(&acc.burst_speed), acc.burst_speed.n);

    // App switches: needs at least 10 s of session.
    if acc.counts.duration_ms >= 10_000 {
        let minutes = acc.counts.duration_ms as f64 / 60_000.0;
        put("app.switch_rate", Some((1.0 + f64::from(acc.switches) / minutes).ln()), 1);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn typing(n: usize, start: f64) -> Vec<Value> {
        let mut ev = Vec::new();
        let mut t = start;
        for i in 0..n {
            let class = if i % 7 == 3 { "digit" } else { "alpha" };
            ev.push(json!({"type": "key_down", "t": t, "key_class": class}));
            ev.push(json!({"type": "key_up", "t": t + 90.0 + (i % 3) as f64 * 10.0, "key_class": class}));
            t += 200.0 + (i % 4) as f64 * 15.0;
        }
        ev
    }

    #[test]
    fn keystroke_features_are_computed() {
        let f = extract(&[json!({"device": {"model": "X"}, "events": typing(30, 0.0)})]).unwrap();
        let dwell = f.value("keystroke.dwell_mean").unwrap().exp();
        assert!((90.0..=110.0).contains(&dwell), "dwell {dwell}");
        let dd = f.value("keystroke.dd_mean").unwrap().exp();
        assert!((200.0..=245.0).contains(&dd), "dd {dd}");
        assert!(f.value("keystroke.ud_mean").unwrap() > 90.0);
        assert_eq!(f.counts.key_presses, 30);
        assert_eq!(f.device.model.as_deref(), Some("X"));
    }

    #[test]
    fn swipe_and_tap_features() {
        let mut ev = Vec::new();
        for k in 0..4 {
            let t0 = 1000.0 * f64::from(k);
            ev.push(json!({"type": "touch_down", "t": t0, "x": 200.0, "y": 600.0, "pressure": 0.5, "size": 0.2}));
            for s in 1..10 {
                let s = f64::from(s);
                ev.push(json!({"type": "touch_move", "t": t0 + s * 16.0, "x": 200.0 + 3.0 * s * (10.0 - s), "y": 600.0 - s * 40.0, "pressure": 0.5}));
            }
            ev.push(json!({"type": "touch_up", "t": t0 + 160.0, "x": 200.0, "y": 200.0}));
            ev.push(json!({"type": "touch_down", "t": t0 + 500.0, "x": 100.0, "y": 100.0, "pressure": 0.3, "size": 0.1}));
            ev.push(json!({"type": "touch_up", "t": t0 + 580.0, "x": 101.0, "y": 100.0}));
        }
        let f = extract(&[json!({"device": {"screen": {"width": 400, "height": 800}}, "events": ev})]).unwrap();
        assert_eq!(f.counts.swipes, 4);
        assert_eq!(f.counts.taps, 4);
        assert!((f.value("tap.duration_mean").unwrap().exp() - 80.0).abs() < 1e-6);
        assert!((f.value("tap.pressure_mean").unwrap().exp() - 0.3).abs() < 1e-6);
        // Upward swipe bowing towards +x: positive bow.
        assert!(f.value("swipe.bow_mean").unwrap() > 0.1);
        assert!((f.value("swipe.start_x").unwrap() - 0.5).abs() < 1e-9);
        assert!(f.value("swipe.velocity_mean").unwrap().exp() > 2.0);
        assert!(f.value("swipe.peak_ratio").unwrap() > 0.0);
    }

    #[test]
    fn hostile_input_never_panics() {
        let huge: Vec<Value> = (0..(MAX_EVENTS + 500)).map(|i| json!({"type": "key_down", "t": i})).collect();
        let cases = vec![
            vec![],
            vec![json!(null)],
            vec![json!([1, 2])],
            vec![json!({"events": "nope"})],
            vec![json!({"device": 7, "events": []})],
            vec![json!({"events": [null, 1, "x", [], {}, {"type": 5}, {"type": "touch_down", "t": -5, "x": 1, "y": 1}]})],
            vec![json!({"events": [{"type": "touch_down", "t": 1e308, "x": 1e308, "y": -1e308}]})],
            vec![json!({"events": [{"type": "key_up", "t": 10}, {"type": "touch_up", "t": 11, "x": 1, "y": 1}, {"type": "touch_move", "t": 12, "x": 1, "y": 1}]})],
            vec![json!({"events": [{"type": "motion", "t": 1, "ax": "1", "ay": 2, "az": 3}]})],
            vec![json!({"events": huge})],
            vec![json!({"device": {"model": "a".repeat(100_000), "screen": {"width": -1, "height": 1e300, "density": "x"}}, "events": typing(10, 0.0)})],
        ];
        for batches in cases {
            let _ = extract(&batches);
        }
        assert_eq!(extract(&[]), Err(FeatureError::NoBatches));
        assert!(matches!(extract(&[json!({"events": "nope"})]), Err(FeatureError::MalformedBatch { .. })));
        assert!(matches!(extract(&[json!({"events": []})]), Err(FeatureError::NoBehavioralData { .. })));
    }

    #[test]
    fn mutated_sessions_never_panic() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
        let user = crate::synth::User::new(12);
        let junk = [
            json!(null), json!(-1), json!(1e300), json!(-1e300), json!("x"), json!([]), json!({}),
            json!(u64::MAX), json!(i64::MIN), json!(0.5), json!(true), json!([[[[1]]]]),
        ];
        for _ in 0..200 {
            let mut batches = user.session_batches(rng.gen_range(1..4), &mut rng);
            for _ in 0..rng.gen_range(1..40) {
                let b = rng.gen_range(0..batches.len());
                let Some(events) = batches[b].get_mut("events").and_then(Value::as_array_mut) else { continue };
                if events.is_empty() {
                    continue;
                }
                let i = rng.gen_range(0..events.len());
                let j = junk[rng.gen_range(0..junk.len())].clone();
                match rng.gen_range(0..4) {
                    0 => events[i] = j,
                    1 => {
                        if let Some(o) = events[i].as_object_mut() {
                            let keys: Vec<String> = o.keys().cloned().collect();
                            let k = keys[rng.gen_range(0..keys.len())].clone();
                            o.insert(k, j);
                        }
                    }
                    2 => {
                        let k = rng.gen_range(0..events.len());
                        events.swap(i, k);
                    }
                    _ => {
                        let e = events[i].clone();
                        events.insert(i, e);
                    }
                }
            }
            if rng.gen_bool(0.1) {
                batches[0]["device"] = junk[rng.gen_range(0..junk.len())].clone();
            }
            if let Ok(f) = extract(&batches) {
                assert!(f.values.values().all(|o| o.value.is_finite()));
            }
        }
    }

    #[test]
    fn caps_bound_work_and_order_is_enforced() {
        let huge: Vec<Value> = (0..(MAX_EVENTS + 500)).map(|i| json!({"type": "scroll", "t": i, "dy": 3})).collect();
        let f = extract(&[json!({"events": huge})]).unwrap();
        assert_eq!(f.counts.events as usize + f.counts.skipped as usize, MAX_EVENTS);
        assert_eq!(f.counts.dropped, 500);

        // Out-of-order events are skipped: the 2nd batch goes back in time.
        let f = extract(&[json!({"events": typing(20, 10_000.0)}), json!({"events": typing(20, 0.0)})]).unwrap();
        assert_eq!(f.counts.key_presses, 20);
        assert_eq!(f.counts.skipped, 40);
    }

    #[test]
    fn device_strings_are_bounded_and_changes_detected() {
        let long = "m".repeat(1000);
        let f = extract(&[
            json!({"device": {"model": long, "os": "Android"}, "events": typing(10, 0.0)}),
            json!({"device": {"model": "other"}, "events": typing(10, 5_000.0)}),
        ])
        .unwrap();
        assert_eq!(f.device.model.as_ref().map(|m| m.chars().count()), Some(MAX_DEVICE_STRING));
        assert_eq!(f.device.os.as_deref(), Some("android"));
        assert!(!f.device_consistent);
    }

    #[test]
    fn key_values_are_never_kept() {
        let ev = vec![
            json!({"type": "key_down", "t": 0, "key_class": "alpha", "key": "p"}),
            json!({"type": "key_up", "t": 80, "key": "p"}),
        ];
        let mut all = ev.clone();
        all.extend(typing(10, 1000.0));
        let f = extract(&[json!({"events": all})]).unwrap();
        let text = serde_json::to_string(&f).unwrap();
        assert!(!text.contains("\"p\""));
        assert!(!text.contains("key\""));
    }
}
