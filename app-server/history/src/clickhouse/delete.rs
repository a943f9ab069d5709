//! Removing events from ClickHouse: the rows of one rollout file (a truncated or rewritten
//! file, re-ingested from its start) and every event of one session (a deleted thread).
//!
//! The statistics tables are `SummingMergeTree`s, so a removal is written as negative rows:
//! the document frequency of each term, the corpus and each owner's count go down by what the
//! removed rows held.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::ClickHouseBackend;
use super::values::{int, quote, string};
use crate::backend::HistoryError;

/// What the rows of one file held, to be subtracted from the statistics.
#[derive(Default)]
pub(super) struct Removed {
    /// Postings per term.
    df: HashMap<String, i64>,
    /// Events.
    docs: i64,
    /// Their total length in terms.
    total_len: i64,
    /// Events per owner.
    owner_docs: HashMap<String, i64>,
}

impl Removed {
    /// Subtracts this removal from a batch's deltas.
    pub(super) fn add_to(
        self,
        df: &mut HashMap<String, i64>,
        docs: &mut i64,
        total_len: &mut i64,
        owner_docs: &mut HashMap<String, i64>,
    ) {
        for (term, count) in self.df {
            *df.entry(term).or_insert(0) -= count;
        }
        *docs -= self.docs;
        *total_len -= self.total_len;
        for (owner, count) in self.owner_docs {
            *owner_docs.entry(owner).or_insert(0) -= count;
        }
    }
}

impl ClickHouseBackend {
    /// Deletes the events, hit rows and postings of file `file` (its `file_id`) and returns
    /// what they held.
    pub(super) fn remove_file(&self, file: u64) -> Result<Removed, HistoryError> {
        let mut removed = Removed::default();
        for row in self.rows(&format!(
            "SELECT term, count() FROM {} WHERE file_id = {file} GROUP BY term",
            self.table("postings")
        ))? {
            let term = string(row.first().unwrap_or(&Value::Null));
            *removed.df.entry(term).or_insert(0) += int(row.get(1).unwrap_or(&Value::Null));
        }
        for row in self.rows(&format!(
            "SELECT owner, count(), sum(length) FROM {} WHERE file_id = {file} GROUP BY owner",
            self.table("events")
        ))? {
            let count = int(row.get(1).unwrap_or(&Value::Null));
            *removed
                .owner_docs
                .entry(string(row.first().unwrap_or(&Value::Null)))
                .or_insert(0) += count;
            removed.docs += count;
            removed.total_len += int(row.get(2).unwrap_or(&Value::Null));
        }
        for table in ["events", "hit_rows", "postings"] {
            self.execute(
                &format!(
                    "ALTER TABLE {} DELETE WHERE file_id = {file}",
                    self.table(table)
                ),
                None,
            )?;
        }
        Ok(removed)
    }

    /// Deletes every event of session `session_id` (each rollout file holds one session, so
    /// this is the removal of its files), writes the negative statistics and forgets the
    /// files' ingestion state. Returns how many events went.
    pub(super) fn delete_session_rows(&self, session_id: &str) -> Result<u64, HistoryError> {
        let files = self.rows(&format!(
            "SELECT file_id, any(source_path), count() FROM {} WHERE session_id = {} GROUP BY file_id",
            self.table("events"),
            quote(session_id)
        ))?;
        let mut df = HashMap::new();
        let (mut docs, mut total_len) = (0i64, 0i64);
        let mut owner_docs = HashMap::new();
        let mut paths = Vec::new();
        let mut events = 0u64;
        for row in &files {
            let file = int(row.first().unwrap_or(&Value::Null)) as u64;
            paths.push(quote(&string(row.get(1).unwrap_or(&Value::Null))));
            events += int(row.get(2).unwrap_or(&Value::Null)).max(0) as u64;
            self.remove_file(file)?
                .add_to(&mut df, &mut docs, &mut total_len, &mut owner_docs);
        }
        if paths.is_empty() {
            return Ok(0);
        }
        let df_rows: Vec<Value> = df
            .into_iter()
            .filter(|(_, delta)| *delta != 0)
            .map(|(term, delta)| json!({"term": term, "df": delta}))
            .collect();
        self.insert("term_df", &df_rows)?;
        self.insert(
            "corpus",
            &[json!({"id": 0, "docs": docs, "total_len": total_len})],
        )?;
        let owner_rows: Vec<Value> = owner_docs
            .into_iter()
            .filter(|(_, delta)| *delta != 0)
            .map(|(owner, delta)| json!({"owner": owner, "docs": delta}))
            .collect();
        self.insert("owner_docs", &owner_rows)?;
        self.execute(
            &format!(
                "ALTER TABLE {} DELETE WHERE path IN ({})",
                self.table("files"),
                paths.join(", ")
            ),
            None,
        )?;
        Ok(events)
    }
}
