//! The one clock format: RFC 3339 in UTC, as every stored record, job and answer
//! carries it.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// `t` in RFC 3339 (empty only for a year outside 0..=9999, which no clock reading is).
pub fn rfc3339(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

pub fn now_rfc3339() -> String {
    rfc3339(now())
}

/// Seconds since the Unix epoch, now.
pub fn unix_now() -> i64 {
    now().unix_timestamp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_rfc3339_utc() {
        let t = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap_or(OffsetDateTime::UNIX_EPOCH);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20Z");
        let now = now_rfc3339();
        assert!(OffsetDateTime::parse(&now, &Rfc3339).is_ok(), "{now}");
    }
}
