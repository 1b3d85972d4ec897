//! From the operators' answers to the spec's verdicts, and phone numbers to E.164. Pure
//! functions: no I/O, unit-tested with the answers' shapes.

use serde_json::Value;
use time::OffsetDateTime;

/// A verify_info verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Matched,
    Unmatched,
    NoData,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Matched => "matched",
            Verdict::Unmatched => "unmatched",
            Verdict::NoData => "no_data",
        }
    }
}

/// The operators' 2xx answers one verify_info request got, by operation; `None`: not
/// asked, not offered, or answered with an error.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    pub kyc_match: Option<Value>,
    pub device_swap: Option<Value>,
    pub call_forwardings: Option<Value>,
    pub unconditional_call_forwardings: Option<Value>,
    pub subscription_status: Option<Value>,
    pub device_reachability: Option<Value>,
    pub number_recycling: Option<Value>,
}

/// `true`/`"true"` → matched, `false`/`"false"` → unmatched, anything else (KYC Match's
/// `"not_available"`, absent, another type) → no_data. Pure.
fn boolean_verdict(v: Option<&Value>) -> Verdict {
    match v.and_then(|v| v.as_str().or_else(|| v.as_bool().map(|b| if b { "true" } else { "false" }))) {
        Some("true") => Verdict::Matched,
        Some("false") => Verdict::Unmatched,
        _ => Verdict::NoData,
    }
}

/// `true` → matched; anything else → no_data (the API can confirm, not deny). Pure.
fn confirming_verdict(v: Option<&Value>) -> Verdict {
    match v.and_then(Value::as_bool) {
        Some(true) => Verdict::Matched,
        _ => Verdict::NoData,
    }
}

/// Call Forwarding Signal: the `call-forwardings` list, else the unconditional answer. Pure.
pub fn call_forwarding_verdict(list: Option<&Value>, unconditional: Option<&Value>) -> Verdict {
    const FORWARDING: &[&str] = &["unconditional", "conditional_busy", "conditional_not_reachable", "conditional_no_answer"];
    if let Some(items) = list.and_then(Value::as_array) {
        let names: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
        if names.iter().any(|n| FORWARDING.contains(n)) {
            return Verdict::Matched;
        }
        // Only "inactive", every item a string: no forwarding at all.
        if !names.is_empty() && names.len() == items.len() && names.iter().all(|n| *n == "inactive") {
            return Verdict::Unmatched;
        }
        return Verdict::NoData;
    }
    // Unconditional forwarding off says nothing about the conditional kinds.
    confirming_verdict(unconditional.and_then(|u| u.get("active")))
}

/// Subscription Status: voice/SMS both ways `active` → matched, either `suspended` →
/// unmatched, anything else → no_data. Pure.
pub fn subscription_verdict(answer: Option<&Value>) -> Verdict {
    let Some(a) = answer else { return Verdict::NoData };
    let (inbound, outbound) = (a["voiceSmsIn"].as_str(), a["voiceSmsOut"].as_str());
    if inbound == Some("suspended") || outbound == Some("suspended") {
        Verdict::Unmatched
    } else if inbound == Some("active") && outbound == Some("active") {
        Verdict::Matched
    } else {
        Verdict::NoData
    }
}

/// Device Reachability Status for "active in the last `days` days": reachable, with a
/// `lastStatusTime` (RFC 3339) no older than that → matched; otherwise no_data. Pure.
pub fn reachability_verdict(answer: Option<&Value>, now: OffsetDateTime, days: i64) -> Verdict {
    let Some(a) = answer else { return Verdict::NoData };
    let fresh = a["lastStatusTime"]
        .as_str()
        .and_then(|t| OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).ok())
        .is_some_and(|t| t >= now - time::Duration::days(days));
    if a["reachable"].as_bool() == Some(true) && fresh {
        Verdict::Matched
    } else {
        Verdict::NoData
    }
}

/// The verdict of one statement from the answers. Pure.
pub fn statement_verdict(statement: &str, a: &Answers, now: OffsetDateTime) -> Verdict {
    let kyc = |key: &str| boolean_verdict(a.kyc_match.as_ref().and_then(|k| k.get(key)));
    match statement {
        "is_id" => kyc("idDocumentMatch"),
        "is_name" => kyc("nameMatch"),
        "is_dob" => kyc("birthdateMatch"),
        "has_changed_device_last_30" => boolean_verdict(a.device_swap.as_ref().and_then(|v| v.get("swapped")).filter(|v| v.is_boolean())),
        "is_use_cf_service" => call_forwarding_verdict(a.call_forwardings.as_ref(), a.unconditional_call_forwardings.as_ref()),
        "is_subscriber_active" => subscription_verdict(a.subscription_status.as_ref()),
        "is_active_last_90" => reachability_verdict(a.device_reachability.as_ref(), now, 90),
        "has_changed_id_last_30" => confirming_verdict(a.number_recycling.as_ref().and_then(|v| v.get("phoneNumberRecycled"))),
        // The spec's other statements have no CAMARA API: not known, not guessed.
        _ => Verdict::NoData,
    }
}

/// E.164 form of `raw` (spaces, dashes, dots and parentheses dropped; `00` and a national
/// leading `0` rewritten), or `None` when it is not a phone number. Pure.
pub fn normalize_number(raw: &str, default_country_code: Option<&str>) -> Option<String> {
    let compact: String = raw.chars().filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')')).collect();
    let e164 = if let Some(rest) = compact.strip_prefix('+') {
        format!("+{rest}")
    } else if let Some(rest) = compact.strip_prefix("00") {
        format!("+{rest}")
    } else if let (Some(rest), Some(cc)) = (compact.strip_prefix('0'), default_country_code) {
        format!("{cc}{rest}")
    } else {
        return None;
    };
    // Every branch above starts with an ASCII '+', so this slice is on a char boundary.
    let digits = e164.strip_prefix('+').unwrap_or(&e164);
    let ok = (5..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0');
    ok.then_some(e164)
}

