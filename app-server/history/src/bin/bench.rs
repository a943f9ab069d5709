//! `tandem-history-bench`: generates a realistic rollout corpus (default 1,000,000 events),
//! ingests it into the embedded index and/or ClickHouse, and prints ingest rate, index size,
//! `search` p50/p99 for 1-, 3- and 8-term queries, `open` p50, incremental ingest of one turn,
//! and recall@10 / MRR over a judged query set.
//!
//! Usage: `tandem-history-bench [--events N] [--dir DIR] [--clickhouse URL] [--no-embedded]`

#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use tandem_history::config::{BackendKind, HistoryConfig};
use tandem_history::event::LOCAL_OWNER;
use tandem_history::service::{HistoryService, OpenArgs, SearchArgs, Verbosity};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Zipf-like: index skewed to the front.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pra", "ste", "gon", "dul", "fen", "sol",
    "ark", "mex", "tor", "quin", "lap", "dri", "yus", "hem", "cor", "pil", "vek", "nor", "sha",
];
const CODE_WORDS: &[&str] = &[
    "cargo",
    "build",
    "test",
    "error",
    "warning",
    "function",
    "struct",
    "impl",
    "trait",
    "async",
    "await",
    "tokio",
    "serde",
    "json",
    "config",
    "parse",
    "socket",
    "timeout",
    "retry",
    "mutex",
    "deadlock",
    "panic",
    "unwrap",
    "lifetime",
    "borrow",
    "compile",
    "linker",
    "docker",
    "nginx",
    "postgres",
    "index",
    "query",
    "migration",
    "schema",
    "request",
    "response",
    "header",
    "cache",
    "thread",
    "channel",
    "sender",
    "receiver",
    "buffer",
    "stream",
    "iterator",
    "closure",
    "module",
    "crate",
    "feature",
    "release",
    "debug",
    "profile",
    "benchmark",
    "latency",
    "memory",
    "leak",
];
const COMMANDS: &[&str] = &[
    "cargo build",
    "cargo test --workspace",
    "git status",
    "git diff HEAD~1",
    "ls -la src",
    "grep -rn TODO src",
    "rg unwrap app-server",
    "npm install",
    "pytest -q",
    "docker compose up -d",
    "make check",
    "cat Cargo.toml",
];

struct Corpus {
    vocabulary: Vec<String>,
}

impl Corpus {
    fn new(rng: &mut Rng) -> Corpus {
        let mut vocabulary: Vec<String> = CODE_WORDS.iter().map(|word| word.to_string()).collect();
        while vocabulary.len() < 20_000 {
            let parts = 2 + rng.below(3);
            let word: String = (0..parts)
                .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                .collect();
            if word.is_ascii() && !vocabulary.contains(&word) {
                vocabulary.push(word);
            }
        }
        Corpus { vocabulary }
    }

    fn sentence(&self, rng: &mut Rng, min: usize, spread: usize) -> String {
        let words = min + rng.below(spread.max(1));
        (0..words)
            .map(|_| self.vocabulary[rng.zipf(self.vocabulary.len())].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A judged query: the words and the uid of the event that answers it.
struct Judged {
    query: String,
    relevant: String,
}

fn line(file: &mut impl Write, clock: &mut i64, kind: &str, payload: serde_json::Value) {
    *clock += 750;
    let _ = writeln!(
        file,
        "{}",
        json!({"timestamp": tandem_history::event::format_timestamp(*clock), "type": kind, "payload": payload})
    );
}

/// Writes sessions of 10 turns × 5 events until `events` are written; returns the judged set.
fn generate(dir: &Path, events: usize, corpus: &Corpus, rng: &mut Rng) -> Vec<Judged> {
    let mut written = 0;
    let mut session = 0;
    let mut judged = Vec::new();
    let mut clock = 1_790_000_000_000i64;
    while written < events {
        session += 1;
        let session_id = format!("bench-{session:07}");
        let day = dir.join(format!(
            "2026/{:02}/{:02}",
            1 + session % 12,
            1 + session % 28
        ));
        let _ = std::fs::create_dir_all(&day);
        let Ok(file) = std::fs::File::create(day.join(format!("rollout-{session_id}.jsonl")))
        else {
            return judged;
        };
        let mut file = std::io::BufWriter::new(file);
        line(
            &mut file,
            &mut clock,
            "session_meta",
            json!({"version": 1, "meta": {"id": session_id}}),
        );
        let mut order = 0;
        for turn in 0..10 {
            let turn_id = format!("{session_id}-t{turn}");
            line(
                &mut file,
                &mut clock,
                "turn_started",
                json!({"turn_id": turn_id}),
            );
            let mut user = corpus.sentence(rng, 8, 20);
            // Every 40th session plants a judged needle in a user message.
            if session % 40 == 0 && turn == 3 && judged.len() < 30 {
                let needle: Vec<String> = (0..3)
                    .map(|_| corpus.vocabulary[2000 + rng.below(15_000)].clone())
                    .collect();
                user = format!("{user} {}", needle.join(" "));
                judged.push(Judged {
                    query: needle.join(" "),
                    relevant: format!("{session_id}:{order}"),
                });
            }
            line(
                &mut file,
                &mut clock,
                "item",
                json!({"turn_id": turn_id, "item": {"type": "userMessage", "id": "u", "content": [{"type": "text", "text": user}]}}),
            );
            order += 1;
            line(
                &mut file,
                &mut clock,
                "item",
                json!({"turn_id": turn_id, "item": {"type": "reasoning", "id": "r", "summary": [corpus.sentence(rng, 10, 20)], "content": []}}),
            );
            order += 1;
            let command = COMMANDS[rng.below(COMMANDS.len())];
            let output: Vec<String> = (0..1 + rng.below(6))
                .map(|index| {
                    format!(
                        "src/{}.rs:{}: {}",
                        corpus.vocabulary[rng.zipf(2000)],
                        10 + index,
                        corpus.sentence(rng, 6, 1)
                    )
                })
                .collect();
            line(
                &mut file,
                &mut clock,
                "response_item",
                json!({"turn_id": turn_id, "item": {"type": "function_call", "call_id": "c", "name": "exec_command", "arguments": json!({"cmd": command}).to_string()}}),
            );
            order += 1;
            line(
                &mut file,
                &mut clock,
                "item",
                json!({"turn_id": turn_id, "item": {"type": "commandExecution", "id": "c", "command": format!("/bin/bash -c '{command}'"), "cwd": "/p", "status": "completed", "commandActions": [], "aggregatedOutput": output.join("\n"), "exitCode": 0}}),
            );
            order += 1;
            line(
                &mut file,
                &mut clock,
                "item",
                json!({"turn_id": turn_id, "item": {"type": "agentMessage", "id": "a", "text": corpus.sentence(rng, 20, 40)}}),
            );
            order += 1;
            line(
                &mut file,
                &mut clock,
                "token_usage",
                json!({"turn_id": turn_id, "usage": {"total": {"totalTokens": 1000 * (turn + 1)}}}),
            );
            line(
                &mut file,
                &mut clock,
                "turn_completed",
                json!({"turn_id": turn_id, "status": "completed", "error": null}),
            );
            written += 5;
        }
        let _ = file.flush();
    }
    judged
}

/// CPU time (user + system) this process has used so far, from `/proc/self/stat` (0 when
/// unavailable). Printed next to wall times: on a loaded machine it is the steadier figure.
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|index| fields.get(*index)?.parse::<u64>().ok())
        .sum();
    // The kernel's USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

/// This thread's time on a CPU and time waiting in the run queue so far, from
/// `/proc/thread-self/schedstat` (zero when unavailable). Wall time minus both is time spent
/// blocked (disk, locks, the network).
fn thread_schedule() -> (Duration, Duration) {
    let Ok(text) = std::fs::read_to_string("/proc/thread-self/schedstat") else {
        return (Duration::ZERO, Duration::ZERO);
    };
    let mut fields = text
        .split_whitespace()
        .map(|field| field.parse::<u64>().unwrap_or(0));
    let on_cpu = fields.next().unwrap_or(0);
    let waiting = fields.next().unwrap_or(0);
    (Duration::from_nanos(on_cpu), Duration::from_nanos(waiting))
}

/// The 1-, 5- and 15-minute load averages, as `uptime` prints them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// One timed call: wall time, this thread's CPU time and its run-queue wait.
#[derive(Clone, Copy, Default)]
struct Sample {
    wall: Duration,
    cpu: Duration,
    queued: Duration,
}

/// Times `call` on this thread.
fn timed<T>(call: impl FnOnce() -> T) -> (T, Sample) {
    let (cpu, queued) = thread_schedule();
    let started = Instant::now();
    let value = call();
    let wall = started.elapsed();
    let (cpu_after, queued_after) = thread_schedule();
    (
        value,
        Sample {
            wall,
            cpu: cpu_after.saturating_sub(cpu),
            queued: queued_after.saturating_sub(queued),
        },
    )
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Where the slowest 5% of `samples` spent their time: on a CPU, waiting for one, or blocked.
fn tail_breakdown(samples: &[(Sample, String)]) -> String {
    let mut sorted: Vec<&(Sample, String)> = samples.iter().collect();
    sorted.sort_by_key(|(sample, _)| std::cmp::Reverse(sample.wall));
    let tail = &sorted[..samples.len().div_ceil(20).min(sorted.len())];
    let count = tail.len().max(1) as f64;
    let mean = |part: fn(&Sample) -> Duration| {
        tail.iter()
            .map(|(sample, _)| millis(part(sample)))
            .sum::<f64>()
            / count
    };
    let wall = mean(|sample| sample.wall);
    let cpu = mean(|sample| sample.cpu);
    let queued = mean(|sample| sample.queued);
    let slowest = tail
        .iter()
        .take(3)
        .map(|(sample, query)| {
            format!(
                "{:.1} ms wall / {:.1} ms CPU / {:.1} ms queued for {query:?}",
                millis(sample.wall),
                millis(sample.cpu),
                millis(sample.queued)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "slowest 5%: mean {wall:.1} ms wall = {cpu:.1} ms on CPU + {queued:.1} ms waiting for a CPU + {:.1} ms blocked; slowest: {slowest}",
        (wall - cpu - queued).max(0.0)
    )
}

/// Runs one statement on a ClickHouse server (the bench's own setup and size queries).
fn clickhouse_sql(url: &str, sql: &str) -> Result<String, String> {
    let response = reqwest::blocking::Client::new()
        .post(url)
        .body(sql.to_string())
        .timeout(Duration::from_secs(600))
        .send()
        .map_err(|error| format!("{url}: {error}"))?;
    let status = response.status();
    let text = response.text().map_err(|error| error.to_string())?;
    if !status.is_success() {
        return Err(format!("{sql}: HTTP {}: {}", status.as_u16(), text.trim()));
    }
    Ok(text)
}

fn percentile(samples: &mut [Duration], p: f64) -> f64 {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples
        .get(index)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

fn search_args(query: &str) -> SearchArgs {
    SearchArgs {
        query: query.to_string(),
        limit: Some(10),
        min_score: None,
        min_should_match: None,
        session_id: None,
        include_tool_events: None,
        exclude_codex_mcp: None,
        verbosity: Verbosity::Full,
    }
}

fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    };
    entries
        .flatten()
        .map(|entry| {
            let path = entry.path();
            if path.is_dir() {
                dir_size(&path)
            } else {
                entry.metadata().map(|m| m.len()).unwrap_or(0)
            }
        })
        .sum()
}

fn run(
    name: &str,
    config: HistoryConfig,
    sessions: &Path,
    events: usize,
    judged: &[Judged],
    corpus: &Corpus,
    incremental_only: bool,
) -> Result<(), String> {
    println!("[{name}] load average before ingest: {}", load_average());
    let service = HistoryService::connect(config.clone()).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let cpu = cpu_time();
    let report = service.ingest().map_err(|e| e.to_string())?;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = (cpu_time() - cpu).as_secs_f64();
    println!(
        "[{name}] ingest: {} events from {} files in {elapsed:.1} s = {:.0} events/s ({cpu:.1} s of this process's CPU = {:.0} events per CPU second)",
        report.events,
        report.files_read,
        report.events as f64 / elapsed,
        report.events as f64 / cpu.max(0.001)
    );
    if config.backend == BackendKind::Embedded {
        let size = dir_size(config.index_path.parent().unwrap_or(Path::new(".")));
        let main = std::fs::metadata(&config.index_path).map_or(0, |m| m.len());
        let per_million = |bytes: u64| bytes as f64 / 1048576.0 / (report.events as f64 / 1e6);
        println!(
            "[{name}] index size: {:.0} MiB with the WAL, {:.0} MiB per million events ({:.0} MiB per million in the database file)",
            size as f64 / 1048576.0,
            per_million(size),
            per_million(main)
        );
    }
    if config.backend == BackendKind::ClickHouse {
        let database = &config.clickhouse.database;
        let size = clickhouse_sql(
            &config.clickhouse.url,
            &format!(
                "SELECT table, sum(bytes_on_disk), sum(rows) FROM system.parts WHERE active AND database = '{database}' GROUP BY table ORDER BY table FORMAT TSV"
            ),
        )?;
        let mut total = 0u64;
        let mut tables = Vec::new();
        for row in size.lines() {
            let fields: Vec<&str> = row.split('\t').collect();
            if let [table, bytes, _rows] = fields.as_slice() {
                let bytes: u64 = bytes.parse().unwrap_or(0);
                total += bytes;
                tables.push(format!("{table} {:.0} MiB", bytes as f64 / 1048576.0));
            }
        }
        println!(
            "[{name}] size on disk: {:.0} MiB, {:.0} MiB per million events ({})",
            total as f64 / 1048576.0,
            total as f64 / 1048576.0 / (report.events as f64 / 1e6),
            tables.join(", ")
        );
    }
    let mut rng = Rng(7);
    let groups: &[usize] = if incremental_only { &[] } else { &[1, 3, 8] };
    for &terms in groups {
        let mut samples = Vec::new();
        let mut detailed = Vec::new();
        let before = service.counters();
        let cpu = cpu_time();
        for _ in 0..200 {
            let query: Vec<&str> = (0..terms)
                .map(|_| corpus.vocabulary[rng.zipf(corpus.vocabulary.len())].as_str())
                .collect();
            let query = query.join(" ");
            let (result, sample) = timed(|| service.search(&search_args(&query), LOCAL_OWNER));
            result.map_err(|e| e.to_string())?;
            samples.push(sample.wall);
            detailed.push((sample, query));
        }
        let cpu = (cpu_time() - cpu).as_secs_f64() * 1000.0 / samples.len() as f64;
        println!(
            "[{name}] search {terms}-term: p50 {:.2} ms, p99 {:.2} ms (mean CPU of this process {cpu:.2} ms per query; load {})",
            percentile(&mut samples, 0.5),
            percentile(&mut samples, 0.99),
            load_average()
        );
        println!("[{name}]   {}", tail_breakdown(&detailed));
        let after = service.counters();
        println!(
            "[{name}]   per query: {}",
            per_query(&before, &after, samples.len())
        );
    }
    let mut samples = Vec::new();
    for _ in 0..if incremental_only { 0 } else { 200 } {
        let session = 1 + rng.below(events / 50);
        let uid = format!("bench-{session:07}:{}", rng.below(50));
        let t = Instant::now();
        service
            .open(
                &OpenArgs {
                    event_uid: uid,
                    before: Some(3),
                    after: Some(3),
                    verbosity: Verbosity::Full,
                },
                LOCAL_OWNER,
            )
            .map_err(|e| e.to_string())?;
        samples.push(t.elapsed());
    }
    if !samples.is_empty() {
        println!(
            "[{name}] open: p50 {:.2} ms, p99 {:.2} ms (load {})",
            percentile(&mut samples, 0.5),
            percentile(&mut samples, 0.99),
            load_average()
        );
    }
    // Incremental: one new turn appended to one rollout, ingested by this service (its term
    // ids are known), then another by a fresh service (new connections, nothing cached: the
    // after-turn ingest of a server that just started).
    let target = sessions.join("2026/02/02/rollout-bench-0000001.jsonl");
    let append_turn = |rng: &mut Rng, turn: &str| -> Result<(), String> {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&target)
            .map_err(|e| e.to_string())?;
        let mut clock = 1_800_000_000_000i64;
        line(
            &mut file,
            &mut clock,
            "turn_started",
            json!({"turn_id": turn}),
        );
        line(
            &mut file,
            &mut clock,
            "item",
            json!({"turn_id": turn, "item": {"type": "userMessage", "id": "u", "content": [{"type": "text", "text": corpus.sentence(rng, 20, 1)}]}}),
        );
        line(
            &mut file,
            &mut clock,
            "item",
            json!({"turn_id": turn, "item": {"type": "agentMessage", "id": "a", "text": corpus.sentence(rng, 40, 1)}}),
        );
        Ok(())
    };
    append_turn(&mut rng, "extra")?;
    let t = Instant::now();
    let one = service.ingest_file(&target).map_err(|e| e.to_string())?;
    println!(
        "[{name}] incremental ingest of one new turn ({} events, one file): {:.2} ms",
        one.events,
        t.elapsed().as_secs_f64() * 1000.0
    );
    let (mut walls, mut cpus, mut opens) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..9 {
        let fresh = HistoryService::connect(config.clone()).map_err(|e| e.to_string())?;
        let t = Instant::now();
        fresh.backend().map_err(|e| e.to_string())?;
        opens.push(t.elapsed());
        append_turn(&mut rng, &format!("extra-fresh-{round}"))?;
        let (one, sample) = timed(|| fresh.ingest_file(&target));
        one.map_err(|e| e.to_string())?;
        walls.push(sample.wall);
        cpus.push(sample.cpu);
    }
    println!(
        "[{name}] incremental ingest of one new turn by a fresh service (new connections, 9 rounds): p50 {:.2} ms wall, {:.2} ms on CPU (after p50 {:.2} ms to open the backend)",
        percentile(&mut walls, 0.5),
        percentile(&mut cpus, 0.5),
        percentile(&mut opens, 0.5)
    );
    let t = Instant::now();
    let scan = service.ingest().map_err(|e| e.to_string())?;
    println!(
        "[{name}] no-op full rescan of {} files: {:.0} ms",
        scan.files_seen,
        t.elapsed().as_secs_f64() * 1000.0
    );
    // Quality.
    let judged = if incremental_only { &[] } else { judged };
    let (mut found, mut reciprocal) = (0usize, 0.0f64);
    for case in judged {
        let payload = service
            .search(&search_args(&case.query), LOCAL_OWNER)
            .map_err(|e| e.to_string())?;
        if let Some(position) = payload
            .hits
            .iter()
            .position(|hit| hit.event_uid == case.relevant)
        {
            found += 1;
            reciprocal += 1.0 / (position as f64 + 1.0);
        }
    }
    if !judged.is_empty() {
        println!(
            "[{name}] quality over {} judged queries: recall@10 {:.3}, MRR {:.3}",
            judged.len(),
            found as f64 / judged.len().max(1) as f64,
            reciprocal / judged.len().max(1) as f64
        );
    }
    // Every query log queued so far is written before the counters are read.
    service.close_telemetry();
    let counters: Vec<String> = service
        .counters()
        .into_iter()
        .map(|(name, value)| format!("{name} {value}"))
        .collect();
    println!("[{name}] counters since open: {}", counters.join(", "));
    Ok(())
}

/// The counters that moved between `before` and `after`, per query (`count` queries).
fn per_query(before: &[(&str, u64)], after: &[(&str, u64)], count: usize) -> String {
    after
        .iter()
        .filter(|(name, _)| !name.starts_with("telemetry"))
        .map(|(name, value)| {
            let earlier = before
                .iter()
                .find(|(other, _)| other == name)
                .map_or(0, |(_, value)| *value);
            format!(
                "{name} {:.1}",
                value.saturating_sub(earlier) as f64 / count.max(1) as f64
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut events = 1_000_000usize;
    let mut dir: Option<PathBuf> = None;
    let mut clickhouse: Option<String> = None;
    let mut embedded = true;
    let mut reuse = false;
    let mut incremental_only = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--events" => events = args.next().and_then(|v| v.parse().ok()).unwrap_or(events),
            "--dir" => dir = args.next().map(PathBuf::from),
            "--clickhouse" => clickhouse = args.next(),
            "--no-embedded" => embedded = false,
            // Search an index left by an earlier run (same --dir and --events): no generation,
            // the ingest is a no-op rescan, no quality figures.
            "--reuse" => reuse = true,
            // Only the ingest figures (with --reuse: only the incremental ones).
            "--incremental-only" => incremental_only = true,
            _ => println!("ignoring unknown argument {arg}"),
        }
    }
    let home = dir.unwrap_or_else(|| std::env::temp_dir().join("tandem-history-bench"));
    let sessions = home.join("sessions");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let corpus = Corpus::new(&mut rng);
    let judged = if reuse {
        println!("reusing the index under {}", home.display());
        Vec::new()
    } else {
        let _ = std::fs::remove_dir_all(&home);
        let t = Instant::now();
        let judged = generate(&sessions, events, &corpus, &mut rng);
        println!(
            "generated {events} events in {:.1} s under {} ({:.0} MiB of rollouts)",
            t.elapsed().as_secs_f64(),
            sessions.display(),
            dir_size(&sessions) as f64 / 1048576.0
        );
        judged
    };
    let mut config = HistoryConfig::defaults(&home);
    config.sources = vec![sessions.clone()];
    if embedded
        && let Err(error) = run(
            "embedded",
            config.clone(),
            &sessions,
            events,
            &judged,
            &corpus,
            incremental_only,
        )
    {
        println!("[embedded] failed: {error}");
    }
    if let Some(url) = clickhouse {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let corpus = Corpus::new(&mut rng);
        config.backend = BackendKind::ClickHouse;
        config.clickhouse.url = url;
        config.clickhouse.database = "tandem_history_bench".to_string();
        let _ = rustls::crypto::ring::default_provider().install_default();
        let judged = if reuse {
            Vec::new()
        } else {
            // The incremental step above appended a turn; regenerate for an identical corpus.
            let _ = std::fs::remove_dir_all(&sessions);
            let judged = generate(&sessions, events, &corpus, &mut rng);
            // A fresh database: the corpus is regenerated, so earlier rows would be stale.
            if let Err(error) = clickhouse_sql(
                &config.clickhouse.url,
                "DROP DATABASE IF EXISTS tandem_history_bench",
            ) {
                println!("[clickhouse] failed: {error}");
                return;
            }
            judged
        };
        if let Err(error) = run(
            "clickhouse",
            config,
            &sessions,
            events,
            &judged,
            &corpus,
            incremental_only,
        ) {
            println!("[clickhouse] failed: {error}");
        }
    }
}
