// Regenerates the protocol bindings that type the client.
//
// - `src/generated/` is a verbatim copy of the committed stable bindings in `../../schemas/typescript/`.
// - `src/generated-experimental/` is the experimental surface, which is not committed under `schemas/`,
//   so it is written by the server binary itself (`tandem app-server generate-ts --experimental`).
//   The binary is `$TANDEM_BIN`, default `../../target/debug/tandem` (build it with `cargo build --bins`).
//
// Usage: node scripts/generate.mjs
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const schemas = resolve(packageRoot, "../../schemas/typescript");
const stableOut = join(packageRoot, "src/generated");
const experimentalOut = join(packageRoot, "src/generated-experimental");
const binary = resolve(packageRoot, process.env.TANDEM_BIN ?? "../../target/debug/tandem");

if (!existsSync(schemas)) {
  console.error(`error: ${schemas} does not exist; run this from a checkout of the Tandem repository`);
  process.exit(1);
}
if (!existsSync(binary)) {
  console.error(`error: ${binary} does not exist; build it with \`cargo build --bins\` or set TANDEM_BIN`);
  process.exit(1);
}

rmSync(stableOut, { recursive: true, force: true });
cpSync(schemas, stableOut, { recursive: true });
console.log(`copied ${schemas} -> src/generated/`);

// Generate into a scratch directory first so that a failing binary leaves the old copy in place.
const scratch = mkdtempSync(join(tmpdir(), "tandem-generate-"));
try {
  execFileSync(binary, ["app-server", "generate-ts", "--experimental", "--out", scratch], { stdio: "inherit" });
  rmSync(experimentalOut, { recursive: true, force: true });
  cpSync(scratch, experimentalOut, { recursive: true });
  console.log(`generated ${binary} app-server generate-ts --experimental -> src/generated-experimental/`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
