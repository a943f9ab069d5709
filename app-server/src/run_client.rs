//! `tandem run`: a small terminal client of the app-server protocol.
//!
//! It spawns `tandem app-server` (this same executable) as a child process and drives it
//! through the real protocol over pipes: initialize, start a thread in the current directory,
//! run one turn, print the streamed items, and ask the person at the terminal to decide every
//! approval. It is both the quickest way to try Tandem and a readable example of a client.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a terminal client talks to the terminal"
)]

use std::io::{BufRead, IsTerminal, Write};
use std::process::{ExitCode, Stdio};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout, Command};

use crate::cli::RunArgs;
use crate::run_dialogs::{self, Asker, Reply};

/// How approvals are decided.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Decider {
    /// Ask on the terminal.
    Ask,
    /// Accept everything.
    AcceptAll,
    /// Decline everything.
    DeclineAll,
}

struct Connection {
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

impl Connection {
    async fn send(&mut self, message: &Value) -> anyhow::Result<()> {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .context("writing to the server")?;
        self.stdin.flush().await.context("writing to the server")
    }

    async fn next(&mut self) -> anyhow::Result<Value> {
        let line = self
            .stdout
            .next_line()
            .await
            .context("reading from the server")?;
        let Some(line) = line else {
            bail!("the server exited")
        };
        serde_json::from_str(&line)
            .with_context(|| format!("malformed line from the server: {line}"))
    }

    /// Sends a request and waits for its response, handling whatever arrives meanwhile.
    async fn request(
        &mut self,
        method: &str,
        params: Value,
        decider: Decider,
    ) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"id": id, "method": method, "params": params}))
            .await?;
        loop {
            let message = self.next().await?;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                if let Some(error) = message.get("error") {
                    bail!(
                        "{method} failed: {}",
                        error["message"].as_str().unwrap_or("unknown error")
                    );
                }
                return Ok(message["result"].clone());
            }
            self.handle(&message, decider).await?;
        }
    }

    /// Prints a notification or answers a server request. Returns true at `turn/completed`.
    async fn handle(&mut self, message: &Value, decider: Decider) -> anyhow::Result<bool> {
        let method = message["method"].as_str().unwrap_or_default();
        let params = &message["params"];
        if let Some(id) = message.get("id").filter(|_| !method.is_empty()) {
            let reply = match answer_server_request(method, params, decider) {
                Reply::Answer(result) => json!({"id": id, "result": result}),
                Reply::Cancel => {
                    let (code, text) = run_dialogs::CANCELLED;
                    json!({"id": id, "error": {"code": code, "message": text}})
                }
            };
            self.send(&reply).await?;
            return Ok(false);
        }
        print_notification(method, params);
        Ok(method == "turn/completed")
    }
}

/// Runs `tandem run`: `0` when the turn completed, `1` when it failed or was interrupted (its
/// error is printed). An error of the run itself (the server did not start, broke the
/// protocol, refused a request) is returned, and exits `1` as well.
pub async fn run(args: &RunArgs, overrides: &[String]) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().context("locating the tandem executable")?;
    let mut command = Command::new(exe);
    command.arg("app-server");
    for value in overrides {
        command.arg("-c").arg(value);
    }
    if args.demo {
        command.arg("-c").arg("model_provider=\"demo\"");
    }
    let decider = if args.yes {
        Decider::AcceptAll
    } else if args.no || !(args.interactive || std::io::stdin().is_terminal()) {
        Decider::DeclineAll
    } else {
        Decider::Ask
    };
    // Nobody answers free-text questions in a non-interactive run, so the model is not
    // offered them.
    if decider != Decider::Ask {
        command.arg("-c").arg("ask_user=false");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .context("starting tandem app-server")?;
    let stdin = child.stdin.take().context("server stdin")?;
    let stdout = BufReader::new(child.stdout.take().context("server stdout")?).lines();
    let mut connection = Connection {
        stdin,
        stdout,
        next_id: 1,
    };

    let init = connection
        .request(
            "initialize",
            json!({"clientInfo": {"name": "tandem_run", "title": "tandem run", "version": env!("CARGO_PKG_VERSION")}, "capabilities": {"experimentalApi": true, "requestUserInputMethod": "tool/requestUserInput"}}),
            decider,
        )
        .await?;
    connection.send(&json!({"method": "initialized"})).await?;
    println!(
        "connected: {}",
        init["userAgent"].as_str().unwrap_or_default()
    );

    let mut thread_params = json!({"cwd": std::env::current_dir()?.to_string_lossy()});
    if let Some(policy) = &args.approval_policy {
        thread_params["approvalPolicy"] = json!(policy);
    }
    if let Some(sandbox) = &args.sandbox {
        thread_params["sandbox"] = json!(sandbox);
    }
    let thread = connection
        .request("thread/start", thread_params, decider)
        .await?;
    let thread_id = thread["thread"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    println!(
        "thread {thread_id} · model {} via {} · approvals {} · sandbox {}",
        thread["model"].as_str().unwrap_or("?"),
        thread["modelProvider"].as_str().unwrap_or("?"),
        thread["approvalPolicy"],
        thread["sandbox"]["type"].as_str().unwrap_or("?"),
    );
    let mut turn_params =
        json!({"threadId": thread_id, "input": [{"type": "text", "text": args.prompt}]});
    if args.plan {
        turn_params["collaborationMode"] =
            json!({"mode": "plan", "settings": {"model": thread["model"]}});
    }
    connection
        .request("turn/start", turn_params, decider)
        .await?;
    let completed = loop {
        let message = connection.next().await?;
        if connection.handle(&message, decider).await? {
            break message["params"]["turn"]["status"] == "completed";
        }
    };
    drop(connection);
    let _ = child.wait().await;
    Ok(if completed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Prints a turn error: its message, then the provider's own words (`additionalDetails`, e.g.
/// the body of a 5xx) when the message does not already quote them.
fn print_turn_error(prefix: &str, error: &Value) {
    let message = error["message"].as_str().unwrap_or_default();
    println!("{prefix}{message}");
    if let Some(details) = error["additionalDetails"]
        .as_str()
        .map(str::trim)
        .filter(|details| !details.is_empty() && !message.contains(details))
    {
        for line in details.lines() {
            println!("  {line}");
        }
    }
}

fn print_notification(method: &str, params: &Value) {
    let mut out = std::io::stdout();
    match method {
        "item/agentMessage/delta"
        | "item/reasoning/summaryTextDelta"
        | "item/reasoning/textDelta" => {
            print!("{}", params["delta"].as_str().unwrap_or_default());
        }
        "item/commandExecution/outputDelta" => {
            print!("│ {}", params["delta"].as_str().unwrap_or_default())
        }
        "item/started" => match params["item"]["type"].as_str().unwrap_or_default() {
            "agentMessage" => print!("\n◆ "),
            "reasoning" => print!("\n… thinking: "),
            "commandExecution" => println!(
                "\n$ {}",
                params["item"]["command"].as_str().unwrap_or_default()
            ),
            "mcpToolCall" => println!(
                "\n⚙ {}.{}",
                params["item"]["server"].as_str().unwrap_or("?"),
                params["item"]["tool"].as_str().unwrap_or("?")
            ),
            "fileChange" => {
                println!("\n✎ file change:");
                for change in params["item"]["changes"].as_array().into_iter().flatten() {
                    println!(
                        "  {} {}",
                        change["kind"]["type"].as_str().unwrap_or("?"),
                        change["path"].as_str().unwrap_or("?")
                    );
                    for line in change["diff"].as_str().unwrap_or_default().lines() {
                        println!("    {line}");
                    }
                }
            }
            _ => {}
        },
        "item/completed" => {
            let item = &params["item"];
            match item["type"].as_str().unwrap_or_default() {
                "commandExecution" => println!(
                    "  → {} (exit code {})",
                    item["status"].as_str().unwrap_or("?"),
                    item["exitCode"]
                ),
                "fileChange" => println!("  → {}", item["status"].as_str().unwrap_or("?")),
                "mcpToolCall" => match item["error"]["message"].as_str() {
                    Some(error) => println!("  → failed: {error}"),
                    None => println!("  → {}", item["status"].as_str().unwrap_or("?")),
                },
                "plan" => println!("\n☰ plan:\n{}", item["text"].as_str().unwrap_or_default()),
                "imageView" => println!("\n🖼 {}", item["path"].as_str().unwrap_or_default()),
                _ => {}
            }
        }
        "error" => print_turn_error("\n! ", &params["error"]),
        "turn/plan/updated" => {
            println!("\n☰ plan:");
            for step in params["plan"].as_array().into_iter().flatten() {
                let mark = match step["status"].as_str() {
                    Some("completed") => "[x]",
                    Some("inProgress") => "[>]",
                    _ => "[ ]",
                };
                println!("  {mark} {}", step["step"].as_str().unwrap_or_default());
            }
        }
        "turn/completed" => {
            let turn = &params["turn"];
            println!("\n— turn {} —", turn["status"].as_str().unwrap_or("?"));
            if turn["error"].is_object() {
                print_turn_error("error: ", &turn["error"]);
            }
        }
        _ => {}
    }
    let _ = out.flush();
}

fn answer_server_request(method: &str, params: &Value, decider: Decider) -> Reply {
    let asker = if decider == Decider::Ask {
        Asker::Person
    } else {
        Asker::Nobody
    };
    match method {
        "tool/requestUserInput" => run_dialogs::tool_request_user_input(params, asker),
        "agent/requestUserInput" => run_dialogs::agent_request_user_input(params, asker),
        "agent/askUserQuestion" => run_dialogs::agent_ask_user_question(params, asker),
        _ => Reply::Answer(answer_approval(method, params, decider)),
    }
}

fn answer_approval(method: &str, params: &Value, decider: Decider) -> Value {
    match method {
        "item/commandExecution/requestApproval" => {
            let question = format!("Run `{}`", params["command"].as_str().unwrap_or("?"));
            json!({"decision": decide(&question, params["reason"].as_str(), decider)})
        }
        "item/fileChange/requestApproval" => {
            json!({"decision": decide("Apply the file change above", params["reason"].as_str(), decider)})
        }
        "item/tool/requestUserInput" => {
            let mut answers = serde_json::Map::new();
            for question in params["questions"].as_array().into_iter().flatten() {
                let answer = ask_question(question, decider);
                answers.insert(
                    question["id"].as_str().unwrap_or_default().to_string(),
                    json!({"answers": [answer]}),
                );
            }
            json!({"answers": answers})
        }
        "mcpServer/elicitation/request" => answer_elicitation(params, decider),
        _ => json!({}),
    }
}

/// An MCP server's question (or an MCP tool approval): a form is filled field by field, as
/// text; a form without fields is a yes/no question.
fn answer_elicitation(params: &Value, decider: Decider) -> Value {
    let server = params["serverName"].as_str().unwrap_or("?");
    let message = params["message"].as_str().unwrap_or_default();
    let fields = params["requestedSchema"]["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if fields.is_empty() || decider != Decider::Ask {
        let question = format!("[{server}] {message}");
        let action = match decide(question.trim_end_matches('?'), None, decider) {
            "accept" | "acceptForSession" if fields.is_empty() => "accept",
            "cancel" => "cancel",
            _ => "decline",
        };
        return json!({"action": action, "content": null, "_meta": null});
    }
    println!(
        "
? [{server}] {message}"
    );
    let mut content = serde_json::Map::new();
    for (name, field) in fields {
        let label = field["description"].as_str().unwrap_or(&name);
        let answer = prompt(&format!("  {label}: "));
        let value = match field["type"].as_str() {
            Some("boolean") => json!(matches!(answer.as_str(), "y" | "yes" | "true")),
            Some("integer") | Some("number") => answer
                .parse::<f64>()
                .map(|number| json!(number))
                .unwrap_or(json!(answer)),
            _ => json!(answer),
        };
        content.insert(name, value);
    }
    json!({"action": "accept", "content": content, "_meta": null})
}

fn decide(question: &str, reason: Option<&str>, decider: Decider) -> &'static str {
    match decider {
        Decider::AcceptAll => {
            println!("\n? {question}? yes (--yes)");
            "accept"
        }
        Decider::DeclineAll => {
            println!("\n? {question}? no (not a terminal; pass --yes to approve)");
            "decline"
        }
        Decider::Ask => {
            if let Some(reason) = reason {
                println!("\n  ({reason})");
            }
            match prompt(&format!(
                "\n? {question}? [y]es / [a]lways / [n]o / [c]ancel turn: "
            ))
            .as_str()
            {
                "y" | "yes" => "accept",
                "a" | "always" => "acceptForSession",
                "c" | "cancel" => "cancel",
                _ => "decline",
            }
        }
    }
}

fn ask_question(question: &Value, decider: Decider) -> String {
    let options: Vec<String> = question["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|option| option["label"].as_str().map(str::to_string))
        .collect();
    println!("\n? {}", question["question"].as_str().unwrap_or_default());
    for (index, option) in options.iter().enumerate() {
        println!("  {}. {option}", index + 1);
    }
    if decider != Decider::Ask {
        let first = options.first().cloned().unwrap_or_default();
        println!("  → {first}");
        return first;
    }
    let answer = prompt("  answer (number or text): ");
    answer
        .parse::<usize>()
        .ok()
        .and_then(|number| options.get(number.wrapping_sub(1)).cloned())
        .unwrap_or(answer)
}

fn prompt(text: &str) -> String {
    print!("{text}");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    line.trim().to_lowercase()
}
