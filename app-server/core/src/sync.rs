//! Small synchronisation helpers shared by every layer of the core and by the front ends.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, recovering the data if another task panicked while holding it.
///
/// A panic in one turn or one request must not poison state that other threads and sessions
/// share; the data a panicking holder left is still the best we have.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
