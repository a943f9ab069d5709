// Shared test fixtures: the real binary with a fresh home per test, and an in-memory fake server
// for the transport tests that need exact control over the bytes.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { AppServerClient, LineDecoder } from "../src/index.js";
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

/** Creates a {@link DemoHome} that is removed when the test ends. */
export function demoHome(t: TestContext): DemoHome {
  const root = mkdtempSync(join(tmpdir(), "tandem-client-test-"));
  const home = join(root, "home");
  const workspace = join(root, "workspace");
  mkdirSync(home);
  mkdirSync(workspace);
  writeFileSync(join(home, "config.toml"), 'model_provider = "demo"\napproval_policy = "untrusted"\n');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return { home, workspace };
}

function spawnOptions(home: DemoHome): SpawnOptions {
  return {
    command: [tandemBin, "app-server"],
    env: { TANDEM_HOME: home.home },
    cwd: home.workspace,
    clientInfo: { name: "tandem_client_tests", title: null, version: "0.0.0" },
    // Server logs only when asked for, as in the Rust tests.
    stderr: process.env.TANDEM_TEST_LOG === undefined ? "ignore" : "inherit",
  };
}

/** Spawns the real server on `home` with the stable surface; it is closed when the test ends. */
export async function spawnStable(t: TestContext, home: DemoHome): Promise<AppServerClient<StableProtocol>> {
  const client = await AppServerClient.spawn(spawnOptions(home));
  t.after(() => client.close());
  return client;
}

/** Spawns the real server on `home` with `experimentalApi: true`; it is closed when the test ends. */
export async function spawnExperimental(
  t: TestContext,
  home: DemoHome,
): Promise<AppServerClient<ExperimentalProtocol>> {
  const client = await AppServerClient.spawn({ ...spawnOptions(home), capabilities: { experimentalApi: true } });
  t.after(() => client.close());
  return client;
}

/** Settles like `promise`, or rejects after `ms` with an error naming `what`. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A scripted server on in-memory streams: the test reads what the client wrote and writes raw lines back. */
export class FakeServer {
  /** The server's output, read by the client. */
  readonly toClient = new PassThrough();
  /** The server's input, written by the client. */
  readonly fromClient = new PassThrough();
  private readonly decoder = new LineDecoder();
  private readonly received: unknown[] = [];
  private waiters: (() => void)[] = [];

  constructor() {
    this.fromClient.on("data", (chunk: Buffer) => {
      for (const line of this.decoder.push(chunk)) this.received.push(JSON.parse(line));
      const waiters = this.waiters;
      this.waiters = [];
      for (const waiter of waiters) waiter();
    });
  }

  /** Waits for the next message from the client. */
  async next(): Promise<Record<string, unknown>> {
    while (this.received.length === 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.received.shift() as Record<string, unknown>;
  }

  /** Writes raw text (one or more lines, or a fragment) to the client. */
  writeRaw(text: string | Buffer): void {
    this.toClient.write(text);
  }

  /** Writes one message as a line. */
  send(message: object): void {
    this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  /** Connects a stable client, answering the handshake; returns the client and the `initialize` params seen. */
  async connect(): Promise<{ client: AppServerClient<StableProtocol>; initialize: Record<string, unknown> }> {
    const connecting = AppServerClient.connect(this.toClient, this.fromClient);
    const initialize = await this.next();
    this.send({ id: initialize.id, result: { userAgent: "fake/0.169.0", codexHome: "/fake", platformFamily: "unix", platformOs: "linux" } });
    const client = await connecting;
    return { client, initialize };
  }
}
