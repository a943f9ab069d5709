// Adds `.js` to extensionless relative imports in emitted declaration files.
//
// The generated bindings import each other as `"./Thread"`, which the `Bundler` resolution used to
// compile this package accepts; consumers compiling with `NodeNext` resolution need `"./Thread.js"`,
// or the types silently degrade to `any` under `skipLibCheck`. The `.js` emit itself is unaffected
// because those imports are type-only and erased.
//
// Usage: node scripts/fix-declaration-imports.mjs DIR
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2];
if (root === undefined) {
  console.error("usage: node scripts/fix-declaration-imports.mjs DIR");
  process.exit(2);
}

const specifier = /(\bfrom\s+|\bimport\s*\(\s*)(["'])(\.{1,2}\/[^"']*?)\2/g;

/** Returns `path` with `.js` appended unless it already names a file with an extension. */
function withExtension(path) {
  return /\.(js|mjs|cjs|json)$/.test(path) ? path : `${path}.js`;
}

let changed = 0;
for (const file of walk(root)) {
  if (!file.endsWith(".d.ts")) continue;
  const before = readFileSync(file, "utf8");
  const after = before.replace(specifier, (_, head, quote, path) => `${head}${quote}${withExtension(path)}${quote}`);
  if (after !== before) {
    writeFileSync(file, after);
    changed += 1;
  }
}
if (changed > 0) console.log(`fix-declaration-imports: rewrote ${changed} declaration files`);

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
