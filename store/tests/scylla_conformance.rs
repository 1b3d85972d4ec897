//! The store conformance suite against a real ScyllaDB node, when one is given:
//!
//! ```text
//! IDV_TEST_SCYLLA='scylla://127.0.0.1:9042/idv_test?replication_factor=1' \
//!     cargo test -p idv-store --features scylla --test scylla_conformance -- --nocapture
//! ```
//!
//! (`replication_factor=1` for a single node: the store's default of 3 cannot reach
//! LOCAL_QUORUM on one node.) The test is `#[ignore]`d, so without a node it is counted
//! as skipped, never as passed (no ScyllaDB node can run on the development machines or
//! in CI); `-- --ignored` runs it, and then a missing variable is a failure.
#![cfg(feature = "scylla")]

use idv_store::Store;
use std::sync::Arc;

async fn node() -> Arc<dyn Store> {
    let url = std::env::var("IDV_TEST_SCYLLA").expect("IDV_TEST_SCYLLA names the ScyllaDB node to test against");
    let store = idv_store::open(&url).await.expect("connect to IDV_TEST_SCYLLA");
    assert_eq!(store.backend(), "scylla");
    store
}

// One test per check of every store area; every check uses fresh ids.
idv_store::store_conformance_tests!(node(), #[ignore = "needs a ScyllaDB node: set IDV_TEST_SCYLLA and run with --ignored"]);
