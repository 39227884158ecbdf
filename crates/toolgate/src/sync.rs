//! Lock helpers shared by every module that keeps state behind a `std::sync::Mutex`.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering from poisoning: the data behind these locks is plain
/// counters and snapshots that stay valid when a holder panicked, and refusing every
/// later call because of one panic would turn a bug into an outage.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
