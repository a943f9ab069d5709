//! Retries with backoff around a single model request.
