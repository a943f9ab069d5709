// Config writes through the typed client: `config/value/write` and `modelProvider/list` are typed
// by the generated method map, and a key a client may not set is refused with the reference's
// error `data`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { AppServerError } from "../src/index.js";
import { demoHome, spawnStable } from "./helpers.js";

test("a config write is typed and lands in config.toml; a provider's endpoint is refused", { timeout: 60_000 }, async (t) => {
  const home = demoHome(t);
  const client = await spawnStable(t, home);
  const written = await client.request("config/value/write", {
    keyPath: "model_reasoning_effort",
    value: "high",
    mergeStrategy: "replace",
  });
  assert.equal(written.status, "ok");
  assert.ok(written.version.startsWith("sha256:"), written.version);
  const providers = await client.request("modelProvider/list", {});
  assert.equal(providers.defaultProviderId, "demo");
  await assert.rejects(
    client.request("config/value/write", {
      keyPath: "model_providers.demo.base_url",
      value: "http://elsewhere",
      mergeStrategy: "replace",
    }),
    (error: unknown) =>
      error instanceof AppServerError &&
      JSON.stringify(error.data) === JSON.stringify({ config_write_error_code: "configKeyRefused" }),
  );
  const text = readFileSync(join(home.home, "config.toml"), "utf8");
  assert.ok(text.includes('model_reasoning_effort = "high"'), text);
  assert.ok(!text.includes("elsewhere"), text);
});
