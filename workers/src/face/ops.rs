//! Registration, authentication and face comparison over the face pipeline
//! ([`crate::face::engine`]). Templates are sealed under the master key and tagged with the
//! model that made them; only templates of the running model are compared, except that a
//! fusing engine (dlib + SFace) compares the dlib part of a selfie with templates of dlib
//! alone when a user has none of the fused model, and adds a fused template when that
//! login matches (`authenticate_inner`, `upgrade_template`).

use crate::face::user::{face_types, record_auth_outcome, user_json, HISTORIES_RETURNED};
use crate::face::engine::{blocking_verdict, faces_json, liveness_json, AnalysisError, FaceAnalysis, FaceEngine};
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

use idv_schemas::clock::{now, rfc3339};

fn failure(group: Group, data: Value, code: FailureCode) -> Envelope {
    Envelope::finished(group, data, vec![ApiError::failure(code, code.as_str().replace('_', " "))])
}

/// What a request says about itself, recorded in its own history record (spec, History
/// record: "device id input", "latitude input", "metadata input of the request"), never
/// the registration's values.
#[derive(Debug, Default, Clone, Copy)]
pub struct HistoryInput<'a> {
    pub device_id: Option<&'a str>,
    pub app_id: Option<&'a str>,
    pub lat: Option<f64>,
    pub lng: Option<f64>,
    pub metadata: Option<&'a Map<String, Value>>,
    /// face_auth only (extensions of the record: the login's use case and the client's
    /// transaction id).
    pub auth_type: Option<&'a str>,
    pub client_transaction_id: Option<&'a str>,
}

impl<'a> HistoryInput<'a> {
    pub fn of_auth(req: &'a FaceAuthRequest) -> Self {
        HistoryInput {
            device_id: req.device_id.as_deref(),
            app_id: req.app_id.as_deref(),
            lat: req.lat,
            lng: req.lng,
            metadata: req.metadata.as_ref(),
            auth_type: req.auth_type.as_deref(),
            client_transaction_id: req.client_transaction_id.as_deref(),
        }
    }

    pub fn of_register(req: &'a FaceAuthRegisterRequest) -> Self {
        HistoryInput {
            device_id: req.device_id.as_deref(),
            app_id: req.app_id.as_deref(),
            lat: req.lat,
            lng: req.lng,
            metadata: req.metadata.as_ref(),
            auth_type: None,
            client_transaction_id: None,
        }
    }
}

/// The outcome part of a history record.
pub struct HistoryEntry<'a> {
    /// `register` or `login`.
    pub action: &'a str,
    /// `success` or `failure`.
    pub status: &'a str,
    /// Empty on success; the failure or verdict detail (`unmatched`, `locked`, a
    /// liveness reason).
    pub result: &'a str,
    pub live_face_id: &'a str,
    pub face_type: &'a str,
    pub extra: Vec<(&'static str, Value)>,
}

/// One history record (spec, History record) as stored and returned.
pub fn history_record(job: &Job, user: &FaceUserRecord, input: &HistoryInput<'_>, entry: &HistoryEntry<'_>, created_at: &str) -> Value {
    let mut record = json!({
        "id": job.request_id, "client_id": job.client_id, "cus_user_id": user.cus_user_id,
        "face_auth_id": user.face_auth_id, "id_card_face_id": user.id_card_face_id,
        "live_face_id": entry.live_face_id, "device_id": input.device_id.unwrap_or_default(),
        "app_id": input.app_id.unwrap_or_default(), "latitude": input.lat, "longitude": input.lng,
        "created_at": created_at, "auth_action": entry.action, "status": entry.status, "result": entry.result,
        "metadata": input.metadata.cloned().unwrap_or_default(), "face_type": entry.face_type,
    });
    if let Some(t) = input.auth_type {
        record["auth_type"] = json!(t);
    }
    if let Some(t) = input.client_transaction_id {
        record["client_transaction_id"] = json!(t);
    }
    for (k, v) in &entry.extra {
        record[*k] = v.clone();
    }
    record
}

/// Stores a request's history record, keyed by its request id and stamped with the
/// request's own time, so a redelivered job rewrites the same record in every store
/// (ScyllaDB clusters histories on `created_at`: a fresh timestamp would add a second row).
pub async fn add_history(store: &dyn Store, job: &Job, user: &FaceUserRecord, input: &HistoryInput<'_>, entry: HistoryEntry<'_>) -> Result<(), StoreError> {
    let created_at = job.created_at.clone();
    let record = history_record(job, user, input, &entry, &created_at);
    store
        .add_face_history(&FaceHistoryRecord {
            client_id: job.client_id.clone(),
            cus_user_id: user.cus_user_id.clone(),
            id: job.request_id.clone(),
            created_at,
            status: entry.status.into(),
            record: record.to_string(),
        })
        .await
}

/// `validate_faces_result` of a selfie before liveness: the portrait sanity verdict and
/// the full sanity response. [`crate::face::evidence::Evidence::write_into`] adds liveness.
pub fn sanity_validate(a: &FaceAnalysis, request_id: &str) -> Value {
    json!({
        "sanity_verdict": a.sanity.verdict.as_api_string(),
        "sanity_check": {"portrait_sanity": a.sanity.to_json(),
                         "request_id": request_id, "status": "success"},
    })
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

/// A handler's end: an answer (normal or a `Stop::Answer` short-cut), or the store
/// error that makes the job retried.
pub(crate) fn finish(r: Result<Envelope, Stop>) -> Outcome {
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

    pub async fn register(&self, store: &dyn Store, job: &Job, req: &FaceAuthRegisterRequest) -> Outcome {
        finish(self.register_inner(store, job, req).await)
    }

    async fn register_inner(&self, store: &dyn Store, job: &Job, req: &FaceAuthRegisterRequest) -> Result<Envelope, Stop> {
        let group = Group::Face;
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
        let mut user = existing.unwrap_or_else(|| {
            // The id derives from the request, so a redelivered registration makes the same user.
            let id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, format!("idv:face_user:{}", job.request_id).as_bytes()).to_string();
            FaceUserRecord::new(id, job.client_id.clone(), req.cus_user_id.clone(), job.access_key_id.clone(), &rfc3339(now_t))
        });
        let mut templates = Vec::new();
        let mut selfie_analysis: Option<(FaceAnalysis, Option<&str>)> = None;
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
                selfie_analysis = Some((analysis, image.id.as_deref()));
            }
        }
        // Liveness evidence beside a selfie (videos, gestures, flash) is checked before
        // anything is written: a failed check registers nothing. The selfie's own passive
        // result is reported as on face_auth; it does not block a registration (the
        // spec's only registration failure is face_auth_user_deactivated; evidence that
        // fails is image_non_liveness as before).
        let mut validate = Value::Null;
        if let Some((selfie, selfie_id)) = &selfie_analysis {
            let evidence = self.liveness_evidence(group, &crate::liveness_inputs!(req, store, job), selfie).await?;
            validate = sanity_validate(selfie, &job.request_id);
            evidence.write_into(&mut validate, &job.request_id, *selfie_id, &selfie.liveness);
            if evidence.failed.is_some() {
                let mut data = base.clone();
                data["validate_faces_result"] = validate;
                return Ok(failure(group, data, FailureCode::ImageNonLiveness));
            }
        }
        // The state this operation does not own is read again before anything is written:
        // the analysis took a while, and an operator may have deactivated the user (or a
        // login locked it) meanwhile; the record written below must not undo that.
        if let Some(fresh) = store.get_face_user(&job.client_id, &req.cus_user_id).await? {
            if fresh.is_deactivated {
                return Ok(failure(group, base, FailureCode::FaceAuthUserDeactivated));
            }
            user.is_locked = fresh.is_locked;
            user.failed_auth_ids = fresh.failed_auth_ids;
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
        let entry = HistoryEntry {
            action: "register",
            status: "success",
            result: "",
            live_face_id: &live,
            face_type: &face_type,
            extra: vec![("camera_challenge_performed", json!(camera))],
        };
        add_history(store, job, &user, &HistoryInput::of_register(&req), entry).await?;
        let histories = self.histories(store, job, &req.cus_user_id, req.history_return_count, req.history_return_status.as_deref()).await?;
        let mut data = json!({
            "status": "success", "request_id": job.request_id, "register_id": job.request_id,
            "user_metadata": Value::Object(metadata), "histories": histories,
            "face_auth_user": user_json(&user), "face_types": face_types(&user),
        });
        if validate.is_object() {
            data["validate_faces_result"] = validate;
        }
        Ok(Envelope::ok(group, data))
    }

    /// face_auth for a user whose state allows it. An unmatched face or image_non_liveness
    /// counts towards the lockout (`max_failures` in a row lock the user; 0 never locks);
    /// a match resets the count. The attempt that reaches the limit is answered as usual.
    pub async fn authenticate(&self, store: &dyn Store, job: &Job, req: &FaceAuthRequest, user: FaceUserRecord, max_failures: u32) -> Outcome {
        finish(self.authenticate_inner(store, job, req, user, max_failures).await)
    }

    /// Records the attempt's outcome in the user's lockout state (written only when it
    /// changed); returns the history extras saying this attempt locked the user. The
    /// record is read again first: the analysis took a while, and an operator may have
    /// changed the user meanwhile (`idv users deactivate`), which a write of the copy
    /// read before it would undo.
    async fn count_attempt(&self, store: &dyn Store, job: &Job, user: &mut FaceUserRecord, failed: bool, max_failures: u32) -> Result<Vec<(&'static str, Value)>, StoreError> {
        if let Some(fresh) = store.get_face_user(&user.client_id, &user.cus_user_id).await? {
            *user = fresh;
        }
        let update = record_auth_outcome(user, &job.request_id, failed, max_failures);
        if update.changed {
            user.updated_at = rfc3339(now());
            store.put_face_user(user).await?;
        }
        Ok(if update.locked_by_this { vec![("user_locked", json!(true))] } else { Vec::new() })
    }

    async fn authenticate_inner(&self, store: &dyn Store, job: &Job, req: &FaceAuthRequest, mut user: FaceUserRecord, max_failures: u32) -> Result<Envelope, Stop> {
        let group = Group::Face;
        let (model_id, model_version) = self.engine.model();
        let stored = store.list_face_templates(&job.client_id, &req.cus_user_id).await?;
        let of = |(id, version): (&str, &str)| -> Vec<FaceTemplateRecord> {
            stored.iter().filter(|t| t.model_id == id && t.model_version == version).cloned().collect()
        };
        // Templates of the running model; else, when it fuses, the dlib templates written
        // before SFace was installed: compared with the dlib part of the selfie's
        // embedding, and replaced by a fused template of this selfie when it matches.
        let (templates, legacy) = match (of((model_id, model_version)), self.engine.legacy_model()) {
            (current, Some(dlib)) if current.is_empty() => (of(dlib), true),
            (current, _) => (current, false),
        };
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
        let input = HistoryInput::of_auth(&req);
        let live_face_id = selfie.id.as_deref().unwrap_or_default();
        let mut data = json!({"status": "failure", "request_id": job.request_id, "auth_id": job.request_id});
        let mut validate = sanity_validate(&analysis, &job.request_id);
        crate::face::evidence::Evidence::default().write_into(&mut validate, &job.request_id, selfie.id.as_deref(), &analysis.liveness);
        data["validate_faces_result"] = validate;
        let embedding = self.usable(group, &data, &analysis)?;
        // Passive liveness of the selfie, then the evidence beside it (videos, gestures,
        // flash): any failure is image_non_liveness.
        let evidence = self.liveness_evidence(group, &crate::liveness_inputs!(req, store, job), &analysis).await?;
        evidence.write_into(&mut data["validate_faces_result"], &job.request_id, selfie.id.as_deref(), &analysis.liveness);
        let passive_failed = self.passive_liveness_blocks && analysis.liveness.is_live() == Some(false);
        if passive_failed || evidence.failed.is_some() {
            let reason = if passive_failed { "image_non_liveness".to_string() } else { evidence.failed.clone().unwrap_or_default() };
            let extra = self.count_attempt(store, job, &mut user, true, max_failures).await?;
            let entry = HistoryEntry { action: "login", status: "failure", result: &reason, live_face_id, face_type: "selfie", extra };
            add_history(store, job, &user, &input, entry).await?;
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
            let d = if legacy {
                idv_vision::matching::euclidean_distance(&vector, crate::face::engine::dlib_part(&embedding.vector))
            } else {
                idv_vision::matching::model_distance(model_id, &vector, &embedding.vector)
            };
            if let Some(d) = d {
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
        if matched && legacy {
            self.upgrade_template(store, job, &req.cus_user_id, &embedding.vector, selfie.id.as_deref()).await?;
        }
        data["status"] = json!("success");
        data["auth_check"] = json!({"score": verdict.score, "result": if matched { "matched" } else { "unmatched" }});
        data["user_metadata"] = Value::Object(metadata);
        let result = if matched { "" } else { "unmatched" };
        let face_type = template.face_type.clone();
        let extra = self.count_attempt(store, job, &mut user, !matched, max_failures).await?;
        let entry = HistoryEntry { action: "login", status: "success", result, live_face_id, face_type: &face_type, extra };
        add_history(store, job, &user, &input, entry).await?;
        data["histories"] = json!(self.histories(store, job, &req.cus_user_id, req.history_return_count, req.history_return_status.as_deref()).await?);
        Ok(Envelope::ok(group, data))
    }

    /// After a login matched on a template of dlib alone: a selfie template of the running
    /// (fused) model, made from this login's selfie, is added, so later logins compare
    /// both embeddings (templates of the running model are used first). The dlib
    /// templates are left as they are — nothing is deleted before its replacement is
    /// written — and go with the user's other templates at unregistration or when a
    /// re-registration replaces that face type. The id derives from the request: a
    /// redelivered job writes the same template again.
    async fn upgrade_template(&self, store: &dyn Store, job: &Job, cus_user_id: &str, vector: &[f32], image_id: Option<&str>) -> Result<(), Stop> {
        let (model_id, model_version) = self.engine.model();
        let template_id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, format!("idv:template:{}:upgrade", job.request_id).as_bytes()).to_string();
        store
            .put_face_template(&FaceTemplateRecord {
                client_id: job.client_id.clone(),
                cus_user_id: cus_user_id.to_string(),
                sealed_vector: self.sealer.seal(&vector_bytes(vector), &template_aad(&job.client_id, cus_user_id, &template_id)),
                template_id,
                face_type: "selfie".to_string(),
                model_id: model_id.to_string(),
                model_version: model_version.to_string(),
                image_id: image_id.unwrap_or_default().to_string(),
                created_at: rfc3339(now()),
            })
            .await?;
        Ok(())
    }

    /// The card sanity of an ID-card photo (`None`: no card found, or the image gone).
    async fn card_sanity(&self, image: &ImageData) -> Option<idv_vision::card_sanity::CardSanity> {
        let bytes = self.blobs.get(image.id.as_deref()?).await.ok()??;
        let task = self.engine.run_on_pool(move || {
            let photo = idv_vision::decode(&bytes, &idv_vision::DecodeLimits::cards()).ok()?;
            crate::card::scan::locate_and_judge(&photo).sanity
        });
        tokio::time::timeout(std::time::Duration::from_secs(10), task).await.ok()?.ok()?
    }

    pub async fn compare(&self, job: &Job, req: &MixCompareFacesRequest) -> Outcome {
        finish(self.compare_inner(job, req).await)
    }

    async fn compare_inner(&self, job: &Job, req: &MixCompareFacesRequest) -> Result<Envelope, Stop> {
        let group = Group::CompareCard;
        // The three are independent pool jobs: run together, a comparison waits for one
        // turn of the pool rather than three in a row (the first failing field answers).
        let (card, selfie, card_sanity) = tokio::join!(
            self.analyze(group, "image1", &req.image1),
            self.analyze(group, "image2", &req.image2),
            self.card_sanity(&req.image1)
        );
        let (card, selfie) = (card?, selfie?);
        // Spec: incorrect_number_of_faces when the selfie or the original image holds more
        // than one face (small background faces do not count, as in portrait sanity).
        if card.face_count > 1 || selfie.face_count > 1 {
            return Err(Stop::Answer(Envelope::error(group, &ErrorKind::IncorrectNumberOfFaces)));
        }
        let image_json = |img: &ImageData, a: &FaceAnalysis, n: u8| json!({"id": img.id, "faces": faces_json(n, &a.faces)});
        // The request carries no transaction id: the comparison's own id is the request
        // id (docs/API.md), under which the result can also be polled.
        let mut data = json!({
            "status": "success", "request_id": job.request_id, "transaction_id": job.request_id,
            "image1": image_json(&req.image1, &card, 1), "image2": image_json(&req.image2, &selfie, 2),
            "portrait_sanity": selfie.sanity.to_json(),
        });
        if let Some(l) = liveness_json(&selfie.liveness, &job.request_id, req.image2.id.as_deref()) {
            data["liveness_check"] = json!({"is_live": l["is_live"], "score": l["score"]});
        }
        // The ID card's own sanity (crate::card::scan), reported beside the faces; it does
        // not change the comparison's status. Absent when no card is found in image1.
        if let Some(s) = card_sanity {
            data["card_sanity"] = json!({"verdict": s.verdict, "score": (s.score * 1000.0).round() / 1000.0});
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

#[cfg(test)]
mod tests {
    use super::*;
    use idv_schemas::jobs::JOB_SCHEMA_VERSION;

    fn job() -> Job {
        Job {
            schema_version: JOB_SCHEMA_VERSION,
            request_id: "req-1".into(),
            client_id: "client-a".into(),
            access_key_id: "ak".into(),
            reply_to: "i".into(),
            created_at: "t".into(),
            work: idv_schemas::jobs::Work::FaceAuth(FaceAuthRequest { cus_user_id: "u".into(), ..Default::default() }),
        }
    }

    fn registered() -> FaceUserRecord {
        FaceUserRecord {
            face_auth_id: "img-reg".into(),
            // What the registration said: a login's history must not show these.
            device_id: "registration-phone".into(),
            app_id: "registration-app".into(),
            latitude: Some(10.0),
            longitude: Some(20.0),
            ..FaceUserRecord::new("fu", "client-a", "u", "ak", "t")
        }
    }

    #[test]
    fn a_login_history_records_the_logins_own_fields() {
        let req: FaceAuthRequest = serde_json::from_value(json!({
            "cus_user_id": "u", "faces": [{"id": "img-login"}], "device_id": "login-phone", "app_id": "login-app",
            "lat": 1.25, "lng": -2.5, "auth_type": "transfer", "client_transaction_id": "tx-42", "metadata": {"k": "v"},
        }))
        .expect("request");
        let entry = HistoryEntry { action: "login", status: "success", result: "unmatched", live_face_id: "img-login", face_type: "selfie", extra: vec![] };
        let r = history_record(&job(), &registered(), &HistoryInput::of_auth(&req), &entry, "2026-01-01T00:00:00Z");
        assert_eq!((r["device_id"].as_str(), r["app_id"].as_str()), (Some("login-phone"), Some("login-app")));
        assert_eq!((r["latitude"].as_f64(), r["longitude"].as_f64()), (Some(1.25), Some(-2.5)));
        assert_eq!((r["auth_type"].as_str(), r["client_transaction_id"].as_str()), (Some("transfer"), Some("tx-42")));
        assert_eq!((r["metadata"]["k"].as_str(), r["live_face_id"].as_str(), r["result"].as_str()), (Some("v"), Some("img-login"), Some("unmatched")));
        assert_eq!((r["face_auth_id"].as_str(), r["id"].as_str()), (Some("img-reg"), Some("req-1")));
        // A login without them records none, not the registration's.
        let bare: FaceAuthRequest = serde_json::from_value(json!({"cus_user_id": "u", "faces": [{"id": "img-login"}]})).expect("request");
        let r = history_record(&job(), &registered(), &HistoryInput::of_auth(&bare), &entry, "t");
        assert_eq!((r["device_id"].as_str(), r["app_id"].as_str()), (Some(""), Some("")));
        assert!(r["latitude"].is_null() && r["longitude"].is_null());
        assert!(r.get("auth_type").is_none() && r.get("client_transaction_id").is_none());
    }
}
