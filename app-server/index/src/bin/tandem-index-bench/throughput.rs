//! `--throughput N`: the local model's embedding rate on N chunks of a corpus, candle's BERT (the
//! earlier implementation) against this crate's forward pass in f32 and with int8 linear
//! layers, in chunks per wall-clock second and per CPU-second of the process, with the floor:
//! the model's FLOPs per chunk against this machine's measured f32 GEMM and int8 product rates.

use std::path::Path;
use std::time::Instant;

use tandem_index::embed::local::{Implementation, set_buffer_reuse};
use tandem_index::{IndexSettings, IndexState};

/// Embedding throughput on `count` chunks of the corpus (spread over it), in batches of the
/// provider's size: candle in index order and in length order, the own forward pass in f32 and
/// int8; plus the floor.
pub(crate) async fn run(
    state: &IndexState,
    settings: &IndexSettings,
    index_dir: &Path,
    count: usize,
) -> Result<(), String> {
    let store = tandem_index::store::Store::open(index_dir).map_err(|e| e.to_string())?;
    let texts: Vec<String> = store
        .pending_embeddings("throughput-probe")
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    let step = (texts.len() / count.max(1)).max(1);
    let texts: Vec<String> = texts.into_iter().step_by(step).take(count).collect();
    let model_dir = &settings.embedding.local_model_dir;
    let tokenizer_text =
        std::fs::read_to_string(model_dir.join("tokenizer.json")).map_err(|e| e.to_string())?;
    let tokenizer = tandem_index::embed::wordpiece::WordPiece::from_json(&tokenizer_text)?;
    let tokens: Vec<usize> = texts
        .iter()
        .map(|text| tokenizer.encode(text, 256).len())
        .collect();
    let mean_tokens = tokens.iter().sum::<usize>() as f64 / tokens.len().max(1) as f64;
    // Before: candle's BERT in passes of 16 texts and the allocator's defaults (a buffer mapped
    // and unmapped per use); then candle in length order with passes of 8 whose buffers the
    // heap keeps; then this crate's forward pass in f32 and with int8 linear layers.
    set_buffer_reuse(false);
    let provider = |implementation: Implementation| {
        let mut embedding = settings.embedding.clone();
        embedding.local_implementation = implementation;
        tandem_index::embed::resolve(tandem_index::embed::LOCAL_MODEL, &embedding, state.models())
            .map_err(|e| e.detail)
    };
    let mut by_length = texts.clone();
    by_length.sort_by_key(|text| tokenizer.encode(text, 256).len());
    let configurations = [
        (
            "candle, index order, no buffer reuse",
            &texts,
            Implementation::Candle,
            false,
        ),
        (
            "candle, length order, no buffer reuse",
            &by_length,
            Implementation::Candle,
            false,
        ),
        (
            "candle, length order, buffers reused",
            &by_length,
            Implementation::Candle,
            true,
        ),
        (
            "own forward pass, f32",
            &by_length,
            Implementation::F32,
            true,
        ),
        (
            "own forward pass, int8 linear layers",
            &by_length,
            Implementation::Int8,
            true,
        ),
    ];
    // Each configuration runs `rounds` times in a row, in the order above: once buffers are
    // reused the allocator setting stays, so the configurations without it come first.
    let rounds = 3;
    let mut measured = vec![Vec::new(); configurations.len()];
    let mut batch_size = 0;
    for (index, (_, order, implementation, reuse)) in configurations.iter().enumerate() {
        set_buffer_reuse(*reuse);
        let provider = provider(*implementation)?;
        batch_size = provider.batch_size();
        provider.embed(&["warm up".to_string()]).await?;
        for _ in 0..rounds {
            let cpu_before = process_cpu_seconds();
            let started = Instant::now();
            for batch in order.chunks(provider.batch_size()) {
                provider.embed(batch).await?;
            }
            let wall = started.elapsed().as_secs_f64();
            let cpu = process_cpu_seconds() - cpu_before;
            measured[index].push((order.len() as f64 / wall, order.len() as f64 / cpu));
        }
    }
    let middle = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let base = middle(&mut measured[0].iter().map(|(wall, _)| *wall).collect());
    let base_cpu = middle(&mut measured[0].iter().map(|(_, cpu)| *cpu).collect());
    for ((label, order, _, _), runs) in configurations.iter().zip(&measured) {
        let wall = middle(&mut runs.iter().map(|(wall, _)| *wall).collect());
        let cpu = middle(&mut runs.iter().map(|(_, cpu)| *cpu).collect());
        println!(
            "embedding throughput ({label}, {} chunks in batches of {}, median of {rounds}): {wall:.2} chunks/s wall ({:.2}×), {cpu:.2} chunks per CPU-second ({:.2}×)",
            order.len(),
            batch_size,
            wall / base,
            cpu / base_cpu
        );
    }
    // all-MiniLM-L6-v2: 6 layers, hidden 384, feed-forward 1536. Per token and layer: the four
    // attention projections (4 × 384 × 384) and the feed-forward (2 × 384 × 1536) multiply-adds,
    // plus the attention scores and mix (2 × L × 384); 2 FLOPs each.
    let flops = |length: f64| {
        6.0 * length * 2.0 * (4.0 * 384.0 * 384.0 + 2.0 * 384.0 * 1536.0 + 2.0 * length * 384.0)
    };
    let mean_flops = tokens
        .iter()
        .map(|length| flops(*length as f64))
        .sum::<f64>()
        / tokens.len().max(1) as f64;
    let gemm = gemm_rate()?;
    println!(
        "floor: {mean_tokens:.0} word pieces per chunk on average, {:.2} GFLOP per chunk; f32 GEMM (candle, 512×384 · 384×1536) {gemm:.1} GFLOP/s on this machine = at most {:.1} chunks/s",
        mean_flops / 1e9,
        gemm * 1e9 / mean_flops
    );
    if let Some(int8) = int8_rate() {
        println!(
            "int8 GEMM (512×384 · 384×1536, AVX-512 VNNI, activations quantized per row) {int8:.1} GOP/s on one thread, {:.1} GOP/s on {} = at most {:.1} chunks/s with every multiply-add at that rate",
            int8 * threads() as f64,
            threads(),
            int8 * threads() as f64 * 1e9 / mean_flops
        );
    }
    Ok(())
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
        .min(8)
}

/// User and system CPU seconds of this process so far.
fn process_cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole `rusage` into the pointer it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The int8 product's rate on one thread, in GOP/s (a multiply-add is 2), where the CPU runs it.
fn int8_rate() -> Option<f64> {
    use tandem_index::embed::int8::{PackedWeights, Scratch, supported};
    if !supported() {
        return None;
    }
    let (rows, inputs, outputs) = (512, 384, 1536);
    let weights: Vec<f32> = (0..outputs * inputs)
        .map(|index| ((index * 7919) % 255) as f32 / 127.0 - 1.0)
        .collect();
    let x: Vec<f32> = (0..rows * inputs)
        .map(|index| ((index * 104_729) % 251) as f32 / 125.0 - 1.0)
        .collect();
    let packed = PackedWeights::pack(&weights, outputs, inputs)?;
    let bias = vec![0f32; outputs];
    let mut out = vec![0f32; rows * outputs];
    let mut scratch = Scratch::default();
    packed.product(&x, rows, &bias, &mut out, &mut scratch);
    let rounds = 40;
    let started = Instant::now();
    for _ in 0..rounds {
        packed.product(&x, rows, &bias, &mut out, &mut scratch);
    }
    let operations = 2.0 * (rows * inputs * outputs) as f64 * f64::from(rounds);
    Some(operations / started.elapsed().as_secs_f64() / 1e9)
}

/// The machine's f32 matrix-multiply rate through candle, in GFLOP/s.
fn gemm_rate() -> Result<f64, String> {
    use candle_core::{Device, Tensor};
    let device = Device::Cpu;
    let left = Tensor::randn(0f32, 1.0, (512, 384), &device).map_err(|e| e.to_string())?;
    let right = Tensor::randn(0f32, 1.0, (384, 1536), &device).map_err(|e| e.to_string())?;
    left.matmul(&right).map_err(|e| e.to_string())?;
    let rounds = 40;
    let started = Instant::now();
    for _ in 0..rounds {
        left.matmul(&right).map_err(|e| e.to_string())?;
    }
    let flops = 2.0 * 512.0 * 384.0 * 1536.0 * f64::from(rounds);
    Ok(flops / started.elapsed().as_secs_f64() / 1e9)
}
