//! A session recorded by the TypeScript SDK's capture (sdk/web/src/capture.ts; the fixture
//! is regenerated and compared by sdk/web/test/capture.test.ts) read by the engine: every
//! event accepted, each gesture counted as what it was.

#[test]
fn the_web_sdk_capture_is_read_by_the_engine() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdk/web/test/fixtures/capture_session.json");
    let text = std::fs::read_to_string(path).expect("the fixture the web SDK's tests keep");
    let batches: Vec<serde_json::Value> = serde_json::from_str(&text).expect("a JSON array of batch data objects");
    let session = idv_scoring::features::extract(&batches).expect("the engine reads the session");
    let c = &session.counts;
    assert_eq!((c.events, c.skipped, c.dropped), (110, 0, 0), "events accepted / skipped / dropped");
    assert_eq!((c.taps, c.swipes, c.key_presses), (12, 8, 11), "taps, swipes, key presses");
    assert!(session.device_consistent);
    assert_eq!(session.device.os.as_deref(), Some("android"));
}
