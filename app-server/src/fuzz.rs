//! `tandem fuzz <target>` (hidden, `fuzzing` feature): the fuzz targets, driven by the
//! mutation fuzzer of `app-server/fuzz` (`tandem-fuzz`). `app-server/fuzz/run` builds and runs
//! them; `app-server/fuzz/README.md` describes the input format of each target.
//!
//! - `jsonl`: bytes as stdin → the line reader (`transport::stdio::read_lines`) → the envelope
//!   classifier (`transport::decode_line`) → for requests, typed decoding and the experimental
//!   gates (`processor::gate_request`), with and without `experimentalApi`; for responses, the
//!   pending-request table (`OutgoingSender::resolve`).
//! - `apply-patch`: `<patch text> NUL <file content>` → `parse_patch`,
//!   `parse_heredoc_invocation`, and the four-pass matcher on the file content.
//! - `sse`: `<wire byte><retry-after>|<retry-after-ms>\n<body>` → the `Retry-After` parser,
//!   then the body (cut into network chunks at each NUL) through frame splitting, the SSE parser
//!   and the Responses or Chat Completions decoder.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use tandem_fuzz::{Options, Report, signature};
use tokio::sync::mpsc;

use crate::compat::requests::gate_request;
use crate::outgoing::OutgoingSender;
use crate::transport::stdio::read_lines;
use crate::transport::{DecodeError, IncomingMessage, decode_line};
use tandem_core::model::{chat, responses, retry_after_for_fuzzing};
use tandem_core::tools::apply_patch::apply_chunks;
use tandem_core::tools::apply_patch::heredoc::parse_heredoc_invocation;
use tandem_core::tools::apply_patch::parser::{FileOperation, parse_patch};

/// Arguments of `tandem fuzz`.
#[derive(Debug, Args)]
pub struct FuzzArgs {
    /// What to fuzz.
    #[arg(value_enum)]
    pub target: FuzzTarget,
    /// Stop after this many inputs.
    #[arg(long, default_value_t = 1_000_000)]
    pub inputs: u64,
    /// Stop after this many seconds.
    #[arg(long, default_value_t = u64::MAX / 4)]
    pub seconds: u64,
    /// Seed corpus directory (default: `app-server/fuzz/corpus/<target>`).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Where a panicking input is written (default: `app-server/fuzz/crashes/<target>`).
    #[arg(long)]
    pub crashes: Option<PathBuf>,
    /// PRNG seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Run this one input (a saved crash) instead of fuzzing.
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
}

/// The fuzz targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FuzzTarget {
    /// The JSONL reader, envelope decoder and request gates.
    Jsonl,
    /// The apply_patch parser, heredoc detection and matcher.
    ApplyPatch,
    /// The SSE frame splitter, parser and model-event decoders, and `Retry-After`.
    Sse,
}

impl FuzzTarget {
    fn name(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::ApplyPatch => "apply-patch",
            Self::Sse => "sse",
        }
    }
}

/// Runs `tandem fuzz`.
pub fn run(args: &FuzzArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    // Server requests are never issued here, so the writer queue stays empty.
    let (lines, _written) = mpsc::channel(1);
    let outgoing = OutgoingSender::new(lines);
    let target = |input: &[u8]| match args.target {
        FuzzTarget::Jsonl => runtime.block_on(jsonl(&outgoing, input)),
        FuzzTarget::ApplyPatch => apply_patch(input),
        FuzzTarget::Sse => sse(input),
    };
    if let Some(path) = &args.replay {
        let input = std::fs::read(path)?;
        let outcome = target(&input);
        report(&format!(
            "replayed {}: outcome {outcome:016x}",
            path.display()
        ));
        return Ok(());
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let options = Options {
        max_inputs: args.inputs,
        max_time: Duration::from_secs(args.seconds),
        corpus: args
            .corpus
            .clone()
            .unwrap_or_else(|| dir.join("corpus").join(args.target.name())),
        crashes: args
            .crashes
            .clone()
            .unwrap_or_else(|| dir.join("crashes").join(args.target.name())),
        seed: args.seed,
        max_len: 1024,
        dictionary: dictionary(args.target),
    };
    let result = tandem_fuzz::run(&options, target)?;
    report(&summary(args.target, &result));
    if let Some(crash) = result.crash {
        anyhow::bail!(
            "{} panicked: {} (input saved to {}; rerun with --replay)",
            args.target.name(),
            crash.message,
            crash.path.display()
        );
    }
    Ok(())
}

#[allow(
    clippy::print_stdout,
    reason = "the fuzz report is this subcommand's output"
)]
fn report(line: &str) {
    println!("{line}");
}

fn summary(target: FuzzTarget, result: &Report) -> String {
    format!(
        "fuzz {}: {} inputs in {:.1} s ({:.0} inputs/s), {} distinct outcomes, corpus {}, {}",
        target.name(),
        result.inputs,
        result.elapsed.as_secs_f64(),
        result.throughput(),
        result.outcomes,
        result.corpus_size,
        if result.crash.is_some() {
            "CRASH"
        } else {
            "no crash"
        }
    )
}

/// Longest line the `jsonl` target reads (the server's default is far larger; a small cap
/// exercises the over-long-line path).
const JSONL_MAX_LINE: usize = 2048;

async fn jsonl(outgoing: &OutgoingSender, input: &[u8]) -> u64 {
    let mut tags: Vec<String> = Vec::new();
    let mut overlong: Vec<String> = Vec::new();
    let _ = read_lines(
        input,
        JSONL_MAX_LINE,
        async |line: String| {
            let tag = match decode_line(&line) {
                Ok(IncomingMessage::Request { id, method, value }) => {
                    let plain = gate_request(id.clone(), value.clone(), false);
                    let experimental = gate_request(id, value, true);
                    let outcome = |result: &Result<
                        _,
                        (_, app_server_protocol::jsonrpc::JsonRpcErrorBody),
                    >| match result {
                        Ok(_) => format!("ok {method}"),
                        Err((_, error)) => error.message.chars().take(32).collect(),
                    };
                    format!("{} / {}", outcome(&plain), outcome(&experimental))
                }
                Ok(IncomingMessage::Notification { method }) => format!("notification {method}"),
                Ok(IncomingMessage::Response { id, outcome }) => {
                    let known = outgoing.pending().resolve(&id, outcome);
                    format!("response {known}")
                }
                Err(DecodeError::NotJson(_)) => "not json".to_string(),
                Err(DecodeError::NotAMessage(reason)) => reason.to_string(),
            };
            if tags.len() < 8 {
                tags.push(tag);
            }
        },
        async |id| {
            if overlong.len() < 8 {
                overlong.push(format!("overlong {id:?}"));
            }
        },
    )
    .await;
    tags.extend(overlong);
    let parts: Vec<&[u8]> = tags.iter().map(String::as_bytes).collect();
    signature(&parts)
}

fn apply_patch(input: &[u8]) -> u64 {
    let (patch, content) = match input.iter().position(|byte| *byte == 0) {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => (input, &[][..]),
    };
    let patch = String::from_utf8_lossy(patch);
    let content = String::from_utf8_lossy(content);
    let mut tags: Vec<String> = Vec::new();
    if let Some(heredoc) = parse_heredoc_invocation(&patch) {
        tags.push(format!("heredoc {}", heredoc.workdir.is_some()));
        tags.push(parse_and_match(&heredoc.patch, &content));
    }
    tags.push(parse_and_match(&patch, &content));
    let parts: Vec<&[u8]> = tags.iter().map(String::as_bytes).collect();
    signature(&parts)
}

fn parse_and_match(patch: &str, content: &str) -> String {
    match parse_patch(patch) {
        Err(error) => format!("parse error line {}", error.line().min(8)),
        Ok(patch) => {
            let mut tag = String::new();
            for operation in &patch.operations {
                match operation {
                    FileOperation::Add { .. } => tag.push('A'),
                    FileOperation::Delete { .. } => tag.push('D'),
                    FileOperation::Update { path, chunks, .. } => {
                        tag.push('U');
                        match apply_chunks(content, chunks, path) {
                            Ok(new_content) => {
                                tag.push(if new_content == content { '=' } else { '+' })
                            }
                            Err(_) => tag.push('!'),
                        }
                    }
                }
            }
            tag
        }
    }
}

fn sse(input: &[u8]) -> u64 {
    let Some((&wire, rest)) = input.split_first() else {
        return 0;
    };
    let (header, body) = match rest.iter().position(|byte| *byte == b'\n') {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (&[][..], rest),
    };
    let header = String::from_utf8_lossy(header);
    let (seconds, millis) = header.split_once('|').unwrap_or((&header, ""));
    let delay = retry_after_for_fuzzing(seconds, millis);
    let chunks: Vec<&[u8]> = body.split(|byte| *byte == 0).collect();
    let (events, error) = if wire % 2 == 0 {
        responses::decode_body_for_fuzzing(&chunks)
    } else {
        chat::decode_body_for_fuzzing(&chunks)
    };
    let mut tags: Vec<String> = vec![format!("wire {} delay {}", wire % 2, delay.is_some())];
    tags.extend(events.iter().take(16).map(|event| {
        let debug = format!("{event:?}");
        debug
            .split(['(', ' ', '{'])
            .next()
            .unwrap_or_default()
            .to_string()
    }));
    tags.push(format!("{} events", events.len().min(64)));
    if let Some(error) = error {
        tags.push(error.to_string().chars().take(40).collect());
    }
    let parts: Vec<&[u8]> = tags.iter().map(String::as_bytes).collect();
    signature(&parts)
}

/// Tokens that matter to each target's grammar.
fn dictionary(target: FuzzTarget) -> Vec<Vec<u8>> {
    let tokens: &[&str] = match target {
        FuzzTarget::Jsonl => &[
            "\"id\":",
            "\"method\":",
            "\"params\":",
            "\"result\":",
            "\"error\":",
            "\"jsonrpc\":\"2.0\"",
            "\"initialize\"",
            "\"thread/start\"",
            "\"turn/start\"",
            "\"turn/interrupt\"",
            "\"command/exec\"",
            "\"thread/resume\"",
            "\"threadId\":",
            "\"input\":",
            "\"type\":\"text\"",
            "\"collaborationMode\":",
            "null",
            "true",
            "-9223372036854775809",
            "18446744073709551616",
            "1e400",
            "\"\\ud800\"",
            "[",
            "]",
            "{",
            "}",
            "\n",
        ],
        FuzzTarget::ApplyPatch => &[
            "*** Begin Patch\n",
            "*** End Patch\n",
            "*** Add File: ",
            "*** Delete File: ",
            "*** Update File: ",
            "*** Move to: ",
            "*** End of File\n",
            "@@",
            "@@ -1,3 +1,3 @@\n",
            "\n+",
            "\n-",
            "\n ",
            "<<'EOF'\n",
            "\nEOF\n",
            "apply_patch ",
            "bash -lc '",
            "cd dir && ",
            "\r\n",
            "\u{201c}",
            "\u{2014}",
            "\0",
        ],
        FuzzTarget::Sse => &[
            "data: ",
            "event: ",
            "id: ",
            "retry: ",
            ": comment\n",
            "\n\n",
            "\r\n",
            "[DONE]",
            "\"type\":\"response.output_text.delta\"",
            "\"type\":\"response.output_item.added\"",
            "\"type\":\"response.output_item.done\"",
            "\"type\":\"response.completed\"",
            "\"type\":\"response.failed\"",
            "\"type\":\"function_call\"",
            "\"tool_calls\":[",
            "\"index\":",
            "\"delta\":",
            "\"choices\":[",
            "\"finish_reason\":\"stop\"",
            "\"usage\":",
            "1e20",
            "-1",
            "NaN",
            "inf",
            "99999999999999999999",
            "0.0000001",
            "|",
            "\0",
        ],
    };
    tokens
        .iter()
        .map(|token| token.as_bytes().to_vec())
        .collect()
}
