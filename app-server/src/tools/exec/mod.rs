//! Command execution: process groups, streaming output, timeouts and unified-exec sessions.
