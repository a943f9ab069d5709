//! Shared test support: the mock model server and the typed client that drives the real binary.
pub mod cluster;
pub mod mcp;
pub mod mock_model;
pub mod server;
