//! The SQLite thread index and the [`Store`] facade.

/// Thread storage: rollouts plus the index.
pub struct Store {}
