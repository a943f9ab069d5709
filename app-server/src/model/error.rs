//! Model errors and their mapping to turn errors.

/// Why a model request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// Placeholder until the model layer lands.
    #[error("{0}")]
    Other(String),
}
