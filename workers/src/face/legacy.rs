//! Operations of the published TrustVision SDK that map onto what the face pipeline
//! already computes (docs/API.md "TrustVision SDK compatibility"): passive liveness of
//! images (`verify_face_liveness_sync`) and portrait sanity (`verify_portrait_sanity_sync`).
//! `compare_faces_sync` is mix_compare_faces_sync under the SDK's path
//! ([`crate::face::ops`]); card sanity and tampering answer "not performed" in
//! [`crate::card`]. Verdict words are this service's (the contract's), not the SDK's.

use crate::face::ops::{finish, Biometrics, Stop};
use idv_schemas::api::{SingleImageRequest, VerifyFaceLivenessRequest};
use idv_schemas::jobs::Job;
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group};
use idv_store::StoreError;
use idv_vision::liveness::LivenessResult;
use serde_json::{json, Value};

const GROUP: Group = Group::CompareCard;



/// One image's liveness as the SDK lists it, or why it has none.
pub enum ImageLiveness {
    /// `is_live` `None`: the passive check ran and was uncertain.
    Live { is_live: Option<bool>, score: f32 },
    NoFace,
    NotPerformed(String),
}

/// The answer over every image: live only when every image was judged live, not live
/// when any was judged a spoof, no `is_live` (verdict `uncertain`) otherwise; the score is
/// the lowest. An image without a face fails the request (`image_has_no_faces`); one whose
/// liveness could not run makes the whole answer "not performed", never a guess. Pure.
pub fn liveness_answer(request_id: &str, images: &[(Option<String>, ImageLiveness)]) -> Envelope {
    let mut listed = Vec::new();
    let (mut any_spoof, mut any_uncertain, mut lowest) = (false, false, 1.0f32);
    for (id, l) in images {
        match l {
            ImageLiveness::Live { is_live, score } => {
                any_spoof |= *is_live == Some(false);
                any_uncertain |= is_live.is_none();
                lowest = lowest.min(*score);
                let mut image = json!({"id": id, "score": score, "verdict": verdict_word(*is_live)});
                if let Some(live) = is_live {
                    image["is_live"] = json!(live);
                }
                listed.push(image);
            }
            ImageLiveness::NoFace => {
                let code = FailureCode::ImageHasNoFaces;
                return Envelope::finished(GROUP, json!({"status": "failure", "request_id": request_id}), vec![ApiError::failure(code, code.as_str().replace('_', " "))]);
            }
            ImageLiveness::NotPerformed(reason) => return Envelope::error(GROUP, &ErrorKind::NotAvailable { reason: reason.clone() }),
        }
    }
    let is_live = if any_spoof { Some(false) } else if any_uncertain { None } else { Some(true) };
    let mut data = json!({"status": "success", "request_id": request_id, "score": lowest, "verdict": verdict_word(is_live), "images": listed});
    if let Some(live) = is_live {
        data["is_live"] = json!(live);
    }
    Envelope::ok(GROUP, data)
}

fn verdict_word(is_live: Option<bool>) -> &'static str {
    match is_live {
        Some(true) => "live",
        Some(false) => "spoof",
        None => "uncertain",
    }
}

impl Biometrics {
    pub async fn verify_liveness(&self, job: &Job, req: &VerifyFaceLivenessRequest) -> Result<Envelope, StoreError> {
        finish(self.verify_liveness_inner(job, req).await)
    }

    async fn verify_liveness_inner(&self, job: &Job, req: &VerifyFaceLivenessRequest) -> Result<Envelope, Stop> {
        let mut images = Vec::new();
        for (i, image) in req.images.iter().enumerate() {
            let a = self.analyze(GROUP, &format!("images[{i}]"), image).await?;
            let l = match (&a.face, &a.liveness) {
                (None, _) => ImageLiveness::NoFace,
                (Some(_), LivenessResult::Performed { score, .. }) => ImageLiveness::Live { is_live: a.liveness.is_live(), score: *score },
                (Some(_), LivenessResult::NotPerformed { reason, .. }) => ImageLiveness::NotPerformed(reason.clone()),
            };
            images.push((image.id.clone(), l));
        }
        Ok(liveness_answer(&job.request_id, &images))
    }

    pub async fn verify_portrait(&self, job: &Job, req: &SingleImageRequest) -> Result<Envelope, StoreError> {
        finish(self.verify_portrait_inner(job, req).await)
    }

    async fn verify_portrait_inner(&self, job: &Job, req: &SingleImageRequest) -> Result<Envelope, Stop> {
        let a = self.analyze(GROUP, "image", &req.image).await?;
        // The portrait check holds the image to the ID-photo rule (a white background);
        // selfies elsewhere are not (docs/API.md).
        let sanity = idv_vision::quality::apply_white_background_rule(a.sanity, &idv_vision::quality::QualityParams::default());
        let data: Value = json!({"status": "success", "request_id": job.request_id, "image": {"id": req.image.id}, "portrait_sanity": sanity.to_json()});
        Ok(Envelope::ok(GROUP, data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_only_when_every_image_is_and_never_guessed() {
        let live = |s| ImageLiveness::Live { is_live: Some(s > 0.5), score: s };
        let env = liveness_answer("r", &[(Some("a".into()), live(0.9)), (Some("b".into()), live(0.8))]);
        assert_eq!((env.body["data"]["is_live"].as_bool(), env.body["data"]["score"].as_f64().map(|s| (s * 10.0).round())), (Some(true), Some(8.0)));
        let env = liveness_answer("r", &[(Some("a".into()), live(0.9)), (Some("b".into()), live(0.2))]);
        assert_eq!(env.body["data"]["is_live"], false);
        let env = liveness_answer("r", &[(Some("a".into()), live(0.9)), (None, ImageLiveness::NotPerformed("model not installed".into()))]);
        assert_eq!((env.http_status, env.first_error_code()), (501, Some("not_performed")));
        assert!(env.body["data"].is_null(), "no verdict over an image that was not judged");
        let unsure = liveness_answer("r", &[(Some("a".into()), live(0.9)), (Some("b".into()), ImageLiveness::Live { is_live: None, score: 0.3 })]);
        assert!(unsure.body["data"].get("is_live").is_none(), "an uncertain image leaves no verdict: {}", unsure.body);
        assert_eq!(unsure.body["data"]["verdict"], "uncertain");
        let spoof = liveness_answer("r", &[(Some("a".into()), ImageLiveness::Live { is_live: None, score: 0.3 }), (Some("b".into()), live(0.1))]);
        assert_eq!(spoof.body["data"]["is_live"], false, "a spoof outweighs an uncertain image");
        let env = liveness_answer("r", &[(None, ImageLiveness::NoFace)]);
        assert_eq!((env.http_status, env.first_error_code()), (200, Some("image_has_no_faces")));
    }
}
