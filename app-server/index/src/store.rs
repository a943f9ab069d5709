//! The on-disk index: one SQLite database (WAL) holding the manifest (`files`), the chunks, the
//! FTS5 table of their code-aware terms (BM25) and the vectors, keyed by chunk text hash and model
//! so that unchanged chunks are never embedded twice. Every refresh step is one transaction, so a
//! crash leaves the previous index intact.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::IndexError;
use crate::chunk::Chunk;
use crate::stop::StopFlag;
use crate::vectors::QuantizedVector;

/// Schema version; a database with another version is rebuilt.
const SCHEMA_VERSION: &str = "2";

/// A manifest row.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestEntry {
    /// Size in bytes.
    pub size: u64,
    /// Modification time (ns since the epoch).
    pub mtime_ns: i64,
    /// SHA-1 of the content.
    pub hash: String,
}

/// A chunk as stored.
#[derive(Debug, Clone)]
pub struct StoredChunk {
    /// Row id.
    pub id: i64,
    /// Relative path.
    pub path: String,
    /// First line (1-based).
    pub start_line: usize,
    /// Last line (inclusive).
    pub end_line: usize,
    /// The text.
    pub text: String,
}

/// A file's new content for [`Store::apply`].
#[derive(Debug)]
pub struct FileUpdate {
    /// Relative path.
    pub path: String,
    /// Manifest values.
    pub entry: ManifestEntry,
    /// The chunks (empty for an unchanged-content touch).
    pub chunks: Vec<Chunk>,
    /// Whether only size/mtime changed (the content hash is the same).
    pub touch_only: bool,
}

/// An open index database.
pub struct Store {
    connection: Connection,
}

impl Store {
    /// Opens (creating) the database in `index_dir`, which must exist
    /// ([`crate::disk::prepare_index_dir`]); the database and its side files are checked and
    /// kept private first ([`crate::disk::prepare_database`]).
    pub fn open(index_dir: &Path) -> Result<Self, IndexError> {
        crate::disk::prepare_database(index_dir)?;
        let path = index_dir.join(crate::disk::DATABASE);
        let connection = Connection::open(&path).map_err(sql)?;
        connection
            .busy_timeout(std::time::Duration::from_secs(30))
            .map_err(sql)?;
        connection
            .execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            .map_err(sql)?;
        let store = Self { connection };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&self) -> Result<(), IndexError> {
        let version: Option<String> = self
            .connection
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |row| {
                row.get(0)
            })
            .optional()
            .unwrap_or(None);
        if version.as_deref() == Some(SCHEMA_VERSION) {
            return Ok(());
        }
        self.connection
            .execute_batch(
                "BEGIN;
                 DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS chunks;
                 DROP TABLE IF EXISTS chunk_terms; DROP TABLE IF EXISTS vectors;
                 CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER NOT NULL,
                     mtime_ns INTEGER NOT NULL, hash TEXT NOT NULL);
                 CREATE TABLE chunks(id INTEGER PRIMARY KEY, path TEXT NOT NULL,
                     start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
                     text TEXT NOT NULL, context TEXT NOT NULL, hash TEXT NOT NULL);
                 CREATE INDEX chunks_path ON chunks(path);
                 CREATE INDEX chunks_hash ON chunks(hash);
                 CREATE VIRTUAL TABLE chunk_terms USING fts5(terms, content='',
                     contentless_delete=1, tokenize=\"unicode61 remove_diacritics 0 tokenchars '_'\");
                 CREATE TABLE vectors(model TEXT NOT NULL, hash TEXT NOT NULL, dim INTEGER NOT NULL,
                     scale REAL NOT NULL, data BLOB NOT NULL, PRIMARY KEY(model, hash));
                 INSERT INTO meta(key, value) VALUES ('schema', '2'), ('generation', '0');
                 COMMIT;",
            )
            .map_err(sql)
    }

    /// The whole manifest.
    pub fn manifest(&self) -> Result<HashMap<String, ManifestEntry>, IndexError> {
        let mut statement = self
            .connection
            .prepare("SELECT path, size, mtime_ns, hash FROM files")
            .map_err(sql)?;
        let rows = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    ManifestEntry {
                        size: row.get::<_, i64>(1)?.max(0) as u64,
                        mtime_ns: row.get(2)?,
                        hash: row.get(3)?,
                    },
                ))
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// Applies one refresh in a single transaction: removes `removed` paths, replaces the chunks
    /// of every update, and bumps the generation when anything changed.
    /// A raised `stop` abandons the transaction (nothing changes).
    pub fn apply(
        &mut self,
        removed: &[String],
        updates: &[FileUpdate],
        stop: &StopFlag,
    ) -> Result<(), IndexError> {
        if removed.is_empty() && updates.is_empty() {
            return Ok(());
        }
        let transaction = self.connection.transaction().map_err(sql)?;
        {
            let mut delete_terms = transaction
                .prepare("DELETE FROM chunk_terms WHERE rowid IN (SELECT id FROM chunks WHERE path = ?1)")
                .map_err(sql)?;
            let mut delete_chunks = transaction
                .prepare("DELETE FROM chunks WHERE path = ?1")
                .map_err(sql)?;
            let mut delete_file = transaction
                .prepare("DELETE FROM files WHERE path = ?1")
                .map_err(sql)?;
            let mut upsert_file = transaction
                .prepare(
                    "INSERT INTO files(path, size, mtime_ns, hash) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(path) DO UPDATE SET size = ?2, mtime_ns = ?3, hash = ?4",
                )
                .map_err(sql)?;
            let mut insert_chunk = transaction
                .prepare(
                    "INSERT INTO chunks(path, start_line, end_line, text, context, hash)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(sql)?;
            let mut insert_terms = transaction
                .prepare("INSERT INTO chunk_terms(rowid, terms) VALUES (?1, ?2)")
                .map_err(sql)?;
            for path in removed {
                delete_terms.execute([path]).map_err(sql)?;
                delete_chunks.execute([path]).map_err(sql)?;
                delete_file.execute([path]).map_err(sql)?;
            }
            for update in updates {
                stop.check()?;
                upsert_file
                    .execute(params![
                        update.path,
                        update.entry.size as i64,
                        update.entry.mtime_ns,
                        update.entry.hash
                    ])
                    .map_err(sql)?;
                if update.touch_only {
                    continue;
                }
                delete_terms.execute([&update.path]).map_err(sql)?;
                delete_chunks.execute([&update.path]).map_err(sql)?;
                for chunk in &update.chunks {
                    let terms = crate::tokenize::index_text(&format!(
                        "{}\n{}\n{}",
                        update.path, chunk.context, chunk.text
                    ));
                    let hash = chunk_hash(chunk);
                    insert_chunk
                        .execute(params![
                            update.path,
                            chunk.start_line as i64,
                            chunk.end_line as i64,
                            chunk.text,
                            chunk.context,
                            hash
                        ])
                        .map_err(sql)?;
                    let id = transaction.last_insert_rowid();
                    insert_terms.execute(params![id, terms]).map_err(sql)?;
                }
            }
            transaction
                .execute(
                    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'",
                    [],
                )
                .map_err(sql)?;
        }
        transaction.commit().map_err(sql)
    }

    /// Deletes everything (a `force_full` refresh), in one transaction.
    pub fn clear(&mut self) -> Result<(), IndexError> {
        self.connection
            .execute_batch(
                "BEGIN; DELETE FROM chunk_terms; DELETE FROM chunks; DELETE FROM files;
                 DELETE FROM vectors;
                 UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
                 COMMIT;",
            )
            .map_err(sql)
    }

    /// The chunker the chunks were cut with ([`crate::chunk::Chunker::id`]), if recorded.
    pub fn chunker(&self) -> Result<Option<String>, IndexError> {
        self.connection
            .query_row("SELECT value FROM meta WHERE key = 'chunker'", [], |row| {
                row.get(0)
            })
            .optional()
            .map_err(sql)
    }

    /// Forgets every file and chunk (keeping the vectors, which unchanged chunk texts find
    /// again) and records `chunker`, in one transaction: the next walk re-chunks every file.
    pub fn rechunk(&mut self, chunker: &str) -> Result<(), IndexError> {
        let transaction = self.connection.transaction().map_err(sql)?;
        transaction
            .execute_batch(
                "DELETE FROM chunk_terms; DELETE FROM chunks; DELETE FROM files;
                 UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';",
            )
            .map_err(sql)?;
        transaction
            .execute(
                "INSERT INTO meta(key, value) VALUES ('chunker', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = ?1",
                [chunker],
            )
            .map_err(sql)?;
        transaction.commit().map_err(sql)
    }

    /// The generation: bumped by every change, so caches know when to reload.
    pub fn generation(&self) -> Result<i64, IndexError> {
        self.connection
            .query_row(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'",
                [],
                |row| row.get(0),
            )
            .map_err(sql)
    }

    /// Number of chunks.
    pub fn chunk_count(&self) -> Result<usize, IndexError> {
        self.connection
            .query_row("SELECT COUNT(*) FROM chunks", [], |row| {
                row.get::<_, i64>(0)
            })
            .map(|count| count.max(0) as usize)
            .map_err(sql)
    }

    /// Distinct chunk texts (hash, text to embed: the context lines, then the text) that have no
    /// vector for `model`.
    pub fn pending_embeddings(&self, model: &str) -> Result<Vec<(String, String)>, IndexError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT c.hash, MIN(CASE c.context WHEN '' THEN c.text
                     ELSE c.context || char(10) || c.text END) FROM chunks c
                 LEFT JOIN vectors v ON v.model = ?1 AND v.hash = c.hash
                 WHERE v.hash IS NULL GROUP BY c.hash",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map([model], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// `(chunks with a vector for model, chunks)`.
    pub fn embedding_counts(&self, model: &str) -> Result<(usize, usize), IndexError> {
        self.connection
            .query_row(
                "SELECT COUNT(v.hash), COUNT(*) FROM chunks c
                 LEFT JOIN vectors v ON v.model = ?1 AND v.hash = c.hash",
                [model],
                |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)),
            )
            .map(|(embedded, total)| (embedded.max(0) as usize, total.max(0) as usize))
            .map_err(sql)
    }

    /// Stores vectors for `model` in one transaction and drops vectors no chunk uses any more.
    pub fn put_vectors(
        &mut self,
        model: &str,
        vectors: &[(String, QuantizedVector)],
    ) -> Result<(), IndexError> {
        let transaction = self.connection.transaction().map_err(sql)?;
        {
            let mut insert = transaction
                .prepare(
                    "INSERT OR REPLACE INTO vectors(model, hash, dim, scale, data) VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql)?;
            for (hash, vector) in vectors {
                let bytes: Vec<u8> = vector.values.iter().map(|value| *value as u8).collect();
                insert
                    .execute(params![
                        model,
                        hash,
                        vector.values.len() as i64,
                        f64::from(vector.scale),
                        bytes
                    ])
                    .map_err(sql)?;
            }
            transaction
                .execute(
                    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'",
                    [],
                )
                .map_err(sql)?;
        }
        transaction.commit().map_err(sql)
    }

    /// Removes vectors whose text no chunk has any more.
    pub fn collect_vector_garbage(&self) -> Result<(), IndexError> {
        self.connection
            .execute(
                "DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM chunks)",
                [],
            )
            .map(|_| ())
            .map_err(sql)
    }

    /// Every chunk id with its vector for `model` (chunks without one are left out).
    pub fn vectors(&self, model: &str) -> Result<Vec<(i64, QuantizedVector)>, IndexError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT c.id, v.scale, v.data FROM chunks c
                 JOIN vectors v ON v.model = ?1 AND v.hash = c.hash ORDER BY c.id",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map([model], |row| {
                let scale: f64 = row.get(1)?;
                let data: Vec<u8> = row.get(2)?;
                Ok((
                    row.get::<_, i64>(0)?,
                    QuantizedVector {
                        scale: scale as f32,
                        values: data.into_iter().map(|byte| byte as i8).collect(),
                    },
                ))
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// BM25 search: the best `limit` chunk ids for an FTS5 match expression, with scores where
    /// higher is better.
    pub fn lexical(&self, expression: &str, limit: usize) -> Result<Vec<(i64, f64)>, IndexError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT rowid, bm25(chunk_terms) AS rank FROM chunk_terms
                 WHERE chunk_terms MATCH ?1 ORDER BY rank LIMIT ?2",
            )
            .map_err(sql)?;
        let rows = statement
            .query_map(params![expression, limit as i64], |row| {
                Ok((row.get::<_, i64>(0)?, -row.get::<_, f64>(1)?))
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    /// The chunks with these ids.
    pub fn chunks(&self, ids: &[i64]) -> Result<HashMap<i64, StoredChunk>, IndexError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT id, path, start_line, end_line, text FROM chunks WHERE id = ?1")
            .map_err(sql)?;
        let mut out = HashMap::new();
        for id in ids {
            let chunk = statement
                .query_row([id], |row| {
                    Ok(StoredChunk {
                        id: row.get(0)?,
                        path: row.get(1)?,
                        start_line: row.get::<_, i64>(2)?.max(0) as usize,
                        end_line: row.get::<_, i64>(3)?.max(0) as usize,
                        text: row.get(4)?,
                    })
                })
                .optional()
                .map_err(sql)?;
            if let Some(chunk) = chunk {
                out.insert(*id, chunk);
            }
        }
        Ok(out)
    }

    /// Paths of every chunk id (for glob filtering of vector candidates).
    pub fn chunk_paths(&self) -> Result<HashMap<i64, String>, IndexError> {
        let mut statement = self
            .connection
            .prepare("SELECT id, path FROM chunks")
            .map_err(sql)?;
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }
}

/// The key of a chunk's vector: the SHA-1 of what is embedded (the context lines, then the
/// text), so an unchanged chunk keeps its vector across refreshes.
pub fn chunk_hash(chunk: &Chunk) -> String {
    let mut hash = sha1_smol::Sha1::new();
    if !chunk.context.is_empty() {
        hash.update(chunk.context.as_bytes());
        hash.update(b"\n");
    }
    hash.update(chunk.text.as_bytes());
    hash.digest().to_string()
}

fn sql(error: rusqlite::Error) -> IndexError {
    IndexError::Store(error.to_string())
}
