//! The int8 matrix product of the local model's linear layers: `x · Wᵀ` with the weights
//! quantized once per output row (a scale per row of `W`) and the activations quantized per
//! input row when the product runs (a scale per row of `x`), summed exactly in 32-bit integers
//! with the AVX-512 VNNI instruction `vpdpbusd` (64 byte products per instruction, four times
//! the multiply-adds of an f32 FMA of the same width). Used only where the CPU has AVX-512 VNNI
//! ([`supported`], detected at run time); elsewhere the model keeps its f32 weights.
//!
//! `vpdpbusd` multiplies unsigned bytes by signed bytes, so an activation `q` in −127..=127 is
//! stored as `q + 128` and the surplus `128 × Σₖ w[n][k]` is subtracted from each output column.

/// Output columns per panel: four 512-bit registers of sixteen 32-bit sums.
const PANEL: usize = 64;

/// Input rows per block of the kernel: 6 rows × 4 registers = 24 accumulators, leaving registers
/// for the four weight vectors and the broadcast activation.
const ROWS: usize = 6;

/// Whether this CPU runs the int8 product (AVX-512 F, BW and VNNI).
pub fn supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A weight matrix `W` (`outputs` × `inputs`) quantized per output row and laid out for the
/// kernel: panels of [`PANEL`] output columns, each holding, for every group of four inputs,
/// the four bytes of each of its columns side by side.
pub struct PackedWeights {
    inputs: usize,
    outputs: usize,
    data: Vec<i8>,
    /// The scale of each output row: `w ≈ scale × q`.
    scales: Vec<f32>,
    /// `128 × Σₖ q[n][k]` of each output row, the surplus of the unsigned activations.
    surplus: Vec<i32>,
}

/// Buffers a product reuses from one call to the next.
#[derive(Default)]
pub struct Scratch {
    activations: Vec<u8>,
    scales: Vec<f32>,
}

impl PackedWeights {
    /// Quantizes `weights` (row-major, `outputs` rows of `inputs`), or `None` when the shape does
    /// not suit the kernel (inputs not a multiple of 4, outputs not a multiple of [`PANEL`]).
    pub fn pack(weights: &[f32], outputs: usize, inputs: usize) -> Option<Self> {
        if inputs == 0
            || outputs == 0
            || !inputs.is_multiple_of(4)
            || !outputs.is_multiple_of(PANEL)
            || weights.len() != outputs * inputs
        {
            return None;
        }
        let mut quantized = vec![0i8; outputs * inputs];
        let mut scales = vec![0f32; outputs];
        let mut surplus = vec![0i32; outputs];
        for (row, values) in weights.chunks_exact(inputs).enumerate() {
            let largest = values.iter().fold(0f32, |max, value| max.max(value.abs()));
            let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
            let mut sum = 0i32;
            for (slot, value) in quantized[row * inputs..(row + 1) * inputs]
                .iter_mut()
                .zip(values)
            {
                let q = (value / scale).round().clamp(-127.0, 127.0) as i8;
                *slot = q;
                sum += i32::from(q);
            }
            scales[row] = scale;
            surplus[row] = 128 * sum;
        }
        let groups = inputs / 4;
        let mut data = vec![0i8; outputs * inputs];
        for panel in 0..outputs / PANEL {
            for group in 0..groups {
                for column in 0..PANEL {
                    let row = panel * PANEL + column;
                    let source = row * inputs + group * 4;
                    let target = ((panel * groups + group) * PANEL + column) * 4;
                    data[target..target + 4].copy_from_slice(&quantized[source..source + 4]);
                }
            }
        }
        Some(Self {
            inputs,
            outputs,
            data,
            scales,
            surplus,
        })
    }

    /// The number of inputs (columns of `x`).
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The number of outputs (columns of the product).
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// `out = x · Wᵀ + bias` for `x` of `rows` × `inputs` (row-major); `out` holds `rows` ×
    /// `outputs`. Panics if the CPU is not [`supported`] or the lengths do not match; callers
    /// check both once when the model loads.
    pub fn product(
        &self,
        x: &[f32],
        rows: usize,
        bias: &[f32],
        out: &mut [f32],
        scratch: &mut Scratch,
    ) {
        assert!(supported(), "the int8 product needs AVX-512 VNNI");
        assert_eq!(x.len(), rows * self.inputs);
        assert_eq!(out.len(), rows * self.outputs);
        assert_eq!(bias.len(), self.outputs);
        quantize_rows(x, self.inputs, scratch);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `supported()` checked the CPU features the kernel is compiled for, and the
        // lengths of `x` (and so of the quantized activations), `out` and `bias` were checked
        // against `rows`, `inputs` and `outputs` above.
        unsafe {
            vnni::product(self, &scratch.activations, &scratch.scales, rows, bias, out);
        }
    }

    /// The same product computed one scalar at a time, for tests of the kernel.
    #[cfg(test)]
    fn product_scalar(&self, x: &[f32], rows: usize, bias: &[f32], out: &mut [f32]) {
        let mut scratch = Scratch::default();
        quantize_rows(x, self.inputs, &mut scratch);
        let groups = self.inputs / 4;
        for row in 0..rows {
            for column in 0..self.outputs {
                let (panel, lane) = (column / PANEL, column % PANEL);
                let mut sum = 0i32;
                for k in 0..self.inputs {
                    let weight = self.data[((panel * groups + k / 4) * PANEL + lane) * 4 + k % 4];
                    let activation = scratch.activations[row * self.inputs + k];
                    sum += i32::from(activation) * i32::from(weight);
                }
                out[row * self.outputs + column] = (sum - self.surplus[column]) as f32
                    * (scratch.scales[row] * self.scales[column])
                    + bias[column];
            }
        }
    }
}

/// Quantizes each row of `x` to `q + 128` with `x ≈ scale × q`, `q` in −127..=127.
fn quantize_rows(x: &[f32], inputs: usize, scratch: &mut Scratch) {
    let rows = x.len() / inputs;
    scratch.activations.resize(x.len(), 0);
    scratch.scales.resize(rows, 0.0);
    for (row, values) in x.chunks_exact(inputs).enumerate() {
        let target = &mut scratch.activations[row * inputs..(row + 1) * inputs];
        #[cfg(target_arch = "x86_64")]
        if supported() {
            // SAFETY: the CPU has the features `quantize_row` is compiled for, and `target` is
            // as long as `values`.
            scratch.scales[row] = unsafe { vnni::quantize_row(values, target) };
            continue;
        }
        scratch.scales[row] = quantize_row(values, target);
    }
}

/// One row of [`quantize_rows`]; returns its scale.
fn quantize_row(values: &[f32], target: &mut [u8]) -> f32 {
    // Adding and subtracting 1.5 × 2²³ rounds to the nearest integer (ties to even, as the
    // AVX-512 conversion does).
    const ROUND: f32 = 12_582_912.0;
    let largest = values.iter().fold(0f32, |max, value| max.max(value.abs()));
    let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
    let inverse = 1.0 / scale;
    for (slot, value) in target.iter_mut().zip(values) {
        let q = ((value * inverse + ROUND) - ROUND).clamp(-127.0, 127.0);
        *slot = (q as i32 + 128) as u8;
    }
    scale
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::{
        __m512i, _mm_storeu_si128, _mm512_abs_ps, _mm512_add_epi32, _mm512_cvtps_epi32,
        _mm512_cvtusepi32_epi8, _mm512_dpbusd_epi32, _mm512_loadu_ps, _mm512_loadu_si512,
        _mm512_max_epi32, _mm512_max_ps, _mm512_min_epi32, _mm512_mul_ps, _mm512_reduce_max_ps,
        _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps, _mm512_setzero_si512,
        _mm512_storeu_si512,
    };

    use super::{PANEL, PackedWeights, ROWS};

    /// The whole product: every panel of output columns, by blocks of [`ROWS`] input rows.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VNNI; `activations` holds `rows × inputs` bytes, `scales`
    /// `rows` values, `out` `rows × outputs` values and `bias` `outputs` values.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn product(
        weights: &PackedWeights,
        activations: &[u8],
        scales: &[f32],
        rows: usize,
        bias: &[f32],
        out: &mut [f32],
    ) {
        let groups = weights.inputs / 4;
        let mut sums = [[0i32; PANEL]; ROWS];
        for panel in 0..weights.outputs / PANEL {
            let panel_data = &weights.data[panel * groups * PANEL * 4..][..groups * PANEL * 4];
            let mut first = 0;
            while first < rows {
                let count = (rows - first).min(ROWS);
                let block = &activations[first * weights.inputs..(first + count) * weights.inputs];
                // SAFETY: `block` holds `count` rows of `inputs` bytes and `panel_data` the
                // panel's `groups × PANEL × 4` bytes, as each kernel reads; the features are
                // those of this function.
                unsafe {
                    match count {
                        6 => block_sums::<6>(block, weights.inputs, panel_data, &mut sums),
                        5 => block_sums::<5>(block, weights.inputs, panel_data, &mut sums),
                        4 => block_sums::<4>(block, weights.inputs, panel_data, &mut sums),
                        3 => block_sums::<3>(block, weights.inputs, panel_data, &mut sums),
                        2 => block_sums::<2>(block, weights.inputs, panel_data, &mut sums),
                        _ => block_sums::<1>(block, weights.inputs, panel_data, &mut sums),
                    }
                }
                for (offset, row_sums) in sums.iter().take(count).enumerate() {
                    let row = first + offset;
                    let row_scale = scales[row];
                    let columns = panel * PANEL..(panel + 1) * PANEL;
                    let target = &mut out[row * weights.outputs..][columns.clone()];
                    for ((((value, sum), surplus), scale), bias) in target
                        .iter_mut()
                        .zip(row_sums)
                        .zip(&weights.surplus[columns.clone()])
                        .zip(&weights.scales[columns.clone()])
                        .zip(&bias[columns])
                    {
                        *value = (sum - surplus) as f32 * (row_scale * scale) + bias;
                    }
                }
                first += count;
            }
        }
    }

    /// [`super::quantize_row`] sixteen values at a time; returns the row's scale.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VNNI; `target` is as long as `values`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn quantize_row(values: &[f32], target: &mut [u8]) -> f32 {
        debug_assert_eq!(values.len(), target.len());
        let whole = values.len() / 16 * 16;
        let mut largest = _mm512_setzero_ps();
        for start in (0..whole).step_by(16) {
            // SAFETY: `start + 16 <= whole <= values.len()`.
            let chunk = unsafe { _mm512_loadu_ps(values.as_ptr().add(start)) };
            largest = _mm512_max_ps(largest, _mm512_abs_ps(chunk));
        }
        let largest = values[whole..]
            .iter()
            .fold(_mm512_reduce_max_ps(largest), |max, value| {
                max.max(value.abs())
            });
        let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
        let inverse = _mm512_set1_ps(1.0 / scale);
        let (low, high, offset) = (
            _mm512_set1_epi32(-127),
            _mm512_set1_epi32(127),
            _mm512_set1_epi32(128),
        );
        for start in (0..whole).step_by(16) {
            // SAFETY: `start + 16 <= whole`, inside both slices (of equal length); the store
            // writes 16 bytes.
            unsafe {
                let chunk = _mm512_mul_ps(_mm512_loadu_ps(values.as_ptr().add(start)), inverse);
                // Rounds to the nearest, ties to even (the default rounding mode).
                let q = _mm512_min_epi32(_mm512_max_epi32(_mm512_cvtps_epi32(chunk), low), high);
                let bytes = _mm512_cvtusepi32_epi8(_mm512_add_epi32(q, offset));
                _mm_storeu_si128(target.as_mut_ptr().add(start).cast(), bytes);
            }
        }
        if whole < values.len() {
            let inverse = 1.0 / scale;
            for (slot, value) in target[whole..].iter_mut().zip(&values[whole..]) {
                let q = (value * inverse).round_ties_even().clamp(-127.0, 127.0);
                *slot = (q as i32 + 128) as u8;
            }
        }
        scale
    }

    /// The integer sums of `R` rows of activations against one panel of weights.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VNNI; `block` holds `R × inputs` bytes and `panel` `inputs
    /// × PANEL` bytes (`inputs` a multiple of 4).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn block_sums<const R: usize>(
        block: &[u8],
        inputs: usize,
        panel: &[i8],
        sums: &mut [[i32; PANEL]; ROWS],
    ) {
        debug_assert!(block.len() >= R * inputs && panel.len() >= inputs * PANEL);
        let mut accumulators: [[__m512i; 4]; R] = [[_mm512_setzero_si512(); 4]; R];
        let weights = panel.as_ptr();
        let activations = block.as_ptr();
        for group in 0..inputs / 4 {
            // SAFETY: `group < inputs / 4`, so the 256 bytes at `group × 256` are inside the
            // panel, and the 4 bytes at `row × inputs + group × 4` inside the block.
            unsafe {
                let base = weights.add(group * PANEL * 4);
                let columns = [
                    _mm512_loadu_si512(base.cast()),
                    _mm512_loadu_si512(base.add(64).cast()),
                    _mm512_loadu_si512(base.add(128).cast()),
                    _mm512_loadu_si512(base.add(192).cast()),
                ];
                for (row, accumulator) in accumulators.iter_mut().enumerate() {
                    let four = activations
                        .add(row * inputs + group * 4)
                        .cast::<i32>()
                        .read_unaligned();
                    let broadcast = _mm512_set1_epi32(four);
                    for (sum, column) in accumulator.iter_mut().zip(columns) {
                        *sum = _mm512_dpbusd_epi32(*sum, broadcast, column);
                    }
                }
            }
        }
        for (row, accumulator) in accumulators.iter().enumerate() {
            for (part, sum) in accumulator.iter().enumerate() {
                // SAFETY: each store writes 16 i32 inside the row's 64.
                unsafe {
                    _mm512_storeu_si512(sums[row][part * 16..].as_mut_ptr().cast(), *sum);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random matrix with values in −1..1 and some large outliers.
    fn matrix(rows: usize, columns: usize, seed: u64) -> Vec<f32> {
        let mut state = seed;
        (0..rows * columns)
            .map(|index| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let value = ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0;
                if index % 97 == 0 { value * 8.0 } else { value }
            })
            .collect()
    }

    #[test]
    fn refuses_shapes_the_kernel_cannot_take() {
        assert!(PackedWeights::pack(&matrix(64, 6, 1), 64, 6).is_none());
        assert!(PackedWeights::pack(&matrix(48, 8, 1), 48, 8).is_none());
        assert!(PackedWeights::pack(&matrix(64, 8, 1), 64, 4).is_none());
        assert!(PackedWeights::pack(&matrix(64, 8, 1), 64, 8).is_some());
    }

    #[test]
    fn the_kernel_sums_exactly_what_the_scalar_product_sums() {
        if !supported() {
            // A CPU feature, not a component a run can install: say so instead of passing quietly.
            #[allow(clippy::print_stderr, reason = "the test says why it did not run")]
            {
                eprintln!(
                    "not run: this CPU lacks AVX-512 VNNI, so the int8 kernel is never used here"
                );
            }
            return;
        }
        // 13 rows: two full blocks of 6 and a remainder of 1; 128 outputs: two panels.
        let (rows, inputs, outputs) = (13, 72, 128);
        let weights = PackedWeights::pack(&matrix(outputs, inputs, 7), outputs, inputs);
        let Some(weights) = weights else {
            panic!("the shape suits the kernel");
        };
        let x = matrix(rows, inputs, 11);
        let bias = matrix(1, outputs, 13);
        let mut fast = vec![0f32; rows * outputs];
        let mut slow = vec![0f32; rows * outputs];
        weights.product(&x, rows, &bias, &mut fast, &mut Scratch::default());
        weights.product_scalar(&x, rows, &bias, &mut slow);
        assert_eq!(fast, slow);
        for count in 1..=ROWS {
            let mut fast = vec![0f32; count * outputs];
            let mut slow = vec![0f32; count * outputs];
            let x = &x[..count * inputs];
            weights.product(x, count, &bias, &mut fast, &mut Scratch::default());
            weights.product_scalar(x, count, &bias, &mut slow);
            assert_eq!(fast, slow, "{count} rows");
        }
    }

    #[test]
    fn the_vector_quantization_equals_the_scalar_one() {
        if !supported() {
            // A CPU feature, not a component a run can install: say so instead of passing quietly.
            #[allow(clippy::print_stderr, reason = "the test says why it did not run")]
            {
                eprintln!(
                    "not run: this CPU lacks AVX-512 VNNI, so the int8 kernel is never used here"
                );
            }
            return;
        }
        // 77 values: four vectors of 16 and a remainder of 13; one row of zeros.
        for (values, seed) in [(matrix(1, 77, 17), 17), (vec![0f32; 77], 0)] {
            let mut fast = vec![0u8; values.len()];
            let mut slow = vec![0u8; values.len()];
            // SAFETY: `supported()` holds and both slices have the same length.
            let fast_scale = unsafe { vnni::quantize_row(&values, &mut fast) };
            let slow_scale = quantize_row(&values, &mut slow);
            assert_eq!((fast_scale, &fast), (slow_scale, &slow), "seed {seed}");
        }
    }

    #[test]
    fn the_quantized_product_is_close_to_the_f32_product() {
        let (rows, inputs, outputs) = (9, 384, 64);
        let w = matrix(outputs, inputs, 3);
        let x = matrix(rows, inputs, 5);
        let bias = vec![0.5f32; outputs];
        let Some(weights) = PackedWeights::pack(&w, outputs, inputs) else {
            panic!("the shape suits the kernel");
        };
        let mut quantized = vec![0f32; rows * outputs];
        weights.product_scalar(&x, rows, &bias, &mut quantized);
        let mut largest_error = 0f32;
        let mut largest_value = 0f32;
        for row in 0..rows {
            for column in 0..outputs {
                let exact: f32 = (0..inputs)
                    .map(|k| x[row * inputs + k] * w[column * inputs + k])
                    .sum::<f32>()
                    + 0.5;
                largest_value = largest_value.max(exact.abs());
                largest_error =
                    largest_error.max((quantized[row * outputs + column] - exact).abs());
            }
        }
        // Two roundings of at most half a step (1/254 of the row's largest value) per term.
        assert!(
            largest_error < 0.02 * largest_value,
            "error {largest_error} against values up to {largest_value}"
        );
    }
}
