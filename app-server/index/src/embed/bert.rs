//! The forward pass of the local model (a BERT encoder: all-MiniLM-L6-v2, 6 layers, hidden size
//! 384, 12 heads, feed-forward 1536), written for the CPU instead of going through candle's
//! general tensor operations:
//!
//! - no padding: the linear layers run over the word pieces of all texts of a pass stacked, and
//!   attention runs per text at its own length (padded positions would be masked out anyway);
//! - the linear layers are one f32 GEMM each (the `gemm` crate, single-threaded), or the int8
//!   product of `int8.rs` where the CPU has AVX-512 VNNI; query, key and value are one product;
//! - softmax, GELU and layer norm are fused loops that the compiler vectorises (a polynomial
//!   `exp` and `erf` instead of a library call per element);
//! - the texts of a call are split between threads by word pieces, each thread running whole
//!   passes alone, so that no operation waits at a barrier for the other threads.
//!
//! Mean pooling over each text's word pieces, as sentence-transformers does; the caller
//! normalises.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};

use super::int8::{PackedWeights, Scratch};

/// Word pieces per forward pass of one thread, at most: bounds its buffers (the feed-forward's
/// is this × 1536 f32, 12 MB).
const PASS_TOKENS: usize = 2048;

/// How a model computes its linear layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// f32 weights and products.
    F32,
    /// int8 weights (a scale per output) and activations (a scale per word piece), summed in
    /// 32-bit integers; only where [`super::int8::supported`].
    Int8,
}

/// The shape of the model, from its `config.json`.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Width of a word piece's vector.
    pub hidden: usize,
    /// Attention heads (`hidden` a multiple of it).
    pub heads: usize,
    /// Width of the feed-forward layer.
    pub intermediate: usize,
    /// Encoder layers.
    pub layers: usize,
    /// Positions the model has embeddings for.
    pub positions: usize,
    /// Word pieces of the vocabulary.
    pub vocabulary: usize,
    /// The layer norms' epsilon.
    pub epsilon: f32,
}

/// A loaded model.
pub struct Bert {
    shape: Shape,
    words: Vec<f32>,
    positions: Vec<f32>,
    /// The embedding of token type 0 (every word piece of a single text).
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

struct Layer {
    /// Query, key and value stacked: `3 × hidden` outputs.
    attention_input: Linear,
    attention_output: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    output_norm: Norm,
}

struct Linear {
    inputs: usize,
    outputs: usize,
    /// Row-major, `outputs` rows of `inputs` (as stored by PyTorch).
    weights: Vec<f32>,
    packed: Option<PackedWeights>,
    bias: Vec<f32>,
}

/// The buffers of one thread's passes, reused from pass to pass.
#[derive(Default)]
struct Buffers {
    hidden: Vec<f32>,
    stacked: Vec<f32>,
    context: Vec<f32>,
    wide: Vec<f32>,
    scores: Vec<f32>,
    scratch: Scratch,
}

impl Bert {
    /// Builds the model from the tensors of its `model.safetensors` (`bert.` prefixes or not).
    /// `int8` quantizes the linear layers when the CPU can run them ([`super::int8::supported`]);
    /// the f32 weights are kept either way.
    pub fn load(
        tensors: &HashMap<String, Tensor>,
        shape: Shape,
        int8: bool,
    ) -> Result<Self, String> {
        if shape.hidden == 0 || shape.heads == 0 || !shape.hidden.is_multiple_of(shape.heads) {
            return Err(format!(
                "hidden size {} is not a multiple of {} heads",
                shape.hidden, shape.heads
            ));
        }
        let get = |name: &str, dims: &[usize]| -> Result<Vec<f32>, String> {
            let tensor = tensors
                .get(name)
                .or_else(|| tensors.get(&format!("bert.{name}")))
                .ok_or_else(|| format!("the tensor {name} is missing"))?;
            if tensor.dims() != dims {
                return Err(format!(
                    "the tensor {name} has the shape {:?}, expected {dims:?}",
                    tensor.dims()
                ));
            }
            tensor
                .to_dtype(DType::F32)
                .and_then(|tensor| tensor.flatten_all())
                .and_then(|tensor| tensor.to_vec1::<f32>())
                .map_err(|error| format!("the tensor {name}: {error}"))
        };
        let hidden = shape.hidden;
        let norm = |prefix: &str| -> Result<Norm, String> {
            Ok(Norm {
                gamma: get(&format!("{prefix}.weight"), &[hidden])?,
                beta: get(&format!("{prefix}.bias"), &[hidden])?,
            })
        };
        let linear =
            |prefixes: &[String], inputs: usize, outputs: usize| -> Result<Linear, String> {
                let mut weights = Vec::with_capacity(prefixes.len() * outputs * inputs);
                let mut bias = Vec::with_capacity(prefixes.len() * outputs);
                for prefix in prefixes {
                    weights.extend(get(&format!("{prefix}.weight"), &[outputs, inputs])?);
                    bias.extend(get(&format!("{prefix}.bias"), &[outputs])?);
                }
                let outputs = prefixes.len() * outputs;
                let packed = if int8 && super::int8::supported() {
                    PackedWeights::pack(&weights, outputs, inputs)
                } else {
                    None
                };
                Ok(Linear {
                    inputs,
                    outputs,
                    weights,
                    packed,
                    bias,
                })
            };
        let type_rows = get("embeddings.token_type_embeddings.weight", &[2, hidden])
            .or_else(|_| get("embeddings.token_type_embeddings.weight", &[1, hidden]))?;
        let mut layers = Vec::with_capacity(shape.layers);
        for index in 0..shape.layers {
            let prefix = format!("encoder.layer.{index}");
            let attention = format!("{prefix}.attention");
            layers.push(Layer {
                attention_input: linear(
                    &[
                        format!("{attention}.self.query"),
                        format!("{attention}.self.key"),
                        format!("{attention}.self.value"),
                    ],
                    hidden,
                    hidden,
                )?,
                attention_output: linear(&[format!("{attention}.output.dense")], hidden, hidden)?,
                attention_norm: norm(&format!("{attention}.output.LayerNorm"))?,
                up: linear(
                    &[format!("{prefix}.intermediate.dense")],
                    hidden,
                    shape.intermediate,
                )?,
                down: linear(
                    &[format!("{prefix}.output.dense")],
                    shape.intermediate,
                    hidden,
                )?,
                output_norm: norm(&format!("{prefix}.output.LayerNorm"))?,
            });
        }
        Ok(Self {
            shape,
            words: get(
                "embeddings.word_embeddings.weight",
                &[shape.vocabulary, hidden],
            )?,
            positions: get(
                "embeddings.position_embeddings.weight",
                &[shape.positions, hidden],
            )?,
            token_type: type_rows[..hidden].to_vec(),
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
        })
    }

    /// Whether the linear layers run in int8 (it was asked for and the CPU can).
    pub fn is_int8(&self) -> bool {
        self.layers
            .iter()
            .all(|layer| layer.attention_input.packed.is_some())
    }

    /// Mean-pooled embeddings of `texts` (word-piece ids, each at most the model's positions
    /// long; an id outside the vocabulary is an error), in `precision` (int8 only if loaded
    /// with it), on up to `threads` threads.
    pub fn embed(
        &self,
        texts: &[Vec<u32>],
        precision: Precision,
        threads: usize,
    ) -> Result<Vec<Vec<f32>>, String> {
        for text in texts {
            if text.len() > self.shape.positions {
                return Err(format!(
                    "a text of {} word pieces is longer than the model's {} positions",
                    text.len(),
                    self.shape.positions
                ));
            }
            if let Some(id) = text
                .iter()
                .find(|id| **id as usize >= self.shape.vocabulary)
            {
                return Err(format!("the word piece id {id} is outside the vocabulary"));
            }
        }
        // Longest first onto the thread with the fewest word pieces so far.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|index| std::cmp::Reverse(texts[*index].len()));
        let threads = threads.clamp(1, texts.len().max(1));
        let mut groups: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); threads];
        for index in order {
            if let Some(group) = groups.iter_mut().min_by_key(|(tokens, _)| *tokens) {
                group.0 += texts[index].len().max(1);
                group.1.push(index);
            }
        }
        let mut out = vec![Vec::new(); texts.len()];
        let results: Vec<Vec<(usize, Vec<f32>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = groups
                .iter()
                .skip(1)
                .map(|(_, group)| scope.spawn(|| self.embed_group(texts, group, precision)))
                .collect();
            let mut results = vec![self.embed_group(texts, &groups[0].1, precision)];
            for handle in handles {
                match handle.join() {
                    Ok(result) => results.push(result),
                    Err(_) => results.push(Vec::new()),
                }
            }
            results
        });
        for (index, vector) in results.into_iter().flatten() {
            out[index] = vector;
        }
        if out.iter().any(Vec::is_empty) && !texts.is_empty() {
            return Err("an embedding thread failed".into());
        }
        Ok(out)
    }

    /// One thread's texts, in passes of at most [`PASS_TOKENS`] word pieces.
    fn embed_group(
        &self,
        texts: &[Vec<u32>],
        group: &[usize],
        precision: Precision,
    ) -> Vec<(usize, Vec<f32>)> {
        let mut buffers = Buffers::default();
        let mut out = Vec::with_capacity(group.len());
        let mut start = 0;
        while start < group.len() {
            let mut end = start + 1;
            let mut tokens = texts[group[start]].len();
            while end < group.len() && tokens + texts[group[end]].len() <= PASS_TOKENS {
                tokens += texts[group[end]].len();
                end += 1;
            }
            let pass: Vec<&[u32]> = group[start..end]
                .iter()
                .map(|index| texts[*index].as_slice())
                .collect();
            let vectors = self.forward(&pass, precision, &mut buffers);
            out.extend(group[start..end].iter().copied().zip(vectors));
            start = end;
        }
        out
    }

    /// One pass over `texts` stacked.
    fn forward(
        &self,
        texts: &[&[u32]],
        precision: Precision,
        buffers: &mut Buffers,
    ) -> Vec<Vec<f32>> {
        let hidden = self.shape.hidden;
        let rows: usize = texts.iter().map(|text| text.len()).sum();
        let hidden_state = &mut buffers.hidden;
        hidden_state.clear();
        for text in texts {
            for (position, id) in text.iter().enumerate() {
                let word = &self.words[*id as usize * hidden..][..hidden];
                let place = &self.positions[position * hidden..][..hidden];
                hidden_state.extend(
                    word.iter()
                        .zip(place)
                        .zip(&self.token_type)
                        .map(|((word, place), kind)| word + place + kind),
                );
            }
        }
        layer_norm(hidden_state, &self.embedding_norm, self.shape.epsilon);
        let heads = self.shape.heads;
        for layer in &self.layers {
            let Buffers {
                hidden: hidden_state,
                stacked,
                context,
                wide,
                scores,
                scratch,
            } = &mut *buffers;
            layer
                .attention_input
                .apply(hidden_state, rows, stacked, precision, scratch);
            // Every element is written below: `resize` keeps what is there, so a buffer of the
            // same size as the last layer's is not cleared again.
            context.resize(rows * hidden, 0.0);
            let mut first = 0;
            for text in texts {
                attention(
                    &stacked[first * 3 * hidden..(first + text.len()) * 3 * hidden],
                    &mut context[first * hidden..(first + text.len()) * hidden],
                    text.len(),
                    hidden,
                    heads,
                    scores,
                );
                first += text.len();
            }
            layer
                .attention_output
                .apply(context, rows, wide, precision, scratch);
            for (value, residual) in wide.iter_mut().zip(hidden_state.iter()) {
                *value += residual;
            }
            layer_norm(wide, &layer.attention_norm, self.shape.epsilon);
            std::mem::swap(hidden_state, wide);
            layer.up.apply(hidden_state, rows, wide, precision, scratch);
            for value in wide.iter_mut() {
                *value = gelu(*value);
            }
            layer.down.apply(wide, rows, context, precision, scratch);
            for (value, residual) in context.iter_mut().zip(hidden_state.iter()) {
                *value += residual;
            }
            layer_norm(context, &layer.output_norm, self.shape.epsilon);
            std::mem::swap(hidden_state, context);
        }
        let mut first = 0;
        texts
            .iter()
            .map(|text| {
                let mut pooled = vec![0f32; hidden];
                for row in buffers.hidden[first * hidden..(first + text.len()) * hidden]
                    .chunks_exact(hidden)
                {
                    for (sum, value) in pooled.iter_mut().zip(row) {
                        *sum += value;
                    }
                }
                let count = text.len().max(1) as f32;
                for value in &mut pooled {
                    *value /= count;
                }
                first += text.len();
                pooled
            })
            .collect()
    }
}

impl Linear {
    /// `out = x · Wᵀ + bias` for `rows` rows of `x`.
    fn apply(
        &self,
        x: &[f32],
        rows: usize,
        out: &mut Vec<f32>,
        precision: Precision,
        scratch: &mut Scratch,
    ) {
        // Both products write every element; keeping the old values spares a memset per layer.
        out.resize(rows * self.outputs, 0.0);
        if rows == 0 {
            return;
        }
        if let (Precision::Int8, Some(packed)) = (precision, &self.packed) {
            packed.product(x, rows, &self.bias, out, scratch);
            return;
        }
        // SAFETY: `x` holds `rows × inputs` values (row stride `inputs`), the weights `outputs ×
        // inputs` read as their transpose (element (k, n) at `n × inputs + k`), and `out` `rows
        // × outputs`; the three do not overlap.
        unsafe {
            gemm::gemm(
                rows,
                self.outputs,
                self.inputs,
                out.as_mut_ptr(),
                1,
                self.outputs as isize,
                false,
                x.as_ptr(),
                1,
                self.inputs as isize,
                self.weights.as_ptr(),
                self.inputs as isize,
                1,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
        for row in out.chunks_exact_mut(self.outputs) {
            for (value, bias) in row.iter_mut().zip(&self.bias) {
                *value += bias;
            }
        }
    }
}

/// Self-attention of one text of `length` word pieces: `stacked` holds each word piece's
/// query, key and value (`3 × hidden`), `context` receives the heads' outputs side by side.
fn attention(
    stacked: &[f32],
    context: &mut [f32],
    length: usize,
    hidden: usize,
    heads: usize,
    scores: &mut Vec<f32>,
) {
    let width = hidden / heads;
    let scale = 1.0 / (width as f32).sqrt();
    let stride = 3 * hidden;
    // The product writes every score; the old values need no clearing.
    scores.resize(length * length, 0.0);
    for head in 0..heads {
        let query = head * width;
        let key = hidden + head * width;
        let value = 2 * hidden + head * width;
        // SAFETY: every element read is `row × stride + column` with `row < length` and
        // `column < 3 × hidden`, inside `stacked` (`length × 3 × hidden`); the scores are
        // `length × length`; the context's head columns `row × hidden + head × width + d`, `d <
        // width`, are inside `context` (`length × hidden`). No output overlaps an input.
        unsafe {
            // scores = scale × Q · Kᵀ
            gemm::gemm(
                length,
                length,
                width,
                scores.as_mut_ptr(),
                1,
                length as isize,
                false,
                stacked.as_ptr().add(query),
                1,
                stride as isize,
                stacked.as_ptr().add(key),
                stride as isize,
                1,
                0.0,
                scale,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
        for row in scores.chunks_exact_mut(length) {
            softmax(row);
        }
        // SAFETY: as above.
        unsafe {
            // context = P · V
            gemm::gemm(
                length,
                width,
                length,
                context.as_mut_ptr().add(head * width),
                1,
                hidden as isize,
                false,
                scores.as_ptr(),
                1,
                length as isize,
                stacked.as_ptr().add(value),
                1,
                stride as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    }
}

/// The sum of `values` in 16 lanes, so that the compiler vectorises it.
fn sum(values: &[f32]) -> f32 {
    let mut lanes = [0f32; 16];
    let mut chunks = values.chunks_exact(16);
    for chunk in &mut chunks {
        for (lane, value) in lanes.iter_mut().zip(chunk) {
            *lane += value;
        }
    }
    lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

fn softmax(row: &mut [f32]) {
    let largest = row
        .iter()
        .fold(f32::NEG_INFINITY, |max, value| max.max(*value));
    for value in row.iter_mut() {
        *value = exp(*value - largest);
    }
    let total = sum(row);
    let inverse = 1.0 / total;
    for value in row.iter_mut() {
        *value *= inverse;
    }
}

/// Layer norm of each row of `x` in place.
fn layer_norm(x: &mut [f32], norm: &Norm, epsilon: f32) {
    let width = norm.gamma.len() as f32;
    for row in x.chunks_exact_mut(norm.gamma.len()) {
        let mean = sum(row) / width;
        for value in row.iter_mut() {
            *value -= mean;
        }
        let mut squares = [0f32; 16];
        let mut chunks = row.chunks_exact(16);
        for chunk in &mut chunks {
            for (lane, value) in squares.iter_mut().zip(chunk) {
                *lane += value * value;
            }
        }
        let variance = (squares.iter().sum::<f32>()
            + chunks
                .remainder()
                .iter()
                .map(|value| value * value)
                .sum::<f32>())
            / width;
        let inverse = 1.0 / (variance + epsilon).sqrt();
        for ((value, gamma), beta) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
            *value = *value * inverse * gamma + beta;
        }
    }
}

/// `eˣ` within a few units in the last place, in arithmetic the compiler vectorises: `x =
/// n ln 2 + r`, a polynomial for `eʳ` (Cephes' `expf` coefficients) and `2ⁿ` built in the
/// exponent bits. Inputs below −87 give about `e⁻⁸⁷` (softmax inputs are at most 0).
fn exp(x: f32) -> f32 {
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let polynomial =
        ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r
            + 1.666_666_5e-1)
            * r
            + 0.5;
    let e_r = polynomial * r * r + r + 1.0;
    f32::from_bits(((n as i32 + 127) << 23) as u32) * e_r
}

/// GELU with the exact `erf` form BERT uses, `erf` by Abramowitz and Stegun 7.1.26 (absolute
/// error below 1.5 × 10⁻⁷).
fn gelu(x: f32) -> f32 {
    let z = x * std::f32::consts::FRAC_1_SQRT_2;
    let a = z.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let polynomial = ((((1.061_405_4 * t - 1.453_152_1) * t + 1.421_413_8) * t - 0.284_496_74) * t
        + 0.254_829_6)
        * t;
    let erf = (1.0 - polynomial * exp(-a * a)).copysign(z);
    0.5 * x * (1.0 + erf)
}

/// Tensors read back from `model.safetensors` on the CPU.
pub fn read_tensors(bytes: &[u8]) -> Result<HashMap<String, Tensor>, candle_core::Error> {
    candle_core::safetensors::load_buffer(bytes, &Device::Cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_gelu_match_the_library_functions() {
        for step in -2000..=200 {
            let x = step as f32 * 0.04;
            let exact = x.exp();
            assert!(
                (exp(x) - exact).abs() <= 2e-6 * exact.max(f32::MIN_POSITIVE),
                "exp({x}) = {} against {exact}",
                exp(x)
            );
        }
        for step in -200..=200 {
            let x = step as f32 * 0.02;
            let exact = 0.5 * f64::from(x) * (1.0 + erf(f64::from(x) / std::f64::consts::SQRT_2));
            assert!(
                (f64::from(gelu(x)) - exact).abs() < 1e-5,
                "gelu({x}) = {} against {exact}",
                gelu(x)
            );
        }
    }

    /// `erf` by its Maclaurin series (precise in f64 for |x| ≤ 3), the reference of the test.
    fn erf(x: f64) -> f64 {
        let mut term = x;
        let mut total = x;
        for n in 1..200 {
            term *= -x * x / n as f64;
            total += term / (2 * n + 1) as f64;
        }
        total * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn softmax_and_layer_norm_normalise() {
        let mut row = vec![1.0, 2.0, 3.0, -50.0, 0.5];
        softmax(&mut row);
        assert!((sum(&row) - 1.0).abs() < 1e-6);
        assert!(row[2] > row[1] && row[1] > row[0] && row[3] < 1e-20);
        let norm = Norm {
            gamma: vec![1.0; 20],
            beta: vec![0.0; 20],
        };
        let mut x: Vec<f32> = (0..40).map(|value| value as f32).collect();
        layer_norm(&mut x, &norm, 1e-12);
        for row in x.chunks_exact(20) {
            assert!(sum(row).abs() < 1e-4);
            assert!((row.iter().map(|value| value * value).sum::<f32>() / 20.0 - 1.0).abs() < 1e-4);
        }
    }
}
