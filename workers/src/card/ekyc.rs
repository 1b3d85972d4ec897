//! The deprecated eKYC full check (`/portal/ekyc/full_checks`): one request that runs
//! the card reading (`crate::card::read`: card information, card sanity and card
//! tampering, as `read_id_card_info_with_sanity` reads it), the card portrait against
//! each selfie, passive liveness and portrait sanity of the first selfie
//! (`crate::face::ops`), and lists what could not run (`not_performed`). `verdict` is
//! `success` only when every check ran and passed ([`ekyc_verdict`]): a check that did
//! not run is never a pass. Choices: docs/API.md "eKYC".

use crate::card::CardHandler;
use idv_vision::quality::PortraitVerdict;
use crate::face::ops::Stop;
use idv_schemas::api::EkycFullChecksRequest;
use idv_schemas::jobs::Job;
use idv_schemas::{Envelope, ErrorKind, Group};
use idv_vision::liveness::LivenessResult;
use idv_vision::matching::MatchDecision;
use serde_json::{json, Value};

impl CardHandler {
    pub(crate) async fn full_checks(&self, job: &Job, req: &EkycFullChecksRequest) -> Result<Envelope, Stop> {
        let group = Group::Ekyc;
        let mut not_performed: Vec<&str> = Vec::new();
        let mut failures: Vec<String> = Vec::new();

        // Faces: the card portrait against every selfie; liveness and sanity of the first.
        let selfies = req.selfies.clone().unwrap_or_default();
        let mut compare_faces = Vec::new();
        let (mut liveness, mut portrait) = (Value::Null, Value::Null);
        // Whether the card front carries a face (`None`: not looked at).
        let mut card_face: Option<bool> = None;
        match (&self.biometrics, selfies.is_empty()) {
            (None, _) => not_performed.extend(["compare_faces", "liveness_check", "portrait_sanity"]),
            (Some(_), true) => {
                not_performed.extend(["compare_faces", "liveness_check", "portrait_sanity"]);
                failures.push("no selfie was sent".into());
            }
            (Some(bio), false) => {
                let card = bio.analyze(group, "image1", &req.image1).await?;
                card_face = Some(card.face_count > 0);
                if card.face_count > 1 {
                    failures.push("several faces on the card image".into());
                } else if card.embedding.is_none() {
                    failures.push("no face on the card image".into());
                }
                for (i, selfie) in selfies.iter().enumerate() {
                    let field = format!("selfies[{i}]");
                    let a = bio.analyze(group, &field, selfie).await?;
                    if a.face_count > 1 {
                        // Someone else in the picture (a held-up photo, a bystander).
                        failures.push(format!("several faces in {field}"));
                        continue;
                    }
                    if i == 0 {
                        portrait = a.sanity.to_json();
                        // The check passes only as `good`: a turned head, closed eyes or
                        // a cut face is a result, not a pass, and checks that did not run
                        // (`incomplete`) cannot pass.
                        match a.sanity.verdict {
                            PortraitVerdict::Good => {}
                            PortraitVerdict::Incomplete => failures
                                .push(format!("portrait sanity of {field} incomplete: {} not performed", a.sanity.skipped.join(", "))),
                            other => failures.push(format!("portrait sanity of {field}: {}", other.as_api_string())),
                        }
                    }
                    // Every selfie must be live; `liveness_check` reports the first.
                    match &a.liveness {
                        LivenessResult::Performed { verdict, score, .. } => {
                            let is_live = a.liveness.is_live();
                            if i == 0 {
                                liveness = json!({"score": score, "verdict": verdict});
                                if let Some(live) = is_live {
                                    liveness["is_live"] = json!(live);
                                }
                            }
                            // Report-only mode changes what blocks face_auth, not what
                            // this verdict may claim: a selfie judged not live never
                            // passes, and an uncertain one is not a pass either.
                            match is_live {
                                Some(true) => {}
                                Some(false) => failures.push(format!("{field} is not live")),
                                None => failures.push(format!("{field}: passive liveness uncertain")),
                            }
                        }
                        // Any selfie whose liveness did not run leaves the check unpassed.
                        LivenessResult::NotPerformed { .. } if !not_performed.contains(&"liveness_check") => not_performed.push("liveness_check"),
                        LivenessResult::NotPerformed { .. } => {}
                    }
                    match (&card.embedding, &a.embedding) {
                        (Some(c), Some(s)) => {
                            let m = idv_vision::matching::compare(c, s, &bio.engine.match_config)
                                .map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: e.to_string() })))?;
                            if m.decision != MatchDecision::Matched {
                                failures.push(format!("card portrait and {field}: {}", m.decision.as_str()));
                            }
                            compare_faces.push(json!({"face1_id": "image1-face-0", "face2_id": format!("selfies{i}-face-0"), "score": m.score, "result": m.decision.as_str()}));
                        }
                        (_, None) => failures.push(format!("no face in {field}")),
                        (None, Some(_)) => {}
                    }
                }
            }
        }

        // The card: read, judged and checked for tampering in one pass (crate::card::read),
        // with the card portrait found above as the tampering check's face evidence.
        let portrait_evidence = match (&self.biometrics, &card_face) {
            (None, _) => Some(Err("the face models are not installed".to_string())),
            (Some(_), Some(found)) => Some(Ok(*found)),
            (Some(_), None) => None,
        };
        let r = self.read_sides(job, group, &req.card_type, [(Some(&req.image1), None), (req.image2.as_ref(), None)], portrait_evidence, None).await?;
        let card_information = r.card_information;
        if let Some(reason) = &r.not_available {
            not_performed.push("card_information");
            failures.push(format!("card information of {} not read: {reason}", req.card_type));
        } else if let Some((code, message)) = &r.failure {
            failures.push(format!("{}: {message}", code.as_str()));
        }
        let card_sanity = match &r.sanity {
            Some(s) => {
                failures.extend(incomplete_card_sanity(s));
                let mut j = crate::card::read::sanity_json(s);
                j["verdict_details"] = json!({"first_issue": s.verdict});
                j
            }
            None => {
                not_performed.push("card_sanity");
                Value::Null
            }
        };
        match r.tampering.verdict {
            "tampered" => failures.push(format!(
                "card tampering: {}",
                r.tampering.details.iter().filter(|d| d.verdict == idv_cards::tampering::CheckVerdict::Tampered).map(|d| d.info.as_str()).collect::<Vec<_>>().join("; ")
            )),
            "good" => {}
            _ => not_performed.push("card_tampering"),
        }

        // Success needs the two checks this operation exists for: the card was read and its
        // portrait matched the selfies. Anything not performed cannot pass.
        if compare_faces.is_empty() && !failures.iter().any(|f| f.contains("face")) {
            failures.push("the card portrait was not compared with a selfie".into());
        }
        let (verdict, message) = ekyc_verdict(&failures, &not_performed);
        let time = idv_schemas::clock::now_rfc3339();
        let body = json!({
            "data": {
                "request_id": job.request_id,
                "card_information": card_information,
                "compare_faces": compare_faces,
                "liveness_check": liveness,
                "portrait_sanity": portrait,
                "card_sanity": card_sanity,
                "card_tampering": r.tampering,
                "not_performed": not_performed,
            },
            "errors": [],
            "message": message,
            "time": time,
            "verdict": verdict,
        });
        Ok(Envelope { http_status: 200, body, retry_after_secs: None })
    }
}

/// The full check's `verdict` and `message`: `success` only when nothing failed and every
/// promised check ran. Pure.
pub fn ekyc_verdict(failures: &[String], not_performed: &[&str]) -> (&'static str, String) {
    let mut parts: Vec<String> = failures.to_vec();
    if !not_performed.is_empty() {
        parts.push(format!("not performed: {}", not_performed.join(", ")));
    }
    if parts.is_empty() {
        ("success", "every check ran and passed".into())
    } else {
        ("failure", parts.join("; "))
    }
}

/// The eKYC failure of a card sanity some check of which did not run (a card photographed
/// so that its outline is not seen: holes and cuts): as the portrait's, a check that did
/// not run cannot pass. A failing verdict fails through the card reading's failure code.
fn incomplete_card_sanity(s: &idv_vision::card_sanity::CardSanity) -> Option<String> {
    (s.verdict == idv_vision::card_sanity::CardSanityVerdict::Incomplete).then(|| {
        let skipped: Vec<&str> = s.not_performed().iter().map(|c| c.check_name()).collect();
        format!("card sanity incomplete: {} not performed", skipped.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::ekyc_verdict;

    #[test]
    fn an_incomplete_card_sanity_fails_the_check_naming_what_did_not_run() {
        use idv_vision::card_sanity::{CardSanity, CardSanityVerdict as V};
        let unjudged = CardSanity { details: vec![(V::ImageTooBlur, 0.0), (V::ImageTooDark, 0.0), (V::ImageTooBright, 0.0)], ..idv_vision::card_sanity::card_sanity(&image::RgbImage::new(4, 4), None) };
        let incomplete = CardSanity { verdict: V::Incomplete, ..unjudged.clone() };
        assert_eq!(super::incomplete_card_sanity(&incomplete).as_deref(), Some("card sanity incomplete: hole, cut not performed"));
        let good = CardSanity { verdict: V::Good, details: [unjudged.details.clone(), vec![(V::ImageHasHole, 0.0), (V::ImageHasCut, 0.0)]].concat(), ..unjudged };
        assert_eq!(super::incomplete_card_sanity(&good), None);
    }

    #[test]
    fn a_check_that_did_not_run_is_never_a_pass() {
        assert_eq!(ekyc_verdict(&[], &[]).0, "success");
        let (v, m) = ekyc_verdict(&[], &["card_sanity", "card_tampering"]);
        assert_eq!((v, m.as_str()), ("failure", "not performed: card_sanity, card_tampering"));
        let (v, m) = ekyc_verdict(&["selfies[0] is not live".into()], &["card_sanity"]);
        assert_eq!(v, "failure");
        assert!(m.starts_with("selfies[0] is not live; not performed: card_sanity"), "{m}");
    }
}
