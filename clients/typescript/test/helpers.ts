// Shared test fixtures: the real binary with a fresh home per test.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { AppServerClient } from "../src/index.js";
import type { ExperimentalProtocol, SpawnOptions, StableProtocol } from "../src/index.js";

/** The package root (tests run from `dist/test/`). */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The server binary under test: `$TANDEM_BIN`, default `../../target/debug/tandem` from the package. */
export const tandemBin = resolve(packageRoot, process.env.TANDEM_BIN ?? "../../target/debug/tandem");

/** A fresh `TANDEM_HOME` (demo provider, `untrusted` approvals) and an empty workspace directory. */
export interface DemoHome {
  /** The `TANDEM_HOME` directory. */
  home: string;
  /** The directory threads run in. */
  workspace: string;
}

/** The servers spawned on each home, closed before the home is removed (a server still running
 * writes into its home, for example the history index after a turn). */
const serversOf = new WeakMap<DemoHome, Set<{ close(): Promise<unknown> }>>();

/** Creates a {@link DemoHome} that is removed when the test ends, after its servers exit. */
export function demoHome(t: TestContext): DemoHome {
  const root = mkdtempSync(join(tmpdir(), "tandem-client-test-"));
  const home = join(root, "home");
  const workspace = join(root, "workspace");
  mkdirSync(home);
  mkdirSync(workspace);
  writeFileSync(join(home, "config.toml"), 'model_provider = "demo"\napproval_policy = "untrusted"\n');
  const demo = { home, workspace };
  const servers = new Set<{ close(): Promise<unknown> }>();
  serversOf.set(demo, servers);
  t.after(async () => {
    await Promise.all([...servers].map((server) => server.close()));
    rmSync(root, { recursive: true, force: true });
  });
  return demo;
}

/** The spawn options of the real server on `home`. */
export function spawnOptions(home: DemoHome): SpawnOptions {
  return {
    command: [tandemBin, "app-server"],
    env: { TANDEM_HOME: home.home },
    cwd: home.workspace,
    clientInfo: { name: "tandem_client_tests", title: null, version: "0.0.0" },
    // Server logs only when asked for, as in the Rust tests.
    stderr: process.env.TANDEM_TEST_LOG === undefined ? "ignore" : "inherit",
  };
}

/** Closes `client` when the test ends, and before `home` is removed (a server still running
 * writes into its home, and a removal racing it fails the test). */
export function closeWithHome<C extends { close(): Promise<unknown> }>(t: TestContext, home: DemoHome, client: C): C {
  serversOf.get(home)?.add(client);
  t.after(() => client.close());
  return client;
}

/** Spawns the real server on `home` with the stable surface; it is closed when the test ends. */
export async function spawnStable(t: TestContext, home: DemoHome): Promise<AppServerClient<StableProtocol>> {
  return closeWithHome(t, home, await AppServerClient.spawn(spawnOptions(home)));
}

/** Spawns the real server on `home` with `experimentalApi: true`; it is closed when the test ends. */
export async function spawnExperimental(
  t: TestContext,
  home: DemoHome,
): Promise<AppServerClient<ExperimentalProtocol>> {
  const client = await AppServerClient.spawn({ ...spawnOptions(home), capabilities: { experimentalApi: true } });
  return closeWithHome(t, home, client);
}

/** Settles like `promise`, or rejects after `ms` with an error naming `what`. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A real server started with `--listen`. */
export interface Listener {
  /** The address it printed: `ws://127.0.0.1:PORT` or `unix:///path`. */
  url: string;
  /** The token of its `--ws-token-file`, for a `ws://` listener. */
  token: string | undefined;
  /** Kills the server with `signal`. */
  kill(signal: NodeJS.Signals): void;
}

/** How the server announces a listener's address on stderr. */
const LISTENING = "tandem app-server listening on ";

/**
 * Starts the real server on `home` with `--listen`: `ws` on `127.0.0.1:0` with a fresh token in a
 * `--ws-token-file`, or `unix` on a socket in a short temporary directory (Unix socket paths are
 * limited to 107 bytes). The address comes from its stderr; it is stopped (SIGTERM) when the test
 * ends, before the home is removed.
 */
export async function startListener(t: TestContext, home: DemoHome, kind: "ws" | "unix"): Promise<Listener> {
  let args: string[];
  let token: string | undefined;
  if (kind === "ws") {
    token = randomBytes(32).toString("hex");
    const tokenFile = join(home.home, "ws.token");
    writeFileSync(tokenFile, `${token}\n`);
    args = ["--listen", "ws://127.0.0.1:0", "--ws-token-file", tokenFile];
  } else {
    const directory = mkdtempSync(join(tmpdir(), "tandem-sock-"));
    t.after(() => rmSync(directory, { recursive: true, force: true }));
    args = ["--listen", `unix://${join(directory, "app-server.sock")}`];
  }
  const child = spawn(tandemBin, ["app-server", ...args], {
    cwd: home.workspace,
    env: { ...process.env, TANDEM_HOME: home.home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  closeWithHome(t, home, {
    close: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  });
  const log: string[] = [];
  const url = await within(
    20_000,
    `the server listening on ${kind}`,
    new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stderr });
      lines.on("line", (line) => {
        if (process.env.TANDEM_TEST_LOG !== undefined) process.stderr.write(`server: ${line}\n`);
        log.push(line);
        if (line.startsWith(LISTENING)) resolve(line.slice(LISTENING.length).trim());
      });
      void exited.then(() => reject(new Error(`the server exited before listening:\n${log.join("\n")}`)));
    }),
  );
  return { url, token, kill: (signal) => child.kill(signal) };
}
