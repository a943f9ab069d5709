// Builds the web client into the server's embedded files, app-server/src/listener/web/, which are
// committed: the binary embeds them (`include_str!`), so building Tandem needs no Node.
//
// 1. copies the committed protocol bindings (schemas/typescript*) into src/generated*/ (git ignores
//    them; the page imports their types only, so no generated code reaches the browser);
// 2. compiles src/*.ts with tsc into build/;
// 3. writes static/* and build/{app,rpc,render,dialogs}.js into app-server/src/listener/web/, or with
//    `--check` fails when the committed files differ from what the sources build.
//
// Usage: node scripts/build.mjs [--check]
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repository = resolve(root, "../..");
const target = join(repository, "app-server/src/listener/web");
const check = process.argv.includes("--check");

for (const [from, to] of [
  ["schemas/typescript", "src/generated"],
  ["schemas/typescript-experimental", "src/generated-experimental"],
]) {
  rmSync(join(root, to), { recursive: true, force: true });
  cpSync(join(repository, from), join(root, to), { recursive: true });
}
rmSync(join(root, "build"), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.json")], {
  stdio: "inherit",
});

const HEADER = "// GENERATED from clients/web/src by clients/web/scripts/build.mjs; do not edit.\n";
const outputs = new Map([
  ["index.html", readFileSync(join(root, "static/index.html"), "utf8")],
  ["app.css", readFileSync(join(root, "static/app.css"), "utf8")],
]);
for (const name of ["app", "rpc", "render", "dialogs"]) {
  outputs.set(`${name}.js`, HEADER + readFileSync(join(root, "build", `${name}.js`), "utf8"));
}

const stale = [];
let bytes = 0;
for (const [name, text] of outputs) {
  const path = join(target, name);
  bytes += Buffer.byteLength(text);
  if (check) {
    if (!existsSync(path) || readFileSync(path, "utf8") !== text) stale.push(name);
  } else {
    writeFileSync(path, text);
  }
}
if (stale.length > 0) {
  console.error(
    `app-server/src/listener/web/ is stale (${stale.join(", ")}): run \`npm run build\` in clients/web and commit the result`,
  );
  process.exit(1);
}
console.log(`web client: ${outputs.size} files, ${bytes} bytes${check ? ", up to date" : " written"}`);
