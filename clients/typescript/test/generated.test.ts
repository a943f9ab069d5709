// The bindings that type the client are current: `src/generated/` is a copy of the committed
// `schemas/typescript/`, and `src/generated-experimental/` is what the binary generates with
// `--experimental`. Regenerate both with `npm run generate`.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";
import { packageRoot, tandemBin } from "./helpers.js";

/** Every file under `root`, as relative path → contents. */
function tree(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  walk(root);
  return files;
}

/** The names of the files that differ between two trees (missing on either side included). */
function differences(expected: Map<string, string>, actual: Map<string, string>): string[] {
  const names = new Set([...expected.keys(), ...actual.keys()]);
  return [...names].filter((name) => expected.get(name) !== actual.get(name)).sort();
}

const hint = "stale bindings; regenerate with `cd clients/typescript && npm run generate`";

test("src/generated/ is the committed schemas/typescript/", () => {
  const schemas = resolve(packageRoot, "../../schemas/typescript");
  assert.deepEqual(differences(tree(schemas), tree(join(packageRoot, "src/generated"))), [], hint);
});

test("src/generated-experimental/ is what the binary generates with --experimental", (t) => {
  const scratch = mkdtempSync(join(tmpdir(), "tandem-generate-"));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  execFileSync(tandemBin, ["app-server", "generate-ts", "--experimental", "--out", scratch]);
  const expected = tree(scratch);
  assert.ok(expected.has("ServerRequest.ts"));
  assert.deepEqual(differences(expected, tree(join(packageRoot, "src/generated-experimental"))), [], hint);
});
