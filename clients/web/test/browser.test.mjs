// The web client in a real headless Chromium (Debian's `chromium`, driven by playwright-core) against
// a real `tandem app-server --listen ws://127.0.0.1:0 --web` with the demo provider: a turn streams,
// a command is approved by a click, the file change shows as a diff, a reload resumes the thread with
// nothing lost; a page without the token, with a wrong one, or on another origin is refused.
//
// The server is $TANDEM_BIN (default target/debug/tandem), the browser $CHROMIUM (default
// /usr/bin/chromium). With TANDEM_WEB_SCREENSHOT=PATH the finished turn is saved there as a PNG
// (docs/web-client.png is made so).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";

const repository = resolve(import.meta.dirname, "../../..");
const tandem = process.env.TANDEM_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(repository, "target"), "debug/tandem");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const WAIT_MS = 20_000;

let scratch;
let server;
let pageUrl;
let origin;
let token;
let context;
let stderr = "";

/** Starts the server and waits for the page's URL on its stderr. */
function startServer(home, workspace, tokenFile) {
  const child = spawn(
    tandem,
    ["app-server", "-c", 'model_provider="demo"', "--listen", "ws://127.0.0.1:0", "--web", "--ws-token-file", tokenFile],
    { cwd: workspace, env: { ...process.env, TANDEM_HOME: home, RUST_LOG: "warn" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  return new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server printed no page URL:\n${stderr}`)), WAIT_MS);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /tandem app-server web client at (\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolveUrl({ child, url: match[1] });
      }
    });
    child.on("exit", (code) => reject(new Error(`the server exited (${code}):\n${stderr}`)));
  });
}

before(async () => {
  assert.ok(existsSync(tandem), `no server binary at ${tandem}: run \`cargo build --bins\` or set TANDEM_BIN`);
  assert.ok(existsSync(chromiumPath), `no browser at ${chromiumPath}: install Debian's chromium or set CHROMIUM`);
  scratch = mkdtempSync(join(tmpdir(), "tandem-web-"));
  const home = join(scratch, "home");
  const workspace = join(scratch, "workspace");
  mkdirSync(home);
  mkdirSync(workspace);
  token = randomBytes(24).toString("hex");
  const tokenFile = join(scratch, "token");
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const started = await startServer(home, workspace, tokenFile);
  server = started.child;
  pageUrl = started.url;
  origin = new URL(pageUrl).origin;
  assert.equal(pageUrl, `${origin}/#token=${token}`, "the printed URL carries the token in its fragment");
  context = await chromium.launchPersistentContext(join(scratch, "profile"), {
    executablePath: chromiumPath,
    args: FLAGS,
    headless: true,
    viewport: { width: 1100, height: 900 },
  });
  context.setDefaultTimeout(WAIT_MS);
});

after(async () => {
  await context?.close();
  server?.kill("SIGTERM");
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Waits until one of the locators is visible; the others' waits end quietly. */
async function firstOf(...locators) {
  const waits = locators.map((locator) => locator.waitFor());
  for (const wait of waits) wait.catch(() => {});
  await Promise.race(waits);
}

/** The thread's items as shown: id, kind and text. */
function shownItems(page) {
  return page.$$eval("#items [data-item-id]", (elements) =>
    elements.map((element) => ({ id: element.dataset.itemId, kind: element.className, text: element.textContent })),
  );
}

test("a turn streams, a command is approved by a click, the diff shows, and a reload resumes the thread", async () => {
  const page = await context.newPage();
  await page.goto(pageUrl);
  await page.locator('body[data-connection="open"]').waitFor();
  await page.getByRole("button", { name: "New thread" }).click();
  const prompt = page.getByLabel("Message (Ctrl+Enter sends)");
  await prompt.waitFor({ state: "visible" });
  await assert.doesNotReject(page.waitForFunction(() => !document.querySelector("#prompt").disabled));
  await prompt.fill("Show me what you can do");
  await page.getByRole("button", { name: "Send" }).click();

  // The command waits for a click.
  const command = page.locator('form.dialog[data-method="item/commandExecution/requestApproval"]');
  await command.waitFor();
  assert.match(await command.textContent(), /uname -srm/);
  await command.getByRole("button", { name: "Accept", exact: true }).click();

  // The file change is applied, after an approval when the policy asks for one.
  const patch = page.locator('form.dialog[data-method="item/fileChange/requestApproval"]');
  const fileChange = page.locator("section.file-change.completed");
  await firstOf(patch, fileChange);
  if (await patch.count()) {
    // A new question takes the focus, so the keyboard alone answers it.
    await page.waitForFunction(() => document.activeElement?.closest("form.dialog:not(.answered)") !== null);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Accept");
    await page.keyboard.press("Enter");
  }
  await page.getByRole("status").filter({ hasText: "Turn completed." }).waitFor();

  // The answer arrived in deltas and was drawn as each came.
  const agent = page.locator("section.item.agent").last();
  assert.ok(Number(await agent.getAttribute("data-deltas")) > 1, "the agent's text was streamed in several deltas");
  assert.match(await agent.textContent(), /tandem-demo\.txt/);
  assert.match(await page.locator("section.command.completed").textContent(), /uname -srm/);
  assert.match(await fileChange.locator(".path").textContent(), /add .*tandem-demo\.txt/);
  assert.match(await fileChange.locator(".diff .add").first().textContent(), /Hello from the Tandem demo\./);
  assert.equal(await page.locator("details.reasoning").first().getAttribute("open"), null, "reasoning is folded");
  assert.ok(await page.locator("section.plan li").count() >= 3, "the plan is drawn");
  if (process.env.TANDEM_WEB_SCREENSHOT) {
    await page.screenshot({ path: process.env.TANDEM_WEB_SCREENSHOT, fullPage: true });
  }

  const before = await shownItems(page);
  assert.ok(before.length >= 5, `items shown: ${before.length}`);
  assert.match(page.url(), /#token=[0-9a-f]+&thread=/);
  await page.reload();
  await page.getByRole("status").filter({ hasText: "Thread resumed." }).waitFor();
  assert.deepEqual(await shownItems(page), before, "the resumed thread shows the same items");
  await assert.doesNotReject(page.getByRole("button", { name: /Show me what you can do/ }).waitFor());

  // On a narrow window the same thread fits without scrolling sideways.
  await page.setViewportSize({ width: 360, height: 740 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than a 360 px window`);
  await page.close();
});

test("in plan mode the questionnaires are answered with the page's forms", async () => {
  const page = await context.newPage();
  await page.goto(pageUrl);
  await page.locator('body[data-connection="open"]').waitFor();
  await page.getByRole("button", { name: "New thread" }).click();
  await page.waitForFunction(() => !document.querySelector("#prompt").disabled);
  await page.getByLabel("Message (Ctrl+Enter sends)").fill("Plan something");
  await page.getByLabel(/Plan mode/).check();
  await page.getByLabel("Message (Ctrl+Enter sends)").press("Control+Enter");

  // Whatever the approvals the plan-mode tour asks, the first offered answer is taken.
  const open = page.locator("form.dialog:not(.answered)");
  const answered = [];
  while (true) {
    await firstOf(open.first(), page.getByRole("status").filter({ hasText: "Turn completed." }));
    if ((await open.count()) === 0) break;
    const dialog = open.first();
    const method = await dialog.getAttribute("data-method");
    answered.push(method);
    if (method === "item/tool/requestUserInput") {
      await dialog.getByLabel("Explain").check();
    } else if (method === "agent/askUserQuestion") {
      await dialog.getByLabel("The plan").check();
      await dialog.getByLabel("The patch").check();
      await dialog.getByLabel("Other").fill("the diff");
      await dialog.getByLabel("Yes").check();
    } else if (method === "agent/requestUserInput") {
      await dialog.getByLabel("Answer").fill("all good");
    } else {
      await dialog.getByRole("button", { name: "Accept for session" }).click();
      continue;
    }
    await dialog.getByRole("button", { name: "Send answers" }).click();
  }
  assert.deepEqual(
    answered.filter((method) => !method.includes("Approval")),
    ["item/tool/requestUserInput", "agent/askUserQuestion", "agent/requestUserInput"],
  );
  const summary = await page.locator("section.item.agent").last().textContent();
  assert.match(summary, /Explain/);
  assert.match(summary, /The plan/);
  assert.match(summary, /the diff/);
  assert.match(summary, /all good/);
  await page.close();
});

test("a page without the token, or with a wrong one, is refused with the reason", async () => {
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.getByRole("status").filter({ hasText: "missing websocket bearer token" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "New thread" }).isDisabled(), true);
  await page.goto(`${origin}/#token=${"0".repeat(48)}`);
  await page.reload();
  await page.getByRole("status").filter({ hasText: "invalid websocket bearer token" }).waitFor();
  await page.close();
});

test("a page on another origin cannot connect, even with the token", async () => {
  const other = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>elsewhere</title>");
  });
  await new Promise((ready) => other.listen(0, "127.0.0.1", ready));
  try {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${other.address().port}/`);
    const outcome = await page.evaluate(
      ([url, secret]) =>
        new Promise((settle) => {
          const socket = new WebSocket(url);
          socket.onopen = () => {
            socket.send(JSON.stringify({ type: "authenticate", token: secret }));
            settle("open");
          };
          socket.onclose = (event) => settle(`closed ${event.code}`);
        }),
      [`ws://${new URL(origin).host}/`, token],
    );
    assert.equal(outcome, "closed 1006", "the upgrade is refused (403) before any frame");
    await page.close();
  } finally {
    other.close();
  }
});
