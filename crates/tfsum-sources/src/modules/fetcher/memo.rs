//! The per-run memo: one shared computation per key, failures included, so that
//! concurrent calls for one identity wait for one fetch instead of starting their own.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

use super::super::ModuleError;

type Cell<V> = Arc<OnceCell<Result<V, ModuleError>>>;

/// Per-run memo: one shared computation per key, failures included.
pub(super) struct Memo<K, V> {
    cells: Mutex<HashMap<K, Cell<V>>>,
}

impl<K: Eq + Hash + Clone, V: Clone> Memo<K, V> {
    pub(super) fn new() -> Memo<K, V> {
        Memo {
            cells: Mutex::new(HashMap::new()),
        }
    }

    pub(super) async fn get<F, Fut>(&self, key: &K, compute: F) -> Result<V, ModuleError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<V, ModuleError>>,
    {
        let cell = {
            let mut cells = match self.cells.lock() {
                Ok(cells) => cells,
                Err(poisoned) => poisoned.into_inner(),
            };
            cells.entry(key.clone()).or_default().clone()
        };
        cell.get_or_init(compute).await.clone()
    }
}
