//! A small mutation fuzzer that runs on the stable toolchain (libFuzzer needs nightly
//! sanitizer flags). The server's fuzz targets (`tandem fuzz <target>`, built with the
//! `fuzzing` feature of `app-server`) hand it a function from input bytes to an outcome
//! signature; it feeds that function mutations of a seed corpus and reports how many inputs
//! ran, how fast, and the first input that panicked.
//!
//! Without coverage instrumentation the feedback is the target's own outcome signature (which
//! error, which event kinds, how many): an input whose signature has not been seen before joins
//! the corpus, so mutations climb from "not JSON" to "decodes but fails a gate" to "decodes".

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod mutate;
mod rng;

use std::collections::HashSet;
use std::fs;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use crate::mutate::Mutator;
pub use crate::rng::Rng;

/// How long and from what a run starts.
#[derive(Debug, Clone)]
pub struct Options {
    /// Stop after this many inputs (seeds included).
    pub max_inputs: u64,
    /// Stop after this much time.
    pub max_time: Duration,
    /// Directory of seed inputs, one file each.
    pub corpus: PathBuf,
    /// Where a panicking input is written.
    pub crashes: PathBuf,
    /// PRNG seed; runs with the same seed and corpus mutate identically.
    pub seed: u64,
    /// Longest input handed to the target.
    pub max_len: usize,
    /// Tokens spliced into inputs (keywords, delimiters, extreme numbers).
    pub dictionary: Vec<Vec<u8>>,
}

/// What a finished run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Inputs run, seeds included.
    pub inputs: u64,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Inputs in the corpus at the end (seeds plus inputs with a new outcome).
    pub corpus_size: usize,
    /// Distinct outcome signatures seen.
    pub outcomes: usize,
    /// The first panicking input, saved under [`Options::crashes`].
    pub crash: Option<Crash>,
}

/// A panicking input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// Where the input was written.
    pub path: PathBuf,
    /// The panic message.
    pub message: String,
}

impl Report {
    /// Inputs per second.
    pub fn throughput(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(f64::EPSILON)
    }
}

/// Largest corpus kept; beyond it new outcomes are still counted but not kept.
const MAX_CORPUS: usize = 4096;

/// Runs `target` over the seeds, then over mutations, until a limit is reached or an input
/// panics. `target` returns a signature of what the input did.
pub fn run(options: &Options, mut target: impl FnMut(&[u8]) -> u64) -> io::Result<Report> {
    let mut corpus = load_corpus(&options.corpus)?;
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let mut rng = Rng::new(options.seed);
    let mutator = Mutator::new(options.dictionary.clone(), options.max_len);
    let mut outcomes = HashSet::new();
    let start = Instant::now();
    let mut inputs = 0u64;
    let mut input = Vec::with_capacity(options.max_len);

    // Panics are caught and reported once; the default hook would print each one.
    let previous_hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result: io::Result<Option<Crash>> = (|| {
        let seeds = corpus.len();
        loop {
            if inputs >= options.max_inputs {
                break;
            }
            // The clock is read every 1024 inputs: reading it costs as much as a small input.
            if inputs.is_multiple_of(1024) && start.elapsed() >= options.max_time {
                break;
            }
            input.clear();
            if (inputs as usize) < seeds {
                input.extend_from_slice(&corpus[inputs as usize]);
            } else {
                mutator.mutate(&mut rng, &corpus, &mut input);
            }
            inputs += 1;
            match panic::catch_unwind(AssertUnwindSafe(|| target(&input))) {
                Ok(signature) => {
                    if outcomes.insert(signature) && corpus.len() < MAX_CORPUS {
                        corpus.push(input.clone());
                    }
                }
                Err(payload) => {
                    let message = panic_message(payload.as_ref());
                    let path = save_crash(&options.crashes, &input)?;
                    return Ok(Some(Crash { path, message }));
                }
            }
        }
        Ok(None)
    })();
    panic::set_hook(previous_hook);
    let crash = result?;
    Ok(Report {
        inputs,
        elapsed: start.elapsed(),
        corpus_size: corpus.len(),
        outcomes: outcomes.len(),
        crash,
    })
}

/// A cheap 64-bit hash (FNV-1a) for building outcome signatures.
pub fn signature(parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for part in parts {
        for byte in part.iter().chain(&[0xff]) {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

fn load_corpus(dir: &Path) -> io::Result<Vec<Vec<u8>>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", dir.display())))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<io::Result<_>>()?;
    paths.sort();
    paths
        .into_iter()
        .filter(|path| path.is_file())
        .map(fs::read)
        .collect()
}

fn save_crash(dir: &Path, input: &[u8]) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join(format!("crash-{:016x}", signature(&[input])));
    fs::write(&path, input)?;
    Ok(path)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(corpus: &Path, crashes: &Path, max_inputs: u64) -> Options {
        Options {
            max_inputs,
            max_time: Duration::from_secs(60),
            corpus: corpus.to_path_buf(),
            crashes: crashes.to_path_buf(),
            seed: 7,
            max_len: 64,
            dictionary: vec![b"needle".to_vec()],
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "tandem-fuzz-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn runs_the_seeds_then_exactly_the_requested_number_of_inputs() {
        let dir = temp_dir("count");
        fs::write(dir.join("a"), b"seed-a").unwrap();
        fs::write(dir.join("b"), b"seed-b").unwrap();
        let mut seen = Vec::new();
        let report = run(&options(&dir, &dir.join("crashes"), 1000), |input| {
            seen.push(input.to_vec());
            input.len() as u64
        })
        .unwrap();
        assert_eq!(report.inputs, 1000);
        assert_eq!(seen.len(), 1000);
        assert_eq!(&seen[..2], &[b"seed-a".to_vec(), b"seed-b".to_vec()]);
        assert!(seen.iter().all(|input| input.len() <= 64));
        assert!(report.crash.is_none());
        assert_eq!(
            report.outcomes,
            seen.iter().map(Vec::len).collect::<HashSet<_>>().len()
        );
    }

    #[test]
    fn a_panicking_input_is_saved_and_reported() {
        let dir = temp_dir("crash");
        fs::write(dir.join("seed"), b"hay hay hay").unwrap();
        let report = run(&options(&dir, &dir.join("crashes"), 10_000_000), |input| {
            assert!(
                !input.windows(6).any(|window| window == b"needle"),
                "found the needle"
            );
            0
        })
        .unwrap();
        let crash = report.crash.expect("the dictionary token is spliced in");
        assert_eq!(crash.message, "found the needle");
        let saved = fs::read(&crash.path).unwrap();
        assert!(saved.windows(6).any(|window| window == b"needle"));
        assert!(report.inputs < 10_000_000);
    }

    #[test]
    fn the_same_seed_mutates_identically() {
        let dir = temp_dir("determinism");
        fs::write(dir.join("seed"), b"{\"id\":1}").unwrap();
        let collect = || {
            let mut seen = Vec::new();
            run(&options(&dir, &dir.join("crashes"), 500), |input| {
                seen.push(input.to_vec());
                signature(&[input])
            })
            .unwrap();
            seen
        };
        assert_eq!(collect(), collect());
    }
}
