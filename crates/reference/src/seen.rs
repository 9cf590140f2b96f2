//! What variants `unstated-values-refused` and `in-flight-reversed` keep per instance: the
//! strings it has shown, and the change waiting for a later one (`unstated.rs` reads them).

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;
use tokio::sync::oneshot;

/// The longest string kept as shown: ids, tokens and filter values are far shorter.
const LONGEST: usize = 256;

/// Every string the instance has shown.
#[derive(Default)]
pub(crate) struct Shown(Mutex<HashSet<String>>);

impl Shown {
    pub fn keep(&self, v: &Value) {
        let mut set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        keep_strings(v, &mut set);
    }

    pub fn has(&self, s: &str) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).contains(s)
    }
}

fn keep_strings(v: &Value, set: &mut HashSet<String>) {
    match v {
        Value::String(s) if s.chars().count() <= LONGEST && !set.contains(s) => {
            set.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|i| keep_strings(i, set)),
        Value::Object(m) => m.values().for_each(|i| keep_strings(i, set)),
        _ => {}
    }
}

/// The change waiting for a later one, in `in-flight-reversed`.
#[derive(Default)]
pub(crate) struct Waiting {
    pub slot: Mutex<Option<(u64, oneshot::Sender<oneshot::Receiver<()>>)>>,
    next: AtomicU64,
}

impl Waiting {
    /// A fresh number for a change that waits.
    pub fn next_id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }
}
