// Copies the committed protocol bindings into the package, where the client's sources import them.
//
// The bindings are committed once, under `schemas/` at the repository root:
// - `schemas/typescript/` (the stable surface) becomes `src/generated/`;
// - `schemas/typescript-experimental/` (the experimental superset) becomes `src/generated-experimental/`.
// Both copies are build outputs (git ignores them): `npm run build` (and so `npm test` and `npm pack`)
// runs this first. Regenerating `schemas/` itself is the server binary's job; see `docs/clients.md`.
//
// Usage: node scripts/generate.mjs
import { cpSync, existsSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const copies = [
  [resolve(packageRoot, "../../schemas/typescript"), join(packageRoot, "src/generated")],
  [resolve(packageRoot, "../../schemas/typescript-experimental"), join(packageRoot, "src/generated-experimental")],
];

for (const [from] of copies) {
  if (!existsSync(from)) {
    console.error(`error: ${from} does not exist; build the package from a checkout of the Tandem repository`);
    process.exit(1);
  }
}
for (const [from, to] of copies) {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
}
