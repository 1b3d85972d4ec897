//! India's Aadhaar **Secure QR** (on every Aadhaar letter, e-Aadhaar and PVC card printed
//! since 2019): demographic data and a photo, signed by UIDAI.
//!
//! # Format
//!
//! The QR text is one decimal integer (ASCII digits only; at most 7,089, what a QR code
//! holds). Its big-endian bytes (minimal, no leading zero byte) are a **gzip** stream
//! (RFC 1952, magic `1f 8b`): UIDAI's manual says "decompress the byte array", its Java
//! sample uses `GZIPInputStream`, and readers that work on real cards inflate it as gzip
//! (a zlib stream, `78 ..`, is not accepted: no real card uses one). The stream must end
//! where the number ends (no trailing bytes) and its CRC-32 and length must match;
//! decompressing to more than [`MAX_DECOMPRESSED`] (64 KiB; real payloads are 1–3 KiB,
//! mostly the photo) is refused, so a decompression bomb costs at most that.
//!
//! The decompressed bytes (`data`) are `signed ‖ signature`: the last 256 bytes are an
//! RSA-2048 PKCS#1 v1.5 signature with SHA-256 over everything before them. In `signed`,
//! text fields are ISO-8859-1, each followed by one byte `0xFF`, in this order:
//!
//! | # | original (2019) layout | V2 / V3 layout |
//! |---|---|---|
//! | 0 | email/mobile indicator `0`–`3` | version `V2` or `V3` |
//! | 1 | reference id | email/mobile indicator `0`–`3` |
//! | 2 | name | reference id |
//! | 3 | date of birth `DD-MM-YYYY` | name |
//! | 4 | gender `M`/`F`/`T` | date of birth |
//! | 5 | care of | gender |
//! | 6 | district | care of |
//! | 7 | landmark | district |
//! | 8 | house | landmark |
//! | 9 | location | house |
//! | 10 | pin code | location |
//! | 11 | post office | pin code |
//! | 12 | state | post office |
//! | 13 | street | state |
//! | 14 | sub district | street |
//! | 15 | VTC (village/town/city) | sub district |
//! | 16 | — | VTC |
//! | 17 | — | last 4 digits of the mobile number (may be empty) |
//!
//! After the last field's `0xFF` (the 16th in the original layout, the 18th in V2/V3)
//! comes the photo (JPEG 2000 codestream, `ff 4f ...`; it contains `0xFF` bytes, which is
//! why exactly that many separators are read and no more). In the original layout the
//! indicator also says how many SHA-256 hashes (32 bytes each) sit between the photo and
//! the signature: 0 → none, 1 or 2 → one (email or mobile), 3 → two (email, then mobile).
//! V2/V3 carry no hashes (the mobile's last digits replace them): the photo runs up to
//! the signature. V2 and V3 have the same layout as far as public readers of real cards
//! show; another `V` version is refused as [`CodecError::Unsupported`] rather than read
//! with a guessed layout. The reference id is the Aadhaar number's last 4 digits
//! followed by a timestamp (digits only).
//!
//! # Output
//!
//! The same field names and formats as the XML QR codec ([`crate::in_aadhaar`]): `name`,
//! `gender` (`M`/`F`/`T`), `dob` (`DD/MM/YYYY`, [`crate::checked_date`]) or
//! `year_of_birth` when only a year is written, `address` (the parts joined with ", " in
//! the XML codec's order), `pin_code`; and, since this code carries only the number's
//! last digits, `id_last4` (not `id`: it is not the Aadhaar number) and, in V2/V3,
//! `mobile_last4`. The photo is returned as bytes ([`SecureQr::photo`]), not decoded.
//!
//! # Signature, and what a failure means
//!
//! Verified with the operator's UIDAI key(s) ([`UidaiKeys`]: PEM certificates or public
//! keys, or one DER certificate or SubjectPublicKeyInfo; several may be given, since UIDAI
//! has re-keyed and older cards stay signed with the older key). [`SecureQr::signature`]:
//! - `verified`: a configured key verifies the signature over the exact bytes read;
//! - `not_verified`: no key configured. The fields are returned as read, exactly as the
//!   (unsigned) XML QR's are: anyone can make such a code, and the answer says so;
//! - `failed`: keys are configured and none verifies: the data was altered, or signed by
//!   someone else. **Every field then carries `confidence_verdict: UNSURE`** (never
//!   returned as verified), and the service answers `status: failure` with
//!   `bad_quality_card_image` (as for a damaged code), keeping the UNSURE fields and
//!   `qr.signature: "failed"` in the answer so an operator can see what the code claims.
//!
//! A field that is malformed (a date that does not exist, a pin code that is not 6
//! digits, a missing field) is [`CodecError::InvalidField`] whatever the signature says.
//! The certificate's validity dates and chain are not checked: the operator configures
//! the key they trust, and cards signed years ago stay valid.

use crate::{CardField, CodecError};

const CARD: &str = "in.aadhaar Secure QR";
/// Most bytes a Secure QR may decompress to: real ones are 1–3 KiB; more is a bomb.
pub const MAX_DECOMPRESSED: usize = 64 * 1024;
/// Most digits a QR code holds (version 40, numeric mode).
const MAX_DIGITS: usize = 7089;
/// Fewer digits than this cannot hold a signature (256 bytes alone are ~617 digits);
/// the XML codec uses the same threshold to leave such text to this one.
const MIN_DIGITS: usize = 100;
const SIGNATURE_LEN: usize = 256;
const HASH_LEN: usize = 32;
const SEPARATOR: u8 = 0xFF;
/// The text fields after the version marker (V2/V3) or from the start (original).
const ORIGINAL_FIELDS: usize = 16;
const VERSIONED_FIELDS: usize = 18;

fn invalid(field: &'static str, reason: impl Into<String>) -> CodecError {
    CodecError::InvalidField { field, reason: reason.into() }
}

/// Which layout the code uses (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The 2019 layout: no version marker, the email/mobile indicator first.
    Original,
    V2,
    V3,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Original => "original",
            Layout::V2 => "V2",
            Layout::V3 => "V3",
        }
    }
}

/// The outcome of the signature check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Signature {
    /// A configured UIDAI key verifies it.
    Verified,
    /// No key is configured: nothing could be checked.
    NotVerified,
    /// Keys are configured and none verifies it; every field is marked UNSURE.
    Failed,
}

impl Signature {
    pub fn as_str(self) -> &'static str {
        match self {
            Signature::Verified => "verified",
            Signature::NotVerified => "not_verified",
            Signature::Failed => "failed",
        }
    }
}

/// A read Secure QR.
#[derive(Debug, Clone, PartialEq)]
pub struct SecureQr {
    pub layout: Layout,
    /// The email/mobile indicator (0–3).
    pub email_mobile_indicator: u8,
    /// Last 4 digits of the Aadhaar number, then the code's timestamp.
    pub reference_id: String,
    /// `card_information` entries; each marked UNSURE when the signature failed.
    pub fields: Vec<CardField>,
    /// The photo as carried (JPEG 2000), not decoded; may be empty.
    pub photo: Vec<u8>,
    pub signature: Signature,
}

// ---------------------------------------------------------------------------------------
// Keys

/// The operator's UIDAI signing key(s), parsed once (at start) from a certificate or
/// public key file. Each is an RSA key of 2048–8192 bits, kept as PKCS#1 `RSAPublicKey`.
#[derive(Clone)]
pub struct UidaiKeys {
    keys: Vec<Vec<u8>>,
}

impl std::fmt::Debug for UidaiKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UidaiKeys({} key(s))", self.keys.len())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("no certificate or public key found")]
    Empty,
    #[error("PEM block {index}: {reason}")]
    Pem { index: usize, reason: String },
    #[error("not a DER certificate or public key")]
    NotDer,
    #[error("not an RSA public key of 2048 to 8192 bits")]
    NotRsa2048,
}

/// One DER TLV at the start of `input`: (tag, contents, rest). Definite, minimal lengths
/// of at most 4 bytes only (DER; a certificate never needs more), low tag numbers only.
fn tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    if tag & 0x1f == 0x1f {
        return None;
    }
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        // 0x80 is BER's indefinite length; a leading zero byte or a short length written
        // long is not DER.
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let (bytes, rest) = rest.split_at(n);
        if bytes.first() == Some(&0) {
            return None;
        }
        let len = bytes.iter().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        if len < 0x80 {
            return None;
        }
        (len, rest)
    };
    if rest.len() < len {
        return None;
    }
    let (body, rest) = rest.split_at(len);
    Some((tag, body, rest))
}

/// The SubjectPublicKeyInfo (whole TLV) of an X.509 certificate: Certificate ::=
/// SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber INTEGER,
/// signature AlgorithmIdentifier, issuer Name, validity Validity, subject Name,
/// subjectPublicKeyInfo, ... }, ... }.
fn certificate_spki(der: &[u8]) -> Option<&[u8]> {
    let (tag, cert, rest) = tlv(der)?;
    if tag != 0x30 || !rest.is_empty() {
        return None;
    }
    let (tag, tbs, _) = tlv(cert)?;
    if tag != 0x30 {
        return None;
    }
    let mut r = tbs;
    if let Some((0xa0, _, next)) = tlv(r) {
        r = next;
    }
    for expected in [0x02, 0x30, 0x30, 0x30, 0x30] {
        let (tag, _, next) = tlv(r)?;
        if tag != expected {
            return None;
        }
        r = next;
    }
    let (tag, _, next) = tlv(r)?;
    (tag == 0x30).then(|| &r[..r.len() - next.len()])
}

/// An RSA public key (SubjectPublicKeyInfo or PKCS#1) → its PKCS#1 form, when its
/// modulus has 2048 to 8192 bits (what RSA_PKCS1_2048_8192_SHA256 verifies with).
fn rsa_public_key(der: &[u8]) -> Result<Vec<u8>, KeyError> {
    let key = aws_lc_rs::rsa::PublicKey::from_der(der).map_err(|_| KeyError::NotRsa2048)?;
    let pkcs1 = key.as_ref().to_vec();
    // RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
    let bits = tlv(&pkcs1)
        .and_then(|(_, seq, _)| tlv(seq))
        .map(|(_, modulus, _)| {
            let m: &[u8] = match modulus.iter().position(|&b| b != 0) {
                Some(i) => &modulus[i..],
                None => &[],
            };
            m.first().map_or(0, |&top| (m.len() * 8).saturating_sub(top.leading_zeros() as usize))
        })
        .unwrap_or(0);
    if !(2048..=8192).contains(&bits) {
        return Err(KeyError::NotRsa2048);
    }
    Ok(pkcs1)
}

/// A DER certificate, SubjectPublicKeyInfo or PKCS#1 public key.
fn der_key(der: &[u8]) -> Result<Vec<u8>, KeyError> {
    match certificate_spki(der) {
        Some(spki) => rsa_public_key(spki),
        None => rsa_public_key(der),
    }
}

impl UidaiKeys {
    /// Keys from a file's bytes: PEM with one or more `CERTIFICATE`, `PUBLIC KEY` or `RSA
    /// PUBLIC KEY` blocks (any other block is an error: a private key does not belong
    /// there), or one DER certificate or public key.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        use base64::Engine as _;
        let text = std::str::from_utf8(bytes).ok().filter(|t| t.contains("-----BEGIN "));
        let Some(text) = text else {
            return Ok(UidaiKeys { keys: vec![der_key(bytes).map_err(|e| if bytes.is_empty() { KeyError::Empty } else { e })?] });
        };
        let mut keys = Vec::new();
        let mut rest = text;
        let mut index = 0;
        while let Some(start) = rest.find("-----BEGIN ") {
            let after = &rest[start + "-----BEGIN ".len()..];
            let pem_err = |reason: &str| KeyError::Pem { index, reason: reason.to_string() };
            let label_end = after.find("-----").ok_or_else(|| pem_err("unterminated BEGIN line"))?;
            let label = &after[..label_end];
            let body_start = &after[label_end + 5..];
            let end_marker = format!("-----END {label}-----");
            let body_end = body_start.find(&end_marker).ok_or_else(|| pem_err("no END line"))?;
            let b64: String = body_start[..body_end].chars().filter(|c| !c.is_ascii_whitespace()).collect();
            let der = base64::engine::general_purpose::STANDARD.decode(b64).map_err(|e| pem_err(&format!("base64: {e}")))?;
            let key = match label {
                "CERTIFICATE" => certificate_spki(&der).ok_or_else(|| pem_err("not an X.509 certificate")).and_then(|spki| {
                    rsa_public_key(spki).map_err(|e| pem_err(&e.to_string()))
                })?,
                "PUBLIC KEY" | "RSA PUBLIC KEY" => rsa_public_key(&der).map_err(|e| pem_err(&e.to_string()))?,
                other => return Err(pem_err(&format!("{other:?} is not a certificate or public key"))),
            };
            keys.push(key);
            index += 1;
            rest = &body_start[body_end + end_marker.len()..];
        }
        if keys.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(UidaiKeys { keys })
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether any key verifies `signature` (RSA PKCS#1 v1.5, SHA-256) over `message`.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        use aws_lc_rs::signature::{UnparsedPublicKey, RSA_PKCS1_2048_8192_SHA256};
        self.keys.iter().any(|k| UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, k).verify(message, signature).is_ok())
    }
}

// ---------------------------------------------------------------------------------------
// Decoding

/// ASCII decimal digits → the number's minimal big-endian bytes. Nine digits at a time
/// into base-2^32 limbs (little-endian), so ~7,000 digits cost ~600k limb operations.
fn decimal_to_bytes(digits: &str) -> Vec<u8> {
    let mut limbs: Vec<u32> = Vec::with_capacity(digits.len() / 9 + 1);
    for chunk in digits.as_bytes().chunks(9) {
        let (mut mul, mut add) = (1u64, 0u64);
        for &d in chunk {
            mul *= 10;
            // The caller checked these are digits; a non-digit would count as 0, not panic.
            add = add * 10 + u64::from(char::from(d).to_digit(10).unwrap_or(0));
        }
        let mut carry = add;
        for limb in limbs.iter_mut() {
            // < 2^32 · 10^9 + 2^32 < 2^63: no overflow.
            let v = u64::from(*limb) * mul + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            limbs.push(carry as u32);
        }
    }
    let mut out: Vec<u8> = limbs.iter().rev().flat_map(|l| l.to_be_bytes()).collect();
    let zeros = out.iter().take_while(|&&b| b == 0).count();
    out.drain(..zeros);
    out
}

/// gzip → bytes, at most [`MAX_DECOMPRESSED`], nothing after the stream.
fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    use std::io::Read;
    // bufread over the slice: after the stream ends, `into_inner` is exactly what follows.
    let mut decoder = flate2::bufread::GzDecoder::new(bytes);
    let mut out = Vec::new();
    let limit = MAX_DECOMPRESSED as u64 + 1;
    (&mut decoder)
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| invalid("secure_qr", format!("corrupt or truncated compressed data: {e}")))?;
    if out.len() > MAX_DECOMPRESSED {
        return Err(invalid("secure_qr", format!("decompresses to more than {MAX_DECOMPRESSED} bytes")));
    }
    if !decoder.into_inner().is_empty() {
        return Err(invalid("secure_qr", "bytes after the compressed data"));
    }
    Ok(out)
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// A text field: trimmed, no control characters (C0 or C1).
fn text(field: &'static str, bytes: &[u8]) -> Result<String, CodecError> {
    let s = latin1(bytes);
    if s.chars().any(char::is_control) {
        return Err(invalid(field, "control characters"));
    }
    Ok(s.trim().to_string())
}

/// Reads a Secure QR's text. `keys`: the operator's UIDAI keys, `None` when none are
/// configured (the signature is then `not_verified`).
pub fn parse(text_in: &str, keys: Option<&UidaiKeys>) -> Result<SecureQr, CodecError> {
    let digits = text_in.trim();
    if !(MIN_DIGITS..=MAX_DIGITS).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
        return Err(CodecError::NotThisCard(CARD));
    }
    let compressed = decimal_to_bytes(digits);
    if !compressed.starts_with(&[0x1f, 0x8b]) {
        // A long number that is not gzip: some other code.
        return Err(CodecError::NotThisCard(CARD));
    }
    let data = gunzip(&compressed)?;
    if data.len() <= SIGNATURE_LEN {
        return Err(invalid("secure_qr", "shorter than its signature"));
    }
    let (signed, signature) = data.split_at(data.len() - SIGNATURE_LEN);

    // The first field tells the layout: a digit (original) or `V` and digits (versioned).
    let first_end = signed.iter().position(|&b| b == SEPARATOR).ok_or_else(|| invalid("secure_qr", "no field separators"))?;
    let layout = match &signed[..first_end] {
        [b'0'..=b'3'] => Layout::Original,
        b"V2" => Layout::V2,
        b"V3" => Layout::V3,
        [b'V', rest @ ..] if !rest.is_empty() && rest.iter().all(u8::is_ascii_digit) => {
            return Err(CodecError::Unsupported("an Aadhaar Secure QR version other than V2 and V3"));
        }
        _ => return Err(invalid("secure_qr", "first field is neither an email/mobile indicator nor a version")),
    };
    let wanted = if layout == Layout::Original { ORIGINAL_FIELDS } else { VERSIONED_FIELDS };
    let mut fields: Vec<&[u8]> = Vec::with_capacity(wanted);
    let mut pos = 0;
    while fields.len() < wanted {
        let Some(end) = signed[pos..].iter().position(|&b| b == SEPARATOR) else {
            return Err(invalid("secure_qr", format!("{} fields, expected {wanted}", fields.len())));
        };
        fields.push(&signed[pos..pos + end]);
        pos += end + 1;
    }
    // Original: [indicator, ref, name, ...]; versioned: [version, indicator, ref, ...].
    let f: &[&[u8]] = if layout == Layout::Original { &fields } else { &fields[1..] };
    let indicator = match f[0] {
        [d @ b'0'..=b'3'] => d - b'0',
        _ => return Err(invalid("email_mobile_indicator", "expected 0, 1, 2 or 3")),
    };
    let hashes = match (layout, indicator) {
        (Layout::Original, 3) => 2,
        (Layout::Original, 1 | 2) => 1,
        _ => 0,
    };
    let photo_end = signed
        .len()
        .checked_sub(hashes * HASH_LEN)
        .filter(|&e| e >= pos)
        .ok_or_else(|| invalid("secure_qr", "too short for the email/mobile hashes its indicator announces"))?;
    let photo = signed[pos..photo_end].to_vec();

    let signature = match keys {
        None => Signature::NotVerified,
        Some(k) if k.is_empty() => Signature::NotVerified,
        Some(k) if k.verify(signed, signature) => Signature::Verified,
        Some(_) => Signature::Failed,
    };

    let reference_id = latin1(f[1]);
    if !(4..=32).contains(&reference_id.len()) || !reference_id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid("reference_id", "expected the number's last 4 digits and a timestamp, digits only"));
    }
    let name = text("name", f[2])?;
    if name.is_empty() {
        return Err(invalid("name", "empty"));
    }
    let dob = text("dob", f[3])?;
    let gender = match text("gender", f[4])?.as_str() {
        "M" | "MALE" => "M",
        "F" | "FEMALE" => "F",
        "T" | "TRANSGENDER" => "T",
        other => return Err(invalid("gender", format!("expected M, F or T, got {other:?}"))),
    };
    // The address parts under the XML codec's attribute names, to join in its order.
    let parts: [(&str, usize); 11] =
        [("co", 5), ("dist", 6), ("lm", 7), ("house", 8), ("loc", 9), ("pc", 10), ("po", 11), ("state", 12), ("street", 13), ("subdist", 14), ("vtc", 15)];
    let mut by_name: Vec<(&str, String)> = Vec::with_capacity(parts.len());
    for (key, i) in parts {
        by_name.push((key, text("address", f[i])?));
    }
    let get = |k: &str| by_name.iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty());
    let pin_code = get("pc");
    if let Some(pc) = pin_code {
        if pc.len() != 6 || !pc.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid("pin_code", "expected 6 digits"));
        }
    }
    let mobile_last4 = match layout {
        Layout::Original => None,
        _ => Some(text("mobile_last4", f[16])?).filter(|m| !m.is_empty()),
    };
    if let Some(m) = &mobile_last4 {
        if m.len() != 4 || !m.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid("mobile_last4", "expected 4 digits or nothing"));
        }
    }

    let mut out = vec![CardField::new("id_last4", &reference_id[..4]), CardField::new("name", name), CardField::new("gender", gender)];
    if dob.len() == 4 && dob.bytes().all(|b| b.is_ascii_digit()) {
        out.push(CardField::new("year_of_birth", dob));
    } else {
        out.push(CardField::new("dob", crate::in_aadhaar::normalize_dob(&dob)?));
    }
    let address: Vec<&str> = crate::in_aadhaar::ADDRESS_PARTS.iter().filter_map(|k| get(k)).collect();
    if !address.is_empty() {
        out.push(CardField::new("address", address.join(", ")));
    }
    if let Some(pc) = pin_code {
        out.push(CardField::new("pin_code", pc));
    }
    if let Some(m) = mobile_last4 {
        out.push(CardField::new("mobile_last4", m));
    }
    if signature == Signature::Failed {
        // Altered or foreign data: never passed on as verified.
        out = out.into_iter().map(CardField::unsure).collect();
    }
    Ok(SecureQr { layout, email_mobile_indicator: indicator, reference_id, fields: out, photo, signature })
}

// ---------------------------------------------------------------------------------------
// Making codes, for tests (this crate's and end-to-end ones elsewhere)

/// The fixed TEST-ONLY signing key (PKCS#8 DER) and its certificate and public key (PEM),
/// standing in for UIDAI's (`cards/testdata/make_vectors.sh`).
#[cfg(any(test, feature = "testing"))]
pub mod test_key {
    pub const PKCS8_DER: &[u8] = include_bytes!("../testdata/secure_qr_test.pk8.der");
    pub const CERT_PEM: &str = include_str!("../testdata/secure_qr_test.cert.pem");
    pub const SPKI_PEM: &str = include_str!("../testdata/secure_qr_test.spki.pem");
    pub const SPKI_DER: &[u8] = include_bytes!("../testdata/secure_qr_test.spki.der");
    /// Another key: a code signed with the test key fails against it.
    pub const OTHER_SPKI_PEM: &str = include_str!("../testdata/other_2048.spki.pem");
}

/// What to put in a test Secure QR (field meanings: the module doc's table).
#[cfg(any(test, feature = "testing"))]
#[derive(Debug, Clone)]
pub struct SecureQrInput {
    pub layout: Layout,
    pub email_mobile_indicator: u8,
    pub reference_id: String,
    pub name: String,
    pub dob: String,
    pub gender: String,
    pub care_of: String,
    pub district: String,
    pub landmark: String,
    pub house: String,
    pub location: String,
    pub pin_code: String,
    pub post_office: String,
    pub state: String,
    pub street: String,
    pub sub_district: String,
    pub vtc: String,
    /// V2/V3 only.
    pub mobile_last4: String,
    pub photo: Vec<u8>,
}

#[cfg(any(test, feature = "testing"))]
impl SecureQrInput {
    /// A V2 code for "Rahul Kumar" (the XML codec's sample person), with a small stand-in
    /// photo holding `0xFF` bytes.
    pub fn sample() -> Self {
        let s = |v: &str| v.to_string();
        SecureQrInput {
            layout: Layout::V2,
            email_mobile_indicator: 2,
            reference_id: s("234620190612163521011"),
            name: s("Rahul Kumar"),
            dob: s("15-08-1990"),
            gender: s("M"),
            care_of: s("S/O Ram Kumar"),
            district: s("Gurgaon"),
            landmark: s("Near Temple"),
            house: s("12"),
            location: s("Sector 5"),
            pin_code: s("122001"),
            post_office: s("Gurgaon"),
            state: s("Haryana"),
            street: s("MG Road"),
            sub_district: s("Gurgaon"),
            vtc: s("Gurgaon"),
            mobile_last4: s("5678"),
            photo: vec![0xff, 0x4f, 0xff, 0x51, 0x00, 0x2f, 0xff, 0xff, 0x10, 0x20, 0xff, 0xd9],
        }
    }

    /// The signed part: the fields (ISO-8859-1, each followed by `0xFF`), the photo, and
    /// in the original layout the hashes its indicator announces (filler bytes).
    pub fn signed_bytes(&self) -> Vec<u8> {
        let mut fields: Vec<&str> = Vec::new();
        let indicator = self.email_mobile_indicator.to_string();
        if self.layout != Layout::Original {
            fields.push(self.layout.name());
        }
        fields.extend([
            indicator.as_str(),
            &self.reference_id,
            &self.name,
            &self.dob,
            &self.gender,
            &self.care_of,
            &self.district,
            &self.landmark,
            &self.house,
            &self.location,
            &self.pin_code,
            &self.post_office,
            &self.state,
            &self.street,
            &self.sub_district,
            &self.vtc,
        ]);
        if self.layout != Layout::Original {
            fields.push(&self.mobile_last4);
        }
        let mut out = Vec::new();
        for f in fields {
            // ISO-8859-1: characters above U+00FF do not exist there; '?' like Java would.
            out.extend(f.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')));
            out.push(SEPARATOR);
        }
        out.extend_from_slice(&self.photo);
        if self.layout == Layout::Original {
            let hashes = match self.email_mobile_indicator {
                3 => 2,
                1 | 2 => 1,
                _ => 0,
            };
            out.extend(std::iter::repeat_n(0xa5, hashes * HASH_LEN));
        }
        out
    }
}

/// `signed ‖ RSA-SHA256(signed)` with the PKCS#8 key. Panics on a bad key: test code.
#[cfg(any(test, feature = "testing"))]
pub fn sign_for_tests(signed: &[u8], pkcs8_der: &[u8]) -> Vec<u8> {
    use aws_lc_rs::signature::{RsaKeyPair, RSA_PKCS1_SHA256};
    let key = RsaKeyPair::from_pkcs8(pkcs8_der).expect("test key is PKCS#8 RSA");
    let mut sig = vec![0u8; key.public_modulus_len()];
    key.sign(&RSA_PKCS1_SHA256, &aws_lc_rs::rand::SystemRandom::new(), signed, &mut sig).expect("sign");
    let mut out = signed.to_vec();
    out.extend_from_slice(&sig);
    out
}

/// Bytes → gzip → the decimal text a Secure QR holds.
#[cfg(any(test, feature = "testing"))]
pub fn compress_to_decimal_for_tests(data: &[u8]) -> String {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(data).expect("gzip to memory");
    bytes_to_decimal(&gz.finish().expect("gzip to memory"))
}

/// Big-endian bytes → decimal digits (base 10^9 limbs, little-endian).
#[cfg(any(test, feature = "testing"))]
pub fn bytes_to_decimal(bytes: &[u8]) -> String {
    let mut limbs: Vec<u32> = Vec::new();
    for &b in bytes {
        let mut carry = u64::from(b);
        for limb in limbs.iter_mut() {
            let v = u64::from(*limb) * 256 + carry;
            *limb = (v % 1_000_000_000) as u32;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            limbs.push((carry % 1_000_000_000) as u32);
            carry /= 1_000_000_000;
        }
    }
    let Some((top, rest)) = limbs.split_last() else { return "0".into() };
    let mut s = top.to_string();
    for l in rest.iter().rev() {
        s.push_str(&format!("{l:09}"));
    }
    s
}

/// The text of a Secure QR holding `input`, signed with `pkcs8_der` (e.g.
/// [`test_key::PKCS8_DER`]): what a camera would read from the card.
#[cfg(any(test, feature = "testing"))]
pub fn encode_secure_qr_for_tests(input: &SecureQrInput, pkcs8_der: &[u8]) -> String {
    compress_to_decimal_for_tests(&sign_for_tests(&input.signed_bytes(), pkcs8_der))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConfidenceVerdict;

    const V2_VECTOR: &str = include_str!("../testdata/secure_qr_v2.txt");
    const LEGACY_VECTOR: &str = include_str!("../testdata/secure_qr_legacy.txt");

    fn keys() -> UidaiKeys {
        UidaiKeys::from_bytes(test_key::CERT_PEM.as_bytes()).expect("test certificate")
    }

    fn value<'a>(f: &'a [CardField], name: &str) -> Option<&'a str> {
        f.iter().find(|x| x.field == name).map(|x| x.value.as_str())
    }

    fn gunzip_vector(text: &str) -> Vec<u8> {
        gunzip(&decimal_to_bytes(text.trim())).expect("vector decompresses")
    }

    /// A code whose signed bytes are `signed` (re-signed with the test key).
    fn code(signed: &[u8]) -> String {
        compress_to_decimal_for_tests(&sign_for_tests(signed, test_key::PKCS8_DER))
    }

    #[test]
    fn decimal_conversion_round_trips() {
        assert_eq!(decimal_to_bytes("256"), vec![1, 0]);
        assert_eq!(decimal_to_bytes("4294967296"), vec![1, 0, 0, 0, 0]);
        assert_eq!(decimal_to_bytes("18446744073709551615"), vec![0xff; 8]);
        assert_eq!(bytes_to_decimal(&[0xff; 8]), "18446744073709551615");
        assert_eq!(bytes_to_decimal(&[1, 0, 0, 0, 0]), "4294967296");
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..200 {
            let len = rng.gen_range(1..600);
            let mut b: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            b[0] = rng.gen_range(1..=255);
            assert_eq!(decimal_to_bytes(&bytes_to_decimal(&b)), b);
        }
    }

    /// Independent vectors (Python gzip + OpenSSL signature, testdata/make_vectors.sh):
    /// every field out exactly, the signature verified with the certificate, the SPKI in
    /// PEM and DER.
    #[test]
    fn known_answer_v2() -> Result<(), CodecError> {
        let q = parse(V2_VECTOR, Some(&keys()))?;
        assert_eq!((q.layout, q.email_mobile_indicator, q.signature), (Layout::V2, 2, Signature::Verified));
        assert_eq!(q.reference_id, "234620190612163521011");
        let got: Vec<(&str, &str)> = q.fields.iter().map(|f| (f.field.as_str(), f.value.as_str())).collect();
        assert_eq!(
            got,
            [
                ("id_last4", "2346"),
                ("name", "Rahul Kumar"),
                ("gender", "M"),
                ("dob", "15/08/1990"),
                ("address", "S/O Ram Kumar, 12, MG Road, Near Temple, Sector 5, Gurgaon, Gurgaon, Gurgaon, Gurgaon, Haryana"),
                ("pin_code", "122001"),
                ("mobile_last4", "5678"),
            ]
        );
        assert!(q.fields.iter().all(|f| f.confidence_verdict.is_none()));
        let mut photo = vec![0xff, 0x4f, 0xff, 0x51, 0x00, 0x2f];
        photo.extend(0..=255u8);
        photo.extend([0xff, 0xff, 0x00, 0xff, 0xd9]);
        assert_eq!(q.photo, photo);
        for key in [test_key::SPKI_PEM.as_bytes(), test_key::SPKI_DER] {
            let k = UidaiKeys::from_bytes(key).expect("test public key");
            assert_eq!(parse(V2_VECTOR, Some(&k))?.signature, Signature::Verified);
        }
        // The same address as the XML QR of the same person gives.
        let xml = crate::in_aadhaar::parse(r#"<PrintLetterBarcodeData uid="234123412346" name="Rahul Kumar" co="S/O Ram Kumar" house="12" street="MG Road" lm="Near Temple" loc="Sector 5" vtc="Gurgaon" po="Gurgaon" dist="Gurgaon" subdist="Gurgaon" state="Haryana" pc="122001"/>"#)?;
        assert_eq!(value(&xml, "address"), value(&q.fields, "address"));
        Ok(())
    }

    #[test]
    fn known_answer_original_layout() -> Result<(), CodecError> {
        let q = parse(LEGACY_VECTOR, Some(&keys()))?;
        assert_eq!((q.layout, q.email_mobile_indicator, q.signature), (Layout::Original, 3, Signature::Verified));
        let f = &q.fields;
        assert_eq!(value(f, "id_last4"), Some("8901"));
        assert_eq!(value(f, "name"), Some("Zoë D'Souza"), "ISO-8859-1");
        assert_eq!(value(f, "dob"), Some("29/02/1992"));
        assert_eq!(value(f, "gender"), Some("F"));
        // The empty landmark is left out.
        assert_eq!(value(f, "address"), Some("D/O Ivan D'Souza, H.No. 4, Rua de Ourem, Panjim, Panaji, Panjim, Tiswadi, North Goa, Goa"));
        assert_eq!(value(f, "mobile_last4"), None);
        // The two 32-byte hashes are not part of the photo.
        assert_eq!(q.photo.len(), 6 + 256 + 5);
        assert_eq!(q.photo.last(), Some(&0xd9));
        Ok(())
    }

    #[test]
    fn without_keys_not_verified_and_with_another_key_failed() -> Result<(), CodecError> {
        let q = parse(V2_VECTOR, None)?;
        assert_eq!(q.signature, Signature::NotVerified);
        assert!(q.fields.iter().all(|f| f.confidence_verdict.is_none()));
        let other = UidaiKeys::from_bytes(test_key::OTHER_SPKI_PEM.as_bytes()).expect("other test key");
        let q = parse(V2_VECTOR, Some(&other))?;
        assert_eq!(q.signature, Signature::Failed);
        assert!(q.fields.iter().all(|f| f.confidence_verdict == Some(ConfidenceVerdict::Unsure)), "{:?}", q.fields);
        // Either key of a bundle may sign (UIDAI re-keys; old cards keep the old key).
        let bundle = format!("{}\n{}", test_key::OTHER_SPKI_PEM, test_key::CERT_PEM);
        let both = UidaiKeys::from_bytes(bundle.as_bytes()).expect("bundle of test keys");
        assert_eq!(both.len(), 2);
        assert_eq!(parse(V2_VECTOR, Some(&both))?.signature, Signature::Verified);
        Ok(())
    }

    #[test]
    fn encoder_round_trips_every_layout() -> Result<(), CodecError> {
        for (layout, indicator) in [(Layout::V2, 0), (Layout::V3, 3), (Layout::Original, 0), (Layout::Original, 1), (Layout::Original, 3)] {
            let input = SecureQrInput { layout, email_mobile_indicator: indicator, ..SecureQrInput::sample() };
            let q = parse(&encode_secure_qr_for_tests(&input, test_key::PKCS8_DER), Some(&keys()))?;
            assert_eq!((q.layout, q.email_mobile_indicator, q.signature), (layout, indicator, Signature::Verified));
            assert_eq!(q.photo, input.photo, "{layout:?} {indicator}");
            assert_eq!(value(&q.fields, "mobile_last4"), (layout != Layout::Original).then_some("5678"));
        }
        // Year of birth only; no mobile digits.
        let input = SecureQrInput { dob: "1985".into(), mobile_last4: String::new(), ..SecureQrInput::sample() };
        let q = parse(&encode_secure_qr_for_tests(&input, test_key::PKCS8_DER), None)?;
        assert_eq!((value(&q.fields, "year_of_birth"), value(&q.fields, "dob"), value(&q.fields, "mobile_last4")), (Some("1985"), None, None));
        Ok(())
    }

    /// Any change to the signed bytes or the signature: never `verified`, fields UNSURE.
    #[test]
    fn flipped_bytes_fail_the_signature() {
        let data = gunzip_vector(V2_VECTOR);
        let k = keys();
        // A letter of the name, a digit of the date, a photo byte, a signature byte.
        let name_at = data.windows(5).position(|w| w == b"Rahul").unwrap_or(0);
        for (i, mask) in [(name_at + 1, 0x20u8), (data.len() - 300, 0x01), (data.len() - 1, 0x80), (data.len() - 256, 0x01)] {
            let mut d = data.clone();
            d[i] ^= mask;
            let q = parse(&compress_to_decimal_for_tests(&d), Some(&k)).expect("still well-formed");
            assert_eq!(q.signature, Signature::Failed, "byte {i}");
            assert!(q.fields.iter().all(|f| f.confidence_verdict == Some(ConfidenceVerdict::Unsure)));
        }
    }

    #[test]
    fn must_fail() {
        let k = keys();
        let p = |t: &str| parse(t, Some(&k));
        // Not a Secure QR at all: text, short numbers, leading zero, a number that is not gzip.
        for t in ["", "hello", "12345", &format!("0{}", &V2_VECTOR.trim()[1..]), &"4".repeat(600), &"9".repeat(8000)] {
            assert!(matches!(p(t), Err(CodecError::NotThisCard(_))), "{}", &t[..t.len().min(20)]);
        }
        // Truncated: the gzip stream ends early (or its CRC no longer matches).
        let digits = V2_VECTOR.trim();
        let full = decimal_to_bytes(digits).len();
        for cut in [1, 10, 100, full / 2] {
            let mut b = decimal_to_bytes(digits);
            b.truncate(full - cut);
            assert!(matches!(p(&bytes_to_decimal(&b)), Err(CodecError::InvalidField { field: "secure_qr", .. })), "cut {cut}");
        }
        // A corrupt compressed byte (CRC-32 catches what inflate does not); trailing bytes.
        let mut b = decimal_to_bytes(digits);
        let n = b.len();
        b[n - 20] ^= 0x10;
        assert!(p(&bytes_to_decimal(&b)).is_err());
        let mut b = decimal_to_bytes(digits);
        b.push(0);
        assert!(matches!(p(&bytes_to_decimal(&b)), Err(CodecError::InvalidField { field: "secure_qr", .. })));
        // A decompression bomb: 1 MiB of zeros compresses to ~1 KiB.
        let bomb = compress_to_decimal_for_tests(&vec![0u8; 1 << 20]);
        assert!(bomb.len() <= MAX_DIGITS, "{}", bomb.len());
        match p(&bomb) {
            Err(CodecError::InvalidField { field: "secure_qr", reason }) => assert!(reason.contains("more than"), "{reason}"),
            other => panic!("{other:?}"),
        }
        // Just over the cap also fails; just under passes the size check.
        assert!(p(&compress_to_decimal_for_tests(&vec![b'x'; MAX_DECOMPRESSED + 1])).is_err());
        // Shorter than a signature; no separators; missing fields; unknown version.
        // (Bytes that do not compress well, without 0xFF, so the number is long enough.)
        let short: Vec<u8> = (0..200u8).collect();
        assert!(matches!(p(&compress_to_decimal_for_tests(&short)), Err(CodecError::InvalidField { field: "secure_qr", .. })));
        let no_separator: Vec<u8> = (0..400u32).map(|i| (i * 7 % 251) as u8).collect();
        assert!(matches!(p(&compress_to_decimal_for_tests(&no_separator)), Err(CodecError::InvalidField { field: "secure_qr", .. })));
        let signed = SecureQrInput::sample().signed_bytes();
        let seps: Vec<usize> = signed.iter().enumerate().filter(|(_, b)| **b == SEPARATOR).map(|(i, _)| i).collect();
        // Cut after the 10th field: the photo's 0xFF bytes still make enough separators
        // unless the photo goes too; with no photo, fields are missing.
        let missing = signed[..seps[9] + 1].to_vec();
        match p(&code(&missing)) {
            Err(CodecError::InvalidField { field: "secure_qr", reason }) => assert!(reason.contains("expected 18"), "{reason}"),
            other => panic!("{other:?}"),
        }
        let v4 = SecureQrInput { layout: Layout::V2, ..SecureQrInput::sample() }.signed_bytes();
        let v4 = [b"V4".as_slice(), &v4[2..]].concat();
        assert!(matches!(p(&code(&v4)), Err(CodecError::Unsupported(_))));
        // Original layout announcing two hashes with no room for them.
        let short = SecureQrInput { layout: Layout::Original, email_mobile_indicator: 3, photo: vec![], ..SecureQrInput::sample() }.signed_bytes();
        let short = &short[..short.len() - 40];
        assert!(p(&code(short)).is_err());
        // Field checks, whatever the signature says.
        let bad = |f: fn(&mut SecureQrInput)| {
            let mut i = SecureQrInput::sample();
            f(&mut i);
            p(&encode_secure_qr_for_tests(&i, test_key::PKCS8_DER))
        };
        let cases: [(&str, fn(&mut SecureQrInput)); 12] = [
            ("dob", |i| i.dob = "29-02-1991".into()),
            ("dob", |i| i.dob = "31-04-1990".into()),
            ("dob", |i| i.dob = "1990/08/15/1".into()),
            ("gender", |i| i.gender = "X".into()),
            ("name", |i| i.name = "  ".into()),
            ("name", |i| i.name = "A\u{85}B".into()),
            ("pin_code", |i| i.pin_code = "12200".into()),
            ("reference_id", |i| i.reference_id = "23x4".into()),
            ("reference_id", |i| i.reference_id = "234".into()),
            ("mobile_last4", |i| i.mobile_last4 = "567".into()),
            ("email_mobile_indicator", |i| i.email_mobile_indicator = 4),
            ("address", |i| i.street = "MG\u{1}Road".into()),
        ];
        for (field, f) in cases {
            match bad(f) {
                Err(CodecError::InvalidField { field: got, .. }) => assert_eq!(got, field),
                other => panic!("{field}: {other:?}"),
            }
        }
    }

    #[test]
    fn keys_must_fail() {
        assert_eq!(UidaiKeys::from_bytes(b"").err(), Some(KeyError::Empty));
        assert_eq!(UidaiKeys::from_bytes(b"hello").err(), Some(KeyError::NotRsa2048));
        assert!(matches!(UidaiKeys::from_bytes(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), Err(KeyError::Pem { .. })));
        assert!(matches!(UidaiKeys::from_bytes(b"-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n"), Err(KeyError::Pem { .. })));
        assert!(matches!(UidaiKeys::from_bytes(b"-----BEGIN CERTIFICATE-----\nAAAA\n"), Err(KeyError::Pem { .. })));
        // A public key where a certificate is announced, and the reverse.
        let swapped = test_key::SPKI_PEM.replace("PUBLIC KEY", "CERTIFICATE");
        assert!(matches!(UidaiKeys::from_bytes(swapped.as_bytes()), Err(KeyError::Pem { .. })));
        // A 1024-bit RSA key is too small; an EC key is not RSA.
        let small = include_bytes!("../testdata/rsa_1024.spki.der");
        assert_eq!(UidaiKeys::from_bytes(small).err(), Some(KeyError::NotRsa2048));
        let ec = include_bytes!("../testdata/ec_p256.spki.pem");
        assert!(matches!(UidaiKeys::from_bytes(ec), Err(KeyError::Pem { .. })));
        // A DER certificate reads like the PEM one.
        use base64::Engine as _;
        let body: String = test_key::CERT_PEM.lines().filter(|l| !l.starts_with("-----")).collect();
        let der = base64::engine::general_purpose::STANDARD.decode(body).unwrap_or_default();
        assert_eq!(UidaiKeys::from_bytes(&der).map(|k| k.len()), Ok(1));
        // Truncated DER certificate.
        assert!(UidaiKeys::from_bytes(&der[..der.len() - 10]).is_err());
    }

    #[test]
    fn der_reader_is_strict() {
        assert_eq!(tlv(&[0x30, 0x00]), Some((0x30, &[][..], &[][..])));
        assert_eq!(tlv(&[0x30, 0x80, 0x00, 0x00]), None, "indefinite length");
        assert_eq!(tlv(&[0x30, 0x81, 0x05, 1, 2, 3, 4, 5]), None, "short length written long");
        assert_eq!(tlv(&[0x30, 0x82, 0x00, 0x80]), None, "leading zero length byte");
        assert_eq!(tlv(&[0x30, 0x03, 1, 2]), None, "longer than the input");
        assert_eq!(tlv(&[0x1f, 0x01, 0x00]), None, "high tag number");
        assert_eq!(tlv(&[0x30, 0x85, 1, 1, 1, 1, 1]), None, "5 length bytes");
    }

    /// Random text, random numbers, and random corruptions of a real code's compressed
    /// and decompressed bytes: an answer, never a panic, and never `verified` unless the
    /// signed bytes and signature are exactly the original ones.
    #[test]
    fn arbitrary_input_never_panics() {
        use rand::{Rng, SeedableRng};
        fn with_key(t: &str) -> Result<Vec<CardField>, CodecError> {
            static KEYS: std::sync::OnceLock<Option<UidaiKeys>> = std::sync::OnceLock::new();
            let k = KEYS.get_or_init(|| UidaiKeys::from_bytes(test_key::CERT_PEM.as_bytes()).ok());
            parse(t, k.as_ref()).map(|q| q.fields)
        }
        crate::testing::never_panics_n(with_key, V2_VECTOR.trim(), "1", "00112233445566778899 \n\u{0}x", 21, 4000);
        let k = keys();
        let original = gunzip_vector(V2_VECTOR);
        let compressed = decimal_to_bytes(V2_VECTOR.trim());
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        for round in 0..400 {
            // Corrupt the compressed bytes.
            let mut c = compressed.clone();
            for _ in 0..rng.gen_range(1..4) {
                let i = rng.gen_range(0..c.len());
                c[i] = rng.gen();
            }
            if let Ok(q) = parse(&bytes_to_decimal(&c), Some(&k)) {
                assert!(q.signature != Signature::Verified || gunzip(&c).ok().as_deref() == Some(&original[..]), "round {round}");
            }
            // Corrupt the decompressed bytes (flips, inserted or removed separators), then
            // compress again: well-formed gzip, altered content.
            let mut d = original.clone();
            match rng.gen_range(0..3) {
                0 => {
                    let i = rng.gen_range(0..d.len());
                    d[i] ^= rng.gen_range(1..=255);
                }
                1 => {
                    let i = rng.gen_range(0..d.len());
                    d.insert(i, SEPARATOR);
                }
                _ => {
                    let i = rng.gen_range(0..d.len());
                    d.remove(i);
                }
            }
            d.truncate(rng.gen_range(0..=d.len()).max(d.len().saturating_sub(rng.gen_range(0..8))));
            let r = parse(&compress_to_decimal_for_tests(&d), Some(&k));
            if let Ok(q) = r {
                assert_ne!(q.signature, Signature::Verified, "round {round}: altered data verified");
                assert!(q.fields.iter().all(|f| f.confidence_verdict == Some(ConfidenceVerdict::Unsure)));
            }
        }
    }
}
