//! `[query_project_index]`: the project index behind `query_project` (see
//! `docs/configuration.md`).

use std::path::{Component, Path, PathBuf};

use tandem_index::IndexSettings;
use tandem_index::embed::ProviderKind;

use crate::config::ConfigError;
use crate::config::QueryProjectIndexConfig;
use crate::config::load::layer::{Tracked, join};
use crate::config::load::resolve::{UnknownKey, collect_unknown};

const PREFIX: &str = "query_project_index";

const KEYS: &[&str] = &[
    "auto_warm",
    "model_tool",
    "require_embeddings",
    "embedding_model",
    "file_globs",
    "index_dir",
    "embedding_provider",
    "embedding_base_url",
    "embedding_api_key_env",
    "model_dir",
    "local_precision",
    "chunk_max_lines",
    "chunk_overlap_lines",
    "max_file_bytes",
    "default_alpha",
    "ranking",
    "chunker",
    "roots",
    "max_query_terms",
    "max_query_bytes",
];

/// Reads the table (every key optional).
pub(super) fn resolve(
    effective: &Tracked,
    home: &Path,
    unknown_keys: &mut Vec<UnknownKey>,
) -> Result<QueryProjectIndexConfig, ConfigError> {
    let table = effective
        .field::<toml::Table>(&effective.table, "", PREFIX)?
        .unwrap_or_default();
    collect_unknown(effective, &table, PREFIX, KEYS, unknown_keys);
    let mut settings = IndexSettings::with_defaults(&home.join("models"));
    if let Some(index_dir) = effective.field::<PathBuf>(&table, PREFIX, "index_dir")? {
        // A relative index directory is made inside each repository, component by component;
        // one that climbs out of it would write where no repository check looked.
        if index_dir
            .components()
            .any(|part| part == Component::ParentDir)
        {
            return Err(
                effective.invalid_value(&join(PREFIX, "index_dir"), "must not contain `..`")
            );
        }
        settings.index_dir = index_dir;
    }
    if let Some(model) = effective.field::<String>(&table, PREFIX, "embedding_model")? {
        settings.embedding_model = model;
    }
    if let Some(required) = effective.field(&table, PREFIX, "require_embeddings")? {
        settings.require_embeddings = required;
    }
    if let Some(globs) = effective.field(&table, PREFIX, "file_globs")? {
        settings.file_globs = globs;
    }
    if let Some(provider) = effective.field::<String>(&table, PREFIX, "embedding_provider")? {
        settings.embedding.provider = ProviderKind::parse(&provider).map_err(|message| {
            effective.invalid_value(&join(PREFIX, "embedding_provider"), &message)
        })?;
    }
    settings.embedding.base_url = effective.field(&table, PREFIX, "embedding_base_url")?;
    settings.embedding.api_key_env = effective.field(&table, PREFIX, "embedding_api_key_env")?;
    if let Some(model_dir) = effective.field::<PathBuf>(&table, PREFIX, "model_dir")? {
        settings.embedding.local_model_dir = model_dir;
    }
    if let Some(precision) = effective.field::<String>(&table, PREFIX, "local_precision")? {
        settings.embedding.local_implementation =
            tandem_index::embed::local::Implementation::parse(&precision).map_err(|message| {
                effective.invalid_value(&join(PREFIX, "local_precision"), &message)
            })?;
    }
    if let Some(lines) = effective.field::<usize>(&table, PREFIX, "chunk_max_lines")? {
        if lines < 4 {
            return Err(
                effective.invalid_value(&join(PREFIX, "chunk_max_lines"), "must be at least 4")
            );
        }
        settings.chunk_limits.max_lines = lines;
    }
    if let Some(lines) = effective.field::<usize>(&table, PREFIX, "chunk_overlap_lines")? {
        settings.chunk_limits.overlap_lines = lines;
    }
    if let Some(bytes) = effective.field::<u64>(&table, PREFIX, "max_file_bytes")? {
        settings.max_file_bytes = bytes;
    }
    if let Some(alpha) = effective.field::<f64>(&table, PREFIX, "default_alpha")? {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(effective.invalid_value(
                &join(PREFIX, "default_alpha"),
                "must be between 0.0 and 1.0",
            ));
        }
        settings.default_alpha = alpha;
    }
    if let Some(ranking) = effective.field::<String>(&table, PREFIX, "ranking")? {
        settings.ranking = match ranking.as_str() {
            "fusion" => tandem_index::query::Method::Fusion,
            "blend" => tandem_index::query::Method::Blend,
            _ => {
                return Err(effective
                    .invalid_value(&join(PREFIX, "ranking"), "must be \"fusion\" or \"blend\""));
            }
        };
    }
    if let Some(chunker) = effective.field::<String>(&table, PREFIX, "chunker")? {
        settings.chunker = match chunker.as_str() {
            "code" => tandem_index::chunk::Chunker::Code,
            "lines" => tandem_index::chunk::Chunker::Lines,
            _ => {
                return Err(effective
                    .invalid_value(&join(PREFIX, "chunker"), "must be \"code\" or \"lines\""));
            }
        };
    }
    if let Some(terms) = effective.field::<usize>(&table, PREFIX, "max_query_terms")? {
        if !(1..=1024).contains(&terms) {
            return Err(effective.invalid_value(
                &join(PREFIX, "max_query_terms"),
                "must be between 1 and 1024",
            ));
        }
        settings.max_query_terms = terms;
    }
    if let Some(bytes) = effective.field::<usize>(&table, PREFIX, "max_query_bytes")? {
        if !(1..=1024 * 1024).contains(&bytes) {
            return Err(effective.invalid_value(
                &join(PREFIX, "max_query_bytes"),
                "must be between 1 and 1048576",
            ));
        }
        settings.max_query_bytes = bytes;
    }
    let roots: Vec<PathBuf> = effective
        .field(&table, PREFIX, "roots")?
        .unwrap_or_default();
    if let Some(relative) = roots.iter().find(|root| !root.is_absolute()) {
        return Err(effective.invalid_value(
            &join(PREFIX, "roots"),
            &format!("`{}` is not an absolute path", relative.display()),
        ));
    }
    Ok(QueryProjectIndexConfig {
        auto_warm: effective
            .field(&table, PREFIX, "auto_warm")?
            .unwrap_or(true),
        model_tool: effective
            .field(&table, PREFIX, "model_tool")?
            .unwrap_or(true),
        roots,
        settings,
        state: tandem_index::IndexState::default(),
    })
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn load(text: &str) -> Result<Config, crate::config::ConfigError> {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), text).unwrap();
        Config::load(Some(home.path().to_path_buf()), &[])
    }

    #[test]
    fn ranking_and_chunker_are_chosen_by_name() {
        let settings = |text: &str| load(text).unwrap().query_project_index.settings;
        let defaults = settings("");
        assert_eq!(defaults.ranking, tandem_index::query::Method::Fusion);
        assert_eq!(defaults.chunker, tandem_index::chunk::Chunker::Code);
        let chosen = settings("[query_project_index]\nranking = \"blend\"\nchunker = \"lines\"\n");
        assert_eq!(chosen.ranking, tandem_index::query::Method::Blend);
        assert_eq!(chosen.chunker, tandem_index::chunk::Chunker::Lines);
        let error = load("[query_project_index]\nranking = \"best\"\n").unwrap_err();
        assert!(
            error.to_string().ends_with(
                "invalid value for `query_project_index.ranking`: must be \"fusion\" or \"blend\""
            ),
            "{error}"
        );
        let error = load("[query_project_index]\nchunker = \"ast\"\n").unwrap_err();
        assert!(
            error.to_string().ends_with(
                "invalid value for `query_project_index.chunker`: must be \"code\" or \"lines\""
            ),
            "{error}"
        );
    }

    #[test]
    fn the_local_precision_is_int8_unless_f32_is_chosen() {
        use tandem_index::embed::local::Implementation;
        let settings = |text: &str| load(text).unwrap().query_project_index.settings;
        assert_eq!(
            settings("").embedding.local_implementation,
            Implementation::Int8
        );
        assert_eq!(
            settings("[query_project_index]\nlocal_precision = \"f32\"\n")
                .embedding
                .local_implementation,
            Implementation::F32
        );
        let error = load("[query_project_index]\nlocal_precision = \"fp16\"\n").unwrap_err();
        assert!(
            error.to_string().ends_with(
                "invalid value for `query_project_index.local_precision`: `fp16` is neither \"int8\" nor \"f32\""
            ),
            "{error}"
        );
    }
}
