//! Lock helpers for every module that keeps state behind a `std::sync::Mutex` or
//! `RwLock`: the one place that decides what a poisoned lock means.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks a mutex, recovering from poisoning: the data behind these locks is plain
/// counters and snapshots that stay valid when a holder panicked, and refusing every
/// later call because of one panic would turn a bug into an outage.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Reads behind an `RwLock`, recovering from poisoning (see [`lock`]).
pub fn read<T>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|p| p.into_inner())
}

/// Writes behind an `RwLock`, recovering from poisoning (see [`lock`]).
pub fn write<T>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|p| p.into_inner())
}
