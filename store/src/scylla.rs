//! stub (being written)
use crate::{Result, StoreError};
pub struct ScyllaStore;
impl ScyllaStore {
    pub async fn connect(url: &str) -> Result<std::sync::Arc<dyn crate::Store>> { Err(StoreError::BadUrl(url.into(), "x".into())) }
}
