//! Conversation history search: turns rollouts (Tandem's and Codex's) into conversation
//! events, indexes them for BM25 over a postings structure with corpus statistics, and answers
//! the `search` and `open` tools of `spec/history-search.md`.
//!
//! Layers, top down: [`service`] (validate → plan → score → envelope), [`backend`] (the
//! [`backend::HistoryBackend`] trait with the embedded SQLite store in [`sqlite`] and the
//! ClickHouse store in [`clickhouse`]), [`ingest`] (incremental reading of rollout files) and
//! [`rollout`] (one line → at most one [`event::Event`]). Query and hit logs are written off
//! the answer path by [`telemetry`].

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod backend;
pub mod clickhouse;
pub mod config;
pub mod event;
pub mod ingest;
pub mod postings;
pub mod rollout;
pub mod service;
pub mod sqlite;
pub mod telemetry;
pub mod tokenize;
pub mod topk;
