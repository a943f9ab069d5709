//! Shared test support: the mock model server and the typed client that drives the real binary.
pub mod mcp;
pub mod mock_embeddings;
pub mod mock_model;
pub mod server;
