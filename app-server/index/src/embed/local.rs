//! The local provider: all-MiniLM-L6-v2 (BERT, 6 layers, 384 dimensions) run in-process from a
//! model directory holding `config.json`, `tokenizer.json` and `model.safetensors`, by this
//! crate's forward pass (`bert.rs`; int8 linear layers by default, `int8.rs`) or, for tests and
//! benchmarks, by candle's BERT; mean pooling over each text's word pieces, as
//! sentence-transformers does.
//! The model is loaded once per [`LoadedModels`] (the server's, shared by all its callers) and
//! directory, on a blocking thread.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{EmbedFuture, EmbeddingProvider, NotReady};

/// Files a model directory must hold.
pub const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Word pieces per text; longer chunks are truncated (the model was trained at 256).
const MAX_TOKENS: usize = 256;

/// Texts per forward pass of candle's BERT. With at most [`MAX_TOKENS`] word pieces each, the largest buffer of
/// a pass (the attention scores, 8 × 12 heads × 256 × 256 f32) is 25 MB, under glibc's largest
/// heap allocation once [`keep_buffers`] has raised it, so that passes reuse heap memory.
static PASS_TEXTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(8);

static KEEP_BUFFERS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Which forward pass the local provider runs (`local_precision` in `[query_project_index]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// `"int8"`, the default: this crate's forward pass (`bert.rs`) with int8 linear layers where
    /// the CPU has AVX-512 VNNI, f32 elsewhere.
    Int8,
    /// `"f32"`: this crate's forward pass in f32 throughout.
    F32,
    /// candle's BERT (`candle-transformers`), padded passes of [`PASS_TEXTS`] texts: the earlier
    /// implementation, kept as the reference of tests and benchmarks (no config value).
    Candle,
}

impl Implementation {
    /// Parses the config value (`int8` or `f32`).
    pub fn parse(value: &str) -> Result<Self, String> {
        match value {
            "int8" => Ok(Self::Int8),
            "f32" => Ok(Self::F32),
            other => Err(format!("`{other}` is neither \"int8\" nor \"f32\"")),
        }
    }
}

/// Whether candle's forward passes reuse their buffers (the default): passes of 8 texts, and
/// [`keep_buffers`] when a model loads. Off gives the earlier behaviour (passes of 16 texts, the
/// allocator's defaults) for a benchmark to compare; once on, the allocator setting stays.
pub fn set_buffer_reuse(reuse: bool) {
    use std::sync::atomic::Ordering;
    KEEP_BUFFERS.store(reuse, Ordering::Relaxed);
    PASS_TEXTS.store(if reuse { 8 } else { 16 }, Ordering::Relaxed);
    if reuse {
        keep_buffers();
    }
}

/// Makes glibc serve allocations of up to 32 MB from the heap and keep up to 512 MB of freed
/// heap instead of mapping and unmapping every large buffer: a forward pass allocates and frees
/// tens of megabytes per layer, and with the default thresholds each of them is an `mmap` and a
/// `munmap` with page faults (a third of the embedding time was kernel time). The process then
/// keeps that memory for its next batch. Other C libraries: nothing to do.
pub fn keep_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only changes allocator parameters; it is safe to call at any time.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
            }
        });
    }
}

/// The local provider for one model directory.
pub struct LocalProvider {
    model: String,
    directory: PathBuf,
    implementation: Implementation,
    models: LoadedModels,
}

/// The local models loaded so far, by directory. Clones share them: a server keeps one (in its
/// [`IndexState`](crate::refresh::IndexState)), so a model is loaded once however many
/// sessions and engines embed with it.
#[derive(Clone, Default)]
pub struct LoadedModels {
    models: Arc<Mutex<HashMap<PathBuf, Arc<model::LoadedModel>>>>,
}

impl LoadedModels {
    /// Loads (once) and returns the model of `directory`. Blocking.
    pub fn get(&self, directory: &Path) -> Result<Arc<model::LoadedModel>, String> {
        // Held while loading, so that two callers never load the same model twice at once.
        let mut models = self
            .models
            .lock()
            .map_err(|_| "the model cache is poisoned".to_string())?;
        if let Some(model) = models.get(directory) {
            return Ok(model.clone());
        }
        if KEEP_BUFFERS.load(std::sync::atomic::Ordering::Relaxed) {
            keep_buffers();
        }
        let model = Arc::new(model::LoadedModel::load(directory)?);
        models.insert(directory.to_path_buf(), model.clone());
        Ok(model)
    }
}

/// The provider, or `model_not_installed` naming the missing file.
pub fn provider(
    model: &str,
    directory: &Path,
    implementation: Implementation,
    models: &LoadedModels,
) -> Result<Arc<dyn EmbeddingProvider>, NotReady> {
    if !cfg!(feature = "local-embeddings") {
        return Err(NotReady {
            reason: "model_not_installed",
            detail:
                "this build of tandem has no local embedding support (feature `local-embeddings`)"
                    .into(),
        });
    }
    check_files(directory).map_err(|detail| NotReady {
        reason: "model_not_installed",
        detail,
    })?;
    Ok(Arc::new(LocalProvider {
        model: model.to_string(),
        directory: directory.to_path_buf(),
        implementation,
        models: models.clone(),
    }))
}

/// Checks that `directory` holds the model files; the error names what is missing and how to
/// install it.
pub fn check_files(directory: &Path) -> Result<(), String> {
    for file in MODEL_FILES {
        let path = directory.join(file);
        match std::fs::metadata(&path) {
            Ok(metadata) if metadata.is_file() && metadata.len() > 0 => {}
            _ => {
                return Err(format!(
                    "the local embedding model is not installed: {} is missing (run `tandem index install-model`)",
                    path.display()
                ));
            }
        }
    }
    Ok(())
}

impl EmbeddingProvider for LocalProvider {
    fn model(&self) -> &str {
        &self.model
    }

    fn batch_size(&self) -> usize {
        32
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
        let directory = self.directory.clone();
        let models = self.models.clone();
        let texts = texts.to_vec();
        let implementation = self.implementation;
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let model = models.get(&directory)?;
                model.embed(&texts, implementation)
            })
            .await
            .map_err(|error| format!("the embedding task failed: {error}"))?
        })
    }
}

#[cfg(feature = "local-embeddings")]
mod model {
    use std::path::{Path, PathBuf};
    use std::sync::OnceLock;
    use std::sync::atomic::Ordering;

    use candle_core::{DType, Device, Tensor};
    use candle_nn::VarBuilder;
    use candle_transformers::models::bert::{BertModel, Config};

    use super::{Implementation, MAX_TOKENS, PASS_TEXTS};
    use crate::embed::bert::{Bert, Precision, Shape};
    use crate::embed::wordpiece::WordPiece;

    /// A loaded BERT model with its tokenizer.
    pub struct LoadedModel {
        bert: Bert,
        tokenizer: WordPiece,
        directory: PathBuf,
        /// candle's BERT over the same weights, loaded on first use: only benchmarks and tests
        /// ask for it ([`Implementation::Candle`]).
        candle: OnceLock<Result<BertModel, String>>,
    }

    impl LoadedModel {
        /// Loads and verifies the model files; errors say which file is unusable.
        pub fn load(directory: &Path) -> Result<Self, String> {
            let (config, tokenizer, weights) = read_files(directory)?;
            let corrupt = |error: String| {
                format!(
                    "{} is corrupt: {error}",
                    directory.join("model.safetensors").display()
                )
            };
            let tensors = crate::embed::bert::read_tensors(&weights)
                .map_err(|error| corrupt(error.to_string()))?;
            let shape = Shape {
                hidden: config.hidden_size,
                heads: config.num_attention_heads,
                intermediate: config.intermediate_size,
                layers: config.num_hidden_layers,
                positions: config.max_position_embeddings,
                vocabulary: config.vocab_size,
                epsilon: config.layer_norm_eps as f32,
            };
            if !matches!(
                config.hidden_act,
                candle_transformers::models::bert::HiddenAct::Gelu
            ) {
                return Err(format!(
                    "{}: only the `gelu` activation is supported",
                    directory.join("config.json").display()
                ));
            }
            let bert = Bert::load(&tensors, shape, true).map_err(corrupt)?;
            Ok(Self {
                bert,
                tokenizer,
                directory: directory.to_path_buf(),
                candle: OnceLock::new(),
            })
        }

        /// Mean-pooled embeddings of `texts` (not normalised).
        pub fn embed(
            &self,
            texts: &[String],
            implementation: Implementation,
        ) -> Result<Vec<Vec<f32>>, String> {
            let encoded: Vec<Vec<u32>> = texts
                .iter()
                .map(|text| self.tokenizer.encode(text, MAX_TOKENS))
                .collect();
            let threads = std::thread::available_parallelism()
                .map(usize::from)
                .unwrap_or(1)
                .min(8);
            match implementation {
                Implementation::Int8 => self.bert.embed(&encoded, Precision::Int8, threads),
                Implementation::F32 => self.bert.embed(&encoded, Precision::F32, threads),
                Implementation::Candle => self.embed_candle(&encoded),
            }
        }

        /// Whether [`Implementation::Int8`] runs in int8 on this CPU (else it runs in f32).
        pub fn runs_int8(&self) -> bool {
            self.bert.is_int8()
        }

        fn embed_candle(&self, encoded: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, String> {
            let bert = self
                .candle
                .get_or_init(|| {
                    let (config, _, weights) = read_files(&self.directory)?;
                    let builder =
                        VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
                            .map_err(|error| error.to_string())?;
                    BertModel::load(builder, &config).map_err(|error| error.to_string())
                })
                .as_ref()
                .map_err(|error| format!("the local embedding model failed: {error}"))?;
            // Sort by length so that each forward pass pads little.
            let mut order: Vec<usize> = (0..encoded.len()).collect();
            order.sort_by_key(|index| encoded[*index].len());
            let mut out = vec![Vec::new(); encoded.len()];
            for group in order.chunks(PASS_TEXTS.load(Ordering::Relaxed).max(1)) {
                let width = group
                    .iter()
                    .map(|index| encoded[*index].len())
                    .max()
                    .unwrap_or(0);
                let mut ids = Vec::with_capacity(group.len() * width);
                let mut mask = Vec::with_capacity(group.len() * width);
                for index in group {
                    let tokens = &encoded[*index];
                    ids.extend_from_slice(tokens);
                    ids.extend(std::iter::repeat_n(0u32, width - tokens.len()));
                    mask.extend(std::iter::repeat_n(1u32, tokens.len()));
                    mask.extend(std::iter::repeat_n(0u32, width - tokens.len()));
                }
                let vectors = forward_candle(bert, ids, mask, group.len(), width)
                    .map_err(|error| format!("the local embedding model failed: {error}"))?;
                for (index, vector) in group.iter().zip(vectors) {
                    out[*index] = vector;
                }
            }
            Ok(out)
        }
    }

    /// The model's config, tokenizer and weights, read and parsed.
    fn read_files(directory: &Path) -> Result<(Config, WordPiece, Vec<u8>), String> {
        super::check_files(directory)?;
        let read = |name: &str| {
            std::fs::read(directory.join(name))
                .map_err(|error| format!("cannot read {}: {error}", directory.join(name).display()))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?).map_err(|error| {
            format!(
                "{} is corrupt: {error}",
                directory.join("config.json").display()
            )
        })?;
        let tokenizer_text = String::from_utf8(read("tokenizer.json")?).map_err(|_| {
            format!(
                "{} is not UTF-8",
                directory.join("tokenizer.json").display()
            )
        })?;
        let tokenizer = WordPiece::from_json(&tokenizer_text)
            .map_err(|error| format!("{} is corrupt: {error}", directory.display()))?;
        Ok((config, tokenizer, read("model.safetensors")?))
    }

    fn forward_candle(
        bert: &BertModel,
        ids: Vec<u32>,
        mask: Vec<u32>,
        batch: usize,
        width: usize,
    ) -> candle_core::Result<Vec<Vec<f32>>> {
        let device = Device::Cpu;
        let input_ids = Tensor::from_vec(ids, (batch, width), &device)?;
        let attention_mask = Tensor::from_vec(mask, (batch, width), &device)?;
        let token_type_ids = input_ids.zeros_like()?;
        let output = bert.forward(&input_ids, &token_type_ids, Some(&attention_mask))?;
        let mask = attention_mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = output.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?;
        summed.broadcast_div(&counts)?.to_vec2::<f32>()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The installed model: `$TANDEM_TEST_MODEL_DIR`, or `~/.tandem/models/all-MiniLM-L6-v2`
        /// where `.ci/run` puts it with `tandem index install-model`.
        fn installed_model() -> PathBuf {
            std::env::var_os("TANDEM_TEST_MODEL_DIR")
                .map(PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .map(|home| PathBuf::from(home).join(".tandem/models/all-MiniLM-L6-v2"))
                })
                .unwrap_or_default()
        }

        fn cosine(left: &[f32], right: &[f32]) -> f32 {
            let dot: f32 = left.iter().zip(right).map(|(a, b)| a * b).sum();
            let norm = |v: &[f32]| v.iter().map(|a| a * a).sum::<f32>().sqrt();
            dot / (norm(left) * norm(right))
        }

        #[test]
        fn the_own_forward_pass_matches_candle_in_f32_and_stays_close_in_int8() {
            let directory = installed_model();
            let model = match LoadedModel::load(&directory) {
                Ok(model) => model,
                Err(error) => panic!(
                    "the local embedding model is missing at {}: {error} (run `tandem index install-model` or set TANDEM_TEST_MODEL_DIR)",
                    directory.display()
                ),
            };
            let texts = [
                "wait a growing amount of time between attempts after a failure",
                "fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {\n    self.inner.poll_ready(cx)\n}",
                "def get_random_string(length, allowed_chars=RANDOM_STRING_CHARS):\n    \"\"\"Return a securely generated random string.\"\"\"\n    return \"\".join(secrets.choice(allowed_chars) for i in range(length))",
                "x",
                "",
                &"a longer text whose word pieces fill more rows of every product ".repeat(6),
            ];
            let encoded: Vec<Vec<u32>> = texts
                .iter()
                .map(|text| model.tokenizer.encode(text, MAX_TOKENS))
                .collect();
            let reference = match model.embed_candle(&encoded) {
                Ok(vectors) => vectors,
                Err(error) => panic!("candle's forward pass failed: {error}"),
            };
            // Two threads over six texts: the split between threads is exercised too.
            let own = model.bert.embed(&encoded, Precision::F32, 2);
            let Ok(own) = own else {
                panic!("the f32 forward pass failed: {own:?}");
            };
            for ((text, left), right) in texts.iter().zip(&reference).zip(&own) {
                let similarity = cosine(left, right);
                assert!(similarity > 0.99999, "f32 {similarity} on {text:?}");
            }
            if !model.runs_int8() {
                return;
            }
            let int8 = model.bert.embed(&encoded, Precision::Int8, 2);
            let Ok(int8) = int8 else {
                panic!("the int8 forward pass failed: {int8:?}");
            };
            for ((text, left), right) in texts.iter().zip(&reference).zip(&int8) {
                let similarity = cosine(left, right);
                // The text of no chunk is empty: `[CLS] [SEP]` alone measured 0.986.
                if !text.is_empty() {
                    assert!(similarity >= 0.99, "int8 {similarity} on {text:?}");
                }
            }
        }
    }
}

#[cfg(not(feature = "local-embeddings"))]
mod model {
    use std::path::Path;

    /// Stand-in when the build has no candle.
    pub struct LoadedModel;

    impl LoadedModel {
        /// Always fails: the build has no local embedding support.
        pub fn load(_directory: &Path) -> Result<Self, String> {
            Err("this build of tandem has no local embedding support".into())
        }

        /// Never called.
        pub fn embed(
            &self,
            _texts: &[String],
            _implementation: super::Implementation,
        ) -> Result<Vec<Vec<f32>>, String> {
            Err("this build of tandem has no local embedding support".into())
        }

        /// Never called.
        pub fn runs_int8(&self) -> bool {
            false
        }
    }
}
