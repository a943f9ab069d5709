// The experimental project-index methods through the typed client: indexRefresh with progress, indexQuery.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { demoHome, spawnExperimental } from "./helpers.js";

test("indexRefresh reports progress and indexQuery finds the snippet", { timeout: 60_000 }, async (t) => {
  const home = demoHome(t);
  writeFileSync(join(home.home, "config.toml"), 'model_provider = "demo"\n[query_project_index]\nauto_warm = false\nembedding_model = "none"\n');
  mkdirSync(join(home.workspace, "src"));
  writeFileSync(join(home.workspace, "src", "auth.rs"), "pub fn check_bearer_token(header: &str) -> bool {\n    header.starts_with(\"Bearer \")\n}\n");
  writeFileSync(join(home.workspace, "notes.md"), "# Notes\n\nNothing about tokens here.\n");
  const client = await spawnExperimental(t, home);

  const progress: unknown[] = [];
  const refreshed = await client.indexRefresh({ repoRoot: null, fileGlobs: null, requireEmbeddings: null, forceFull: true }, { onProgress: (params) => progress.push(params) });
  assert.deepEqual(refreshed.stats, { scannedFiles: 2, updatedFiles: 2, removedFiles: 0, indexedChunks: 2, skippedFiles: 0, embeddedChunks: 0 });
  assert.deepEqual(refreshed.embeddingStatus, { modeUsed: "skip", ready: false, reason: null, detail: null, progress: null });
  assert.deepEqual(progress[0], { repoRoot: home.workspace, phase: "scanning", done: 2, total: null });

  const answer = await client.indexQuery({ query: "bearer token", limit: 1, fileGlobs: null, alpha: null, repoRoot: null, embeddingModel: null });
  assert.deepEqual(answer.results.map((result) => [result.path, result.lineRange]), [["src/auth.rs", { start: 1, end: 3 }]]);
});
