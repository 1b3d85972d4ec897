//! The behavioral integration flow and tampering cases over the in-process bus.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behavioral_flow_over_in_process_bus() {
    idv_tests::behavior::run("memory://").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_check_and_sealed_transaction_data_over_in_process_bus() {
    idv_tests::behavior::run_policies("memory://").await;
}

/// A bus on which every result is lost (a results consumer that missed a message): the
/// waiting ingest must find the answer in the store.
struct LosesResults(std::sync::Arc<dyn idv_bus::Bus>);

#[async_trait::async_trait]
impl idv_bus::Bus for LosesResults {
    async fn ensure_topics(&self, topics: &[&str], partitions: u32) -> Result<(), idv_bus::BusError> {
        self.0.ensure_topics(topics, partitions).await
    }
    async fn publish(&self, topic: &str, key: &[u8], payload: &[u8]) -> Result<(), idv_bus::BusError> {
        if topic == idv_schemas::ops::Topic::Results.name() {
            return Ok(());
        }
        self.0.publish(topic, key, payload).await
    }
    async fn subscribe(&self, topic: &str, group: &str, start: idv_bus::StartFrom) -> Result<Box<dyn idv_bus::Consumer>, idv_bus::BusError> {
        self.0.subscribe(topic, group, start).await
    }
    fn backend(&self) -> &'static str {
        self.0.backend()
    }
}

/// With every result of the scorer lost: register_device and create_challenge are
/// answered from their request records, each push from its chain (a push has no record),
/// and a push the scorer refused, which leaves no trace, ends in a 408.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_lost_on_the_bus_are_read_from_the_record_or_the_chain() {
    use idv_tests::behavior;
    let h = idv_tests::Harness::start_roles("memory://", idv::Roles { ingest: true, worker: true, scorer: false }, |s| {
        s.request_timeout_ms = Some(3_000);
    })
    .await;
    let losing = idv::app::Backends { bus: std::sync::Arc::new(LosesResults(h.backends.bus.clone())), ..h.backends.clone() };
    let scorer = idv::app::start_with(&h.settings, idv::Roles { ingest: false, worker: false, scorer: true }, losing).await.expect("scorer starts");
    let creds = h.create_key("lost-results").await;
    let (device, _) = behavior::register(&h, &creds, false, "user-lost").await;
    let (challenge, nonce) = behavior::challenge(&h.client, &device).await;
    let user = idv_scoring::synth::User::new(3);
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let batches = user.session_batches(3, &mut rng);
    const PUSH: &str = "/v1/behavior/push_event_batch";
    let mut chain = idv_client::BatchChain::new(&nonce);
    let mut last = String::new();
    for data in &batches {
        last = chain.next_plaintext(data);
        let r = behavior::device_call(&h.client, &device.session, PUSH, last.as_bytes(), Some(&challenge)).await;
        assert_eq!((r.status, r.body["data"]["status"].as_str()), (200, Some("success")), "{:?}", r.body);
    }
    let stored = h.backends.store.list_batches(&challenge).await.expect("batches");
    assert_eq!(stored.len(), 3, "every push answered from the chain was appended once");
    // The last batch again, as a new request: the scorer refuses it (a reused seq) and
    // its refusal was lost with the bus result.
    let r = behavior::device_call(&h.client, &device.session, PUSH, last.as_bytes(), Some(&challenge)).await;
    assert_eq!(r.status, 408, "{:?}", r.body);
    assert_eq!(h.backends.store.list_batches(&challenge).await.expect("batches").len(), 3);
    scorer.shutdown(std::time::Duration::from_secs(5)).await;
    h.stop().await;
}
