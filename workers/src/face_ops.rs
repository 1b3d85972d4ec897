//! Registration, authentication and face comparison over the face pipeline
//! ([`crate::face_engine`]). Templates are sealed under the master key and tagged with the
//! model that made them; only templates of the running model are compared.

use crate::face::{face_types, user_json, HISTORIES_RETURNED};
use crate::face_engine::{bbox_json, blocking_verdict, liveness_json, AnalysisError, FaceAnalysis, FaceEngine};
use idv_crypto::sealed::Sealer;
use idv_schemas::api::{FaceAuthRegisterRequest, FaceAuthRequest, ImageData, MixCompareFacesRequest};
use idv_schemas::jobs::Job;
use idv_schemas::{ApiError, Envelope, ErrorKind, FailureCode, Group};
use idv_store::blobs::BlobStore;
use idv_store::{FaceHistoryRecord, FaceTemplateRecord, FaceUserRecord, Store, StoreError};
use idv_vision::embed::Embedding;
use idv_vision::matching::{judge, MatchDecision};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// How long a registered selfie stays valid (`expiry_date_face`; choice: docs/API.md).
pub const FACE_VALIDITY_DAYS: i64 = 365;

#[derive(Clone)]
pub struct Biometrics {
    pub engine: Arc<FaceEngine>,
    pub blobs: Arc<dyn BlobStore>,
    pub sealer: Sealer,
    /// The passive model's "not live" fails the request (else it is only reported).
    pub passive_liveness_blocks: bool,
}

type Outcome = Result<Envelope, StoreError>;

fn now() -> time::OffsetDateTime {
    time::OffsetDateTime::now_utc()
}

fn rfc3339(t: time::OffsetDateTime) -> String {
    t.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

fn failure(group: Group, data: Value, code: FailureCode) -> Envelope {
    Envelope::finished(group, data, vec![ApiError::failure(code, code.as_str().replace('_', " "))])
}

fn template_aad(client: &str, user: &str, template_id: &str) -> Vec<u8> {
    format!("face_template:{client}:{user}:{template_id}").into_bytes()
}

fn vector_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn vector_from(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Either an answer for the client (bad image, no face...) or a store error to retry.
pub(crate) enum Stop {
    Answer(Envelope),
    Store(StoreError),
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Self {
        Stop::Store(e)
    }
}

fn finish(r: Result<Envelope, Stop>) -> Outcome {
    match r {
        Ok(env) | Err(Stop::Answer(env)) => Ok(env),
        Err(Stop::Store(e)) => Err(e),
    }
}

impl Biometrics {
    /// Load an image by id (ingest moved inline images to blobs) and analyze it.
    pub(crate) async fn analyze(&self, group: Group, field: &str, image: &ImageData) -> Result<FaceAnalysis, Stop> {
        let id = image.id.as_deref().unwrap_or_default();
        let Some(bytes) = self.blobs.get(id).await? else {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::ImageNotFound { field: Some(field.into()) })));
        };
        self.engine.analyze(bytes).await.map_err(|e| Self::analysis_stop(group, field, e))
    }

    /// Bad media is the client's (400 naming the field); the rest is ours.
    pub(crate) fn analysis_stop(group: Group, field: &str, e: AnalysisError) -> Stop {
        match e {
            AnalysisError::Decode(m) => Stop::Answer(Envelope::error(group, &ErrorKind::invalid(field, m))),
            AnalysisError::Pipeline(m) => Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: m })),
            AnalysisError::VideoUnavailable(reason) => Stop::Answer(Envelope::error(group, &ErrorKind::NotAvailable { reason })),
        }
    }

    /// One face, good enough: else the spec's answer (400 for several faces, `failure` for
    /// none or a blocking sanity verdict).
    fn usable<'a>(&self, group: Group, data: &Value, a: &'a FaceAnalysis) -> Result<&'a Embedding, Stop> {
        if a.face_count > 1 {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::IncorrectNumberOfFaces)));
        }
        if let Some(code) = blocking_verdict(&a.sanity.verdict) {
            return Err(Stop::Answer(failure(group, data.clone(), code)));
        }
        a.embedding.as_ref().ok_or_else(|| Stop::Answer(failure(group, data.clone(), FailureCode::ImageHasNoFaces)))
    }

    async fn histories(&self, store: &dyn Store, job: &Job, user: &str, count: Option<i64>, status: Option<&str>) -> Result<Vec<Value>, StoreError> {
        let n = count.map(|c| c.clamp(0, 100) as usize).unwrap_or(HISTORIES_RETURNED);
        let wanted = status.unwrap_or("all");
        Ok(store
            .list_face_histories(&job.client_id, user, 100)
            .await?
            .into_iter()
            .filter(|h| wanted == "all" || h.status == wanted)
            .take(n)
            .filter_map(|h| serde_json::from_str(&h.record).ok())
            .collect())
    }

    #[allow(clippy::too_many_arguments)]
    async fn add_history(
        &self,
        store: &dyn Store,
        job: &Job,
        user: &FaceUserRecord,
        action: &str,
        status: &str,
        result: &str,
        live_face_id: &str,
        face_type: &str,
        metadata: Option<&Map<String, Value>>,
        extra: Option<(&str, Value)>,
    ) -> Result<(), StoreError> {
        let created_at = rfc3339(now());
        let mut record = json!({
            "id": job.request_id, "client_id": job.client_id, "cus_user_id": user.cus_user_id,
            "face_auth_id": user.face_auth_id, "id_card_face_id": user.id_card_face_id,
            "live_face_id": live_face_id, "device_id": user.device_id, "app_id": user.app_id,
            "latitude": user.latitude, "longitude": user.longitude, "created_at": created_at,
            "auth_action": action, "status": status, "result": result,
            "metadata": metadata.cloned().unwrap_or_default(), "face_type": face_type,
        });
        if let Some((k, v)) = extra {
            record[k] = v;
        }
        store
            .add_face_history(&FaceHistoryRecord {
                client_id: job.client_id.clone(),
                cus_user_id: user.cus_user_id.clone(),
                id: job.request_id.clone(),
                created_at,
                status: status.into(),
                record: record.to_string(),
            })
            .await
    }

    pub async fn register(&self, store: &dyn Store, job: &Job) -> Outcome {
        finish(self.register_inner(store, job).await)
    }

    async fn register_inner(&self, store: &dyn Store, job: &Job) -> Result<Envelope, Stop> {
        let group = Group::Face;
        let req: FaceAuthRegisterRequest = serde_json::from_value(job.payload.clone())
            .map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: e.to_string() })))?;
        let base = json!({"status": "failure", "request_id": job.request_id});
        let existing = store.get_face_user(&job.client_id, &req.cus_user_id).await?;
        if existing.as_ref().is_some_and(|u| u.is_deactivated) {
            return Ok(failure(group, base, FailureCode::FaceAuthUserDeactivated));
        }
        // The selfie (or ID-card face passed as a selfie, rule 2) and the ID-card face.
        let as_id_card = req.face_type.as_deref() == Some("id_card") && req.selfie_type.as_deref() == Some("id_card");
        let mut inputs: Vec<(&str, &ImageData, &str)> = Vec::new();
        if let Some(first) = req.faces.as_ref().and_then(|f| f.first()) {
            inputs.push(("faces[0]", first, if as_id_card { "id_card" } else { "selfie" }));
        }
        if let Some(card) = &req.face_in_id_card {
            inputs.push(("face_in_id_card", card, "id_card"));
        }
        let (model_id, model_version) = self.engine.model();
        let now_t = now();
        let mut user = existing.unwrap_or_else(|| FaceUserRecord {
            id: uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, format!("idv:face_user:{}", job.request_id).as_bytes()).to_string(),
            client_id: job.client_id.clone(),
            cus_user_id: req.cus_user_id.clone(),
            access_key_id: job.access_key_id.clone(),
            face_auth_id: String::new(),
            id_card_face_id: String::new(),
            device_id: String::new(),
            app_id: String::new(),
            latitude: None,
            longitude: None,
            metadata: "{}".into(),
            is_deactivated: false,
            is_unregistered: false,
            is_locked: false,
            created_at: rfc3339(now_t),
            updated_at: rfc3339(now_t),
        });
        let mut templates = Vec::new();
        let mut selfie_analysis = None;
        for (field, image, face_type) in &inputs {
            let analysis = self.analyze(group, field, image).await?;
            let embedding = self.usable(group, &base, &analysis)?;
            let template_id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, format!("idv:template:{}:{field}", job.request_id).as_bytes()).to_string();
            templates.push(FaceTemplateRecord {
                client_id: job.client_id.clone(),
                cus_user_id: req.cus_user_id.clone(),
                sealed_vector: self.sealer.seal(&vector_bytes(&embedding.vector), &template_aad(&job.client_id, &req.cus_user_id, &template_id)),
                template_id,
                face_type: face_type.to_string(),
                model_id: model_id.to_string(),
                model_version: model_version.to_string(),
                image_id: image.id.clone().unwrap_or_default(),
                created_at: rfc3339(now_t),
            });
            if *face_type == "selfie" && selfie_analysis.is_none() {
                selfie_analysis = Some(analysis);
            }
        }
        // Liveness evidence beside a selfie (videos, gestures, flash) is checked before
        // anything is written: a failed check registers nothing.
        let mut validate = Value::Null;
        if let Some(selfie) = &selfie_analysis {
            let evidence = self.liveness_evidence(group, &crate::liveness_inputs!(req, store, job), selfie).await?;
            validate = json!({});
            evidence.write_into(&mut validate, &job.request_id);
            if evidence.failed.is_some() {
                let mut data = base.clone();
                data["validate_faces_result"] = validate;
                return Ok(failure(group, data, FailureCode::ImageNonLiveness));
            }
        }
        // Re-registration replaces the faces it brings.
        let replaced: Vec<&str> = templates.iter().map(|t| t.face_type.as_str()).collect();
        let keep: Vec<FaceTemplateRecord> = store
            .list_face_templates(&job.client_id, &req.cus_user_id)
            .await?
            .into_iter()
            .filter(|t| !replaced.contains(&t.face_type.as_str()))
            .collect();
        store.delete_face_templates(&job.client_id, &req.cus_user_id).await?;
        for t in keep.iter().chain(templates.iter()) {
            store.put_face_template(t).await?;
        }
        for t in &templates {
            if t.face_type == "selfie" {
                user.face_auth_id = t.image_id.clone();
            } else {
                user.id_card_face_id = t.image_id.clone();
            }
        }
        let mut metadata: Map<String, Value> = serde_json::from_str(&user.metadata).unwrap_or_default();
        if let Some(m) = &req.metadata {
            metadata.extend(m.clone());
        }
        if let Some(p) = &req.face_priority {
            metadata.insert("face_priority".into(), Value::String(p.clone()));
        }
        metadata.insert("expiry_date_face".into(), Value::String(rfc3339(now_t + time::Duration::days(FACE_VALIDITY_DAYS))));
        user.metadata = Value::Object(metadata.clone()).to_string();
        user.device_id = req.device_id.clone().unwrap_or(user.device_id);
        user.app_id = req.app_id.clone().unwrap_or(user.app_id);
        user.latitude = req.lat.or(user.latitude);
        user.longitude = req.lng.or(user.longitude);
        user.is_unregistered = false;
        user.updated_at = rfc3339(now_t);
        store.put_face_user(&user).await?;
        let (camera, _warning) = req.camera_challenge_performed();
        let face_type = req.face_type.clone().unwrap_or_else(|| "selfie".into());
        let live = inputs.first().and_then(|(_, i, _)| i.id.clone()).unwrap_or_default();
        self.add_history(store, job, &user, "register", "success", "", &live, &face_type, req.metadata.as_ref(), Some(("camera_challenge_performed", json!(camera))))
            .await?;
        let histories = self.histories(store, job, &req.cus_user_id, req.history_return_count, req.history_return_status.as_deref()).await?;
        let mut data = json!({
            "status": "success", "request_id": job.request_id, "register_id": job.request_id,
            "user_metadata": Value::Object(metadata), "histories": histories,
            "face_auth_user": user_json(&user), "face_types": face_types(&user),
        });
        if validate.as_object().is_some_and(|v| !v.is_empty()) {
            data["validate_faces_result"] = validate;
        }
        Ok(Envelope::ok(group, data))
    }

    pub async fn authenticate(&self, store: &dyn Store, job: &Job, user: FaceUserRecord) -> Outcome {
        finish(self.authenticate_inner(store, job, user).await)
    }

    async fn authenticate_inner(&self, store: &dyn Store, job: &Job, user: FaceUserRecord) -> Result<Envelope, Stop> {
        let group = Group::Face;
        let req: FaceAuthRequest = serde_json::from_value(job.payload.clone())
            .map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: e.to_string() })))?;
        let (model_id, model_version) = self.engine.model();
        let templates: Vec<FaceTemplateRecord> = store
            .list_face_templates(&job.client_id, &req.cus_user_id)
            .await?
            .into_iter()
            .filter(|t| t.model_id == model_id && t.model_version == model_version)
            .collect();
        if templates.is_empty() {
            return Err(Stop::Answer(Envelope::error(
                group,
                &ErrorKind::NotAvailable { reason: "no face template of the current model: register the user again".into() },
            )));
        }
        let Some(selfie) = req.faces.first() else {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::invalid("faces", "faces must not be empty"))));
        };
        let analysis = self.analyze(group, "faces[0]", selfie).await?;
        let mut data = json!({"status": "failure", "request_id": job.request_id, "auth_id": job.request_id});
        let mut validate = json!({
            "sanity_verdict": analysis.sanity.verdict.as_api_string(),
            "sanity_check": {"portrait_sanity": {"score": analysis.sanity.score, "verdict": analysis.sanity.verdict.as_api_string()},
                             "request_id": job.request_id, "status": "success"},
        });
        if let Some(l) = liveness_json(&analysis.liveness, &job.request_id, selfie.id.as_deref()) {
            validate["is_live"] = l["is_live"].clone();
            validate["liveness_check"] = l;
        }
        data["validate_faces_result"] = validate;
        let embedding = self.usable(group, &data, &analysis)?;
        // Passive liveness of the selfie, then the evidence beside it (videos, gestures,
        // flash): any failure is image_non_liveness.
        let evidence = self.liveness_evidence(group, &crate::liveness_inputs!(req, store, job), &analysis).await?;
        evidence.write_into(&mut data["validate_faces_result"], &job.request_id);
        let passive_failed = self.passive_liveness_blocks && analysis.liveness.is_live() == Some(false);
        if passive_failed || evidence.failed.is_some() {
            let reason = if passive_failed { "image_non_liveness".to_string() } else { evidence.failed.clone().unwrap_or_default() };
            self.add_history(store, job, &user, "login", "failure", &reason, selfie.id.as_deref().unwrap_or_default(), "selfie", req.metadata.as_ref(), None)
                .await?;
            return Ok(failure(group, data, FailureCode::ImageNonLiveness));
        }
        // Compare with the prioritized face type first (default: selfie), else any.
        let metadata: Map<String, Value> = serde_json::from_str(&user.metadata).unwrap_or_default();
        let priority = metadata.get("face_priority").and_then(Value::as_str).unwrap_or("selfie");
        let chosen: Vec<&FaceTemplateRecord> = {
            let preferred: Vec<_> = templates.iter().filter(|t| t.face_type == priority).collect();
            if preferred.is_empty() { templates.iter().collect() } else { preferred }
        };
        let mut best: Option<(f32, &FaceTemplateRecord)> = None;
        for t in chosen {
            let aad = template_aad(&t.client_id, &t.cus_user_id, &t.template_id);
            let Some(vector) = self.sealer.open(&t.sealed_vector, &aad).ok().and_then(|b| vector_from(&b)) else { continue };
            if let Some(d) = idv_vision::matching::euclidean_distance(&vector, &embedding.vector) {
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, t));
                }
            }
        }
        let Some((distance, template)) = best else {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: "stored templates unreadable".into() })));
        };
        let verdict = judge(distance, &self.engine.match_config);
        let matched = verdict.decision == MatchDecision::Matched;
        data["status"] = json!("success");
        data["auth_check"] = json!({"score": verdict.score, "result": if matched { "matched" } else { "unmatched" }});
        data["user_metadata"] = Value::Object(metadata);
        let result = if matched { "" } else { "unmatched" };
        self.add_history(store, job, &user, "login", "success", result, selfie.id.as_deref().unwrap_or_default(), &template.face_type, req.metadata.as_ref(), None)
            .await?;
        data["histories"] = json!(self.histories(store, job, &req.cus_user_id, req.history_return_count, req.history_return_status.as_deref()).await?);
        Ok(Envelope::ok(group, data))
    }

    pub async fn compare(&self, job: &Job) -> Outcome {
        finish(self.compare_inner(job).await)
    }

    async fn compare_inner(&self, job: &Job) -> Result<Envelope, Stop> {
        let group = Group::CompareCard;
        let req: MixCompareFacesRequest = serde_json::from_value(job.payload.clone())
            .map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: e.to_string() })))?;
        let card = self.analyze(group, "image1", &req.image1).await?;
        let selfie = self.analyze(group, "image2", &req.image2).await?;
        let image_json = |img: &ImageData, a: &FaceAnalysis, n: u8| {
            let faces: Vec<Value> = a.face.iter().map(|f| json!({"id": format!("image{n}-face-0"), "bounding_box": bbox_json(&f.bbox)})).collect();
            json!({"id": img.id, "faces": faces})
        };
        let mut data = json!({
            "status": "success", "request_id": job.request_id,
            "image1": image_json(&req.image1, &card, 1), "image2": image_json(&req.image2, &selfie, 2),
            "portrait_sanity": {"verdict": selfie.sanity.verdict.as_api_string(), "score": selfie.sanity.score},
        });
        if let Some(l) = liveness_json(&selfie.liveness, &job.request_id, req.image2.id.as_deref()) {
            data["liveness_check"] = json!({"is_live": l["is_live"], "score": l["score"]});
        }
        match (&card.embedding, &selfie.embedding) {
            (Some(a), Some(b)) => {
                let v = idv_vision::matching::compare(a, b, &self.engine.match_config)
                    .map_err(|e| Stop::Answer(Envelope::error(group, &ErrorKind::Internal { message: e.to_string() })))?;
                data["compare_faces"] = json!([{"face1_id": "image1-face-0", "face2_id": "image2-face-0", "score": v.score, "result": v.decision.as_str()}]);
                Ok(Envelope::ok(group, data))
            }
            _ => {
                data["status"] = json!("failure");
                data["compare_faces"] = json!([]);
                Ok(failure(group, data, FailureCode::ImageHasNoFaces))
            }
        }
    }
}
