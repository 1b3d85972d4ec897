//! Matcher evaluation (docs/VISION.md, "Matcher"): what the service runs — dlib's
//! embedding and SFace's, fused (`matching::fused_distance`) — beside each alone and the
//! alternatives tried before: the faceplugin 512-number embedding alone and averaged
//! with dlib's, dlib with its mirror image averaged, dlib with cohort normalisation — on
//! every labelled pair the installed real photos and videos give:
//! - genuine: Obama × Obama from different photos; frames of one video ≥ 1 s apart;
//! - impostor: different people in one group photo (neighbours, one camera, one shoot:
//!   the look-alikes), Obama/Biden × group faces, Obama × Biden, video people × photo
//!   faces, the two different video people × each other.
//!
//! For each method: the distance distributions, and impostor rejection at 100% genuine
//! acceptance (the threshold set just above the worst genuine pair), and at the
//! configured decision.
//!
//!     cargo run --release -p idv-vision --bin matcher_eval [-- --frames N]
//!
//! Prints figures; asserts nothing.

use idv_vision::arcface::ArcFaceEmbedder;
use idv_vision::detect::{DetectParams, Face, Mtcnn};
use idv_vision::landmarks::Landmarker;
use idv_vision::matching::{euclidean_distance, fused_distance, MatchConfig, MatchDecision};
use idv_vision::sface::SFaceEmbedder;
use idv_vision::quality::{main_face, QualityParams};
use idv_vision::testdata::{self, EVAL_PHOTOS};
use idv_vision::video::VideoDecoder;
use idv_vision::{decode, models_dir, DecodeLimits, DlibEmbedder, FaceEmbedder, OrtConfig, OrtRuntime, RgbImage};

/// The mean of dlib's distance and the faceplugin distance (unit vectors, so 0 to 2)
/// halved onto dlib's scale: a fusion evaluated here (not what the service runs).
fn faceplugin_fused(dlib: f32, faceplugin: f32) -> f32 {
    0.5 * (dlib + 0.5 * faceplugin)
}

/// Videos with one person each. face_noface and noface_face show the person of
/// single_face (dlib distance 0.05 between them) or someone very like them: their pairs
/// with single_face and each other are not labelled.
const VIDEOS: [(&str, &str); 4] = [
    ("testvid-pyfeat-single-face", "video-a"),
    ("testvid-pyfeat-pexels", "video-b"),
    ("testvid-pyfeat-face-noface", "video-a?"),
    ("testvid-pyfeat-noface-face", "video-a?"),
];

struct Rec {
    name: String,
    /// Person: "obama", "biden", "video-a", ... or "" for a group face.
    who: String,
    /// One original photo or one video.
    source: String,
    time_s: f64,
    dlib: Vec<f32>,
    /// dlib's 128 numbers followed by SFace's: the service's fused vector.
    fused: Vec<f32>,
    arc: Vec<f32>,
    flip: Vec<f32>,
}

#[derive(PartialEq, Clone, Copy, Debug)]
enum Kind {
    Genuine,
    Impostor,
    LookAlike,
    Skip,
}

fn kind(a: &Rec, b: &Rec) -> Kind {
    let video = |r: &Rec| r.who.starts_with("video");
    if a.who.is_empty() && b.who.is_empty() {
        // Group faces: different people within one photo (neighbours: look-alike class),
        // unknown across photos.
        return if a.source == b.source { Kind::LookAlike } else { Kind::Skip };
    }
    if a.who.ends_with('?') || b.who.ends_with('?') {
        let base = |r: &Rec| r.who.trim_end_matches('?').to_string();
        return if base(a) == base(b) { Kind::Skip } else { Kind::Impostor };
    }
    if a.who == b.who {
        if a.source != b.source || (video(a) && (a.time_s - b.time_s).abs() >= 1.0) {
            return Kind::Genuine;
        }
        return Kind::Skip;
    }
    Kind::Impostor
}

fn main() {
    let mut frames_per_video = 16usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--frames" => frames_per_video = args.next().and_then(|v| v.parse().ok()).unwrap_or(16),
            _ => return eprintln!("usage: matcher_eval [--frames N]"),
        }
    }
    let dir = models_dir();
    let rt = OrtRuntime::new(OrtConfig::with_models_dir(&dir));
    let (mtcnn, dlib, arc, sface) = match (Mtcnn::load(&rt), DlibEmbedder::load(&rt, &dir), ArcFaceEmbedder::load(&rt), SFaceEmbedder::load(&rt)) {
        (Ok(m), Ok(d), Ok(a), Ok(s)) => (m, d, a, s),
        (Err(e), _, _, _) => return eprintln!("matcher_eval: {e}"),
        (_, Err(e), _, _) => return eprintln!("matcher_eval: {e}"),
        (_, _, Err(e), _) => return eprintln!("matcher_eval: {e}"),
        (_, _, _, Err(e)) => return eprintln!("matcher_eval: {e}"),
    };
    let landmarker = Landmarker::load(&rt).ok();
    let qp = QualityParams::default();
    let mut recs: Vec<Rec> = Vec::new();
    let add = |img: &RgbImage, face: &Face, name: String, who: &str, source: String, time_s: f64, recs: &mut Vec<Rec>| {
        let d = dlib.embed_faces(img, std::slice::from_ref(face)).ok().and_then(|mut v| v.pop());
        // The chip and its mirror image, averaged (test-time augmentation).
        let flip = dlib.align_face(img, face).ok().and_then(|a| {
            let m = image::imageops::flip_horizontal(&a.chip);
            let v = dlib.embed_chips(&[&a.chip, &m]).ok()?;
            Some(v[0].vector.iter().zip(&v[1].vector).map(|(x, y)| (x + y) / 2.0).collect::<Vec<f32>>())
        });
        // IDV_ARC_VARIANT (evaluation only): "mtcnn5" uses MTCNN's points, "bgr" swaps
        // the channels, "mtcnn5-bgr" both; unset is the service's way.
        let variant = std::env::var("IDV_ARC_VARIANT").unwrap_or_default();
        let swapped;
        let src = if variant.contains("bgr") {
            let mut c = img.clone();
            for p in c.pixels_mut() {
                p.0.swap(0, 2);
            }
            swapped = c;
            &swapped
        } else {
            img
        };
        let a = if variant.contains("mtcnn5") { arc.embed(src, face, None).ok() } else { arc.embed_with(src, face, landmarker.as_ref()).ok() };
        // SFace as the service runs it: five points from the 68 landmarks when installed.
        let lm = landmarker.as_ref().and_then(|l| l.landmarks(img, face).ok());
        let s = sface.embed(img, face, lm.as_ref()).ok();
        if let (Some(d), Some(a), Some(flip), Some(s)) = (d, a, flip, s) {
            let fused = d.vector.iter().chain(&s.vector).copied().collect();
            recs.push(Rec { name, who: who.to_string(), source, time_s, dlib: d.vector, fused, arc: a.vector, flip });
        }
    };
    for (photo, who, source) in EVAL_PHOTOS {
        let Ok(img) = testdata::read_test_image(&dir, photo).and_then(|b| decode(&b, &DecodeLimits::default()).map_err(|e| e.to_string())) else {
            return eprintln!("matcher_eval: {photo}: cannot read");
        };
        let faces = mtcnn.detect(&img, &DetectParams::default()).unwrap_or_default();
        for f in faces.iter().filter(|f| f.score >= 0.9) {
            let name = format!("{photo}@({:.0},{:.0})", (f.rect[0] + f.rect[2]) / 2.0, (f.rect[1] + f.rect[3]) / 2.0);
            add(&img, f, name, who, source.to_string(), 0.0, &mut recs);
        }
    }
    let mut decoder = VideoDecoder::from_env();
    decoder.limits.sample_frames = frames_per_video;
    for (id, who) in VIDEOS {
        match testdata::read_test_video(&dir, id).and_then(|b| decoder.sample(&b).map_err(|e| e.to_string())) {
            Ok(frames) => {
                for (i, f) in frames.iter().enumerate() {
                    let faces = mtcnn.detect(&f.image, &DetectParams::default()).unwrap_or_default();
                    if let Some(face) = main_face(&faces, &qp) {
                        add(&f.image, face, format!("{id}#{i}"), who, id.to_string(), f.time_s, &mut recs);
                    }
                }
            }
            Err(e) => eprintln!("matcher_eval: {id}: {e} (left out)"),
        }
    }
    // Pairs.
    // (kind, dlib, faceplugin, i, j, fused, SFace cosine distance)
    let mut pairs: Vec<(Kind, f32, f32, usize, usize, f32, f32)> = Vec::new();
    let mut flips: Vec<(Kind, f32)> = Vec::new();
    for i in 0..recs.len() {
        for j in i + 1..recs.len() {
            let k = kind(&recs[i], &recs[j]);
            if k == Kind::Skip {
                continue;
            }
            let (Some(dd), Some(da), Some(df)) =
                (euclidean_distance(&recs[i].dlib, &recs[j].dlib), euclidean_distance(&recs[i].arc, &recs[j].arc), fused_distance(&recs[i].fused, &recs[j].fused))
            else {
                continue;
            };
            let cos: f32 = recs[i].fused[128..].iter().zip(&recs[j].fused[128..]).map(|(x, y)| x * y).sum();
            pairs.push((k, dd, da, i, j, df, 1.0 - cos));
            flips.extend(euclidean_distance(&recs[i].flip, &recs[j].flip).map(|d| (k, d)));
        }
    }
    let count = |k: Kind| pairs.iter().filter(|p| p.0 == k).count();
    println!(
        "{} faces; pairs: genuine {}, impostor {}, look-alike (neighbours in one group photo) {}",
        recs.len(),
        count(Kind::Genuine),
        count(Kind::Impostor),
        count(Kind::LookAlike)
    );
    let cfg = MatchConfig::default();
    type Pair = (Kind, f32, f32, usize, usize, f32, f32);
    let methods: [(&str, Box<dyn Fn(&Pair) -> f32>); 5] = [
        ("dlib + SFace (service)", Box::new(|p| p.5)),
        ("dlib alone", Box::new(|p| p.1)),
        ("SFace alone (1 - cos)", Box::new(|p| p.6)),
        ("faceplugin 512 alone", Box::new(|p| p.2)),
        ("dlib + faceplugin", Box::new(|p| faceplugin_fused(p.1, p.2))),
    ];
    println!("{:<22} | {:>22} | {:>22} | {:>22} | at 100% genuine: threshold, impostor rejection (all / look-alikes)", "method", "genuine min/p50/max", "impostor min/p50", "look-alike min/p50");
    for (name, f) in &methods {
        let mut g: Vec<f32> = pairs.iter().filter(|p| p.0 == Kind::Genuine).map(f).collect();
        let mut im: Vec<f32> = pairs.iter().filter(|p| p.0 == Kind::Impostor).map(f).collect();
        let mut la: Vec<f32> = pairs.iter().filter(|p| p.0 == Kind::LookAlike).map(f).collect();
        for v in [&mut g, &mut im, &mut la] {
            v.sort_by(f32::total_cmp);
        }
        let s = |v: &[f32]| if v.is_empty() { "-".into() } else { format!("{:.3}/{:.3}/{:.3}", v[0], v[v.len() / 2], v[v.len() - 1]) };
        let worst_genuine = g.last().copied().unwrap_or(0.0);
        let rejected = |v: &[f32]| v.iter().filter(|&&x| x > worst_genuine).count();
        let all = im.len() + la.len();
        println!(
            "{name:<22} | {:>22} | {:>22} | {:>22} | {worst_genuine:.3}: {}/{all} = {:.1}% ({}/{} = {:.1}%)",
            s(&g),
            s(&im),
            s(&la),
            rejected(&im) + rejected(&la),
            100.0 * (rejected(&im) + rejected(&la)) as f64 / all.max(1) as f64,
            rejected(&la),
            la.len(),
            100.0 * rejected(&la) as f64 / la.len().max(1) as f64
        );
    }
    {
        let worst = flips.iter().filter(|p| p.0 == Kind::Genuine).map(|p| p.1).fold(0.0f32, f32::max);
        let imp: Vec<f32> = flips.iter().filter(|p| p.0 != Kind::Genuine).map(|p| p.1).collect();
        let la: Vec<f32> = flips.iter().filter(|p| p.0 == Kind::LookAlike).map(|p| p.1).collect();
        let r = |v: &[f32]| v.iter().filter(|&&x| x > worst).count();
        let mn = |v: &[f32]| v.iter().cloned().fold(f32::MAX, f32::min);
        println!("dlib + mirror (TTA)   | worst genuine {worst:.3}; impostor min {:.3}, look-alike min {:.3}; rejection {}/{} ({}/{} look-alikes)", mn(&imp), mn(&la), r(&imp), imp.len(), r(&la), la.len());
    }
    // Cohort normalisation (evaluation of an alternative): each pair's dlib distance
    // against both faces' distances to a cohort of other people (every face not from
    // either face's photo or video and not the same named person).
    {
        let cohort_stats = |i: usize, other: usize| {
            let d: Vec<f32> = recs
                .iter()
                .filter(|c| c.source != recs[i].source && c.source != recs[other].source)
                .filter(|c| c.who.is_empty() || (c.who.trim_end_matches('?') != recs[i].who.trim_end_matches('?') && c.who.trim_end_matches('?') != recs[other].who.trim_end_matches('?')))
                .filter_map(|c| euclidean_distance(&recs[i].dlib, &c.dlib))
                .collect();
            let n = d.len().max(1) as f32;
            let mean = d.iter().sum::<f32>() / n;
            let sd = (d.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n).sqrt().max(1e-3);
            (mean, sd)
        };
        let z: Vec<(Kind, f32, f32)> = pairs
            .iter()
            .map(|p| {
                let (ma, sa) = cohort_stats(p.3, p.4);
                let (mb, sb) = cohort_stats(p.4, p.3);
                (p.0, (p.1 - (ma + mb) / 2.0) / ((sa + sb) / 2.0), p.1)
            })
            .collect();
        let worst = z.iter().filter(|p| p.0 == Kind::Genuine).map(|p| p.1).fold(f32::MIN, f32::max);
        let imp: Vec<&(Kind, f32, f32)> = z.iter().filter(|p| p.0 != Kind::Genuine).collect();
        let la: Vec<&(Kind, f32, f32)> = z.iter().filter(|p| p.0 == Kind::LookAlike).collect();
        let r = |v: &[&(Kind, f32, f32)]| v.iter().filter(|p| p.1 > worst).count();
        println!("dlib, cohort z-score   | worst genuine z {worst:.2}; rejection {}/{} ({}/{} look-alikes)", r(&imp), imp.len(), r(&la), la.len());
        let mut g: Vec<f32> = z.iter().filter(|p| p.0 == Kind::Genuine).map(|p| p.1).collect();
        g.sort_by(f32::total_cmp);
        let mut i2: Vec<f32> = imp.iter().map(|p| p.1).collect();
        i2.sort_by(f32::total_cmp);
        println!("   genuine z p50 {:.2} max {:.2}; impostor z min {:.2} p50 {:.2}", g[g.len() / 2], g[g.len() - 1], i2[0], i2[i2.len() / 2]);
        let mut lz: Vec<(f32, f32)> = la.iter().map(|p| (p.1, p.2)).collect();
        lz.sort_by(|a, b| a.0.total_cmp(&b.0));
        println!("   look-alikes (z, d) lowest: {:?}", &lz[..lz.len().min(5)]);
    }
    // The service's decision: the fused distance against the configured bands (matched
    // below 0.55, unsure to 0.65); face authentication accepts only `matched`. Beside it,
    // the same bands on dlib's distance alone (the service before SFace).
    for (label, pick) in [("service (dlib + SFace)", 5usize), ("dlib alone, as before", 1)] {
        for k in [Kind::Genuine, Kind::Impostor, Kind::LookAlike] {
            let v: Vec<MatchDecision> =
                pairs.iter().filter(|p| p.0 == k).map(|p| idv_vision::matching::decide(if pick == 5 { p.5 } else { p.1 }, &cfg)).collect();
            let c = |d: MatchDecision| v.iter().filter(|&&x| x == d).count();
            println!(
                "{label} decision on {k:?} pairs: matched {}, unsure {}, unmatched {} (of {})",
                c(MatchDecision::Matched),
                c(MatchDecision::Unsure),
                c(MatchDecision::Unmatched),
                v.len()
            );
        }
    }
    // The closest impostors and the farthest genuine pairs, by the service's distance.
    let mut sorted: Vec<&Pair> = pairs.iter().collect();
    sorted.sort_by(|a, b| a.5.total_cmp(&b.5));
    let line = |p: &Pair| format!("{} × {}: fused {:.3}, dlib {:.3}, SFace {:.3}, faceplugin {:.3}", recs[p.3].name, recs[p.4].name, p.5, p.1, p.6, p.2);
    println!("closest impostor / look-alike pairs:");
    for p in sorted.iter().filter(|p| p.0 != Kind::Genuine).take(6) {
        println!("  {:?} {}", p.0, line(p));
    }
    println!("farthest genuine pairs:");
    for p in sorted.iter().rev().filter(|p| p.0 == Kind::Genuine).take(4) {
        println!("  {}", line(p));
    }
}
