//! `tandem exec`: one turn, non-interactively, for scripts, CI jobs and the official Codex SDKs
//! (which spawn `codex exec --experimental-json`, write the prompt to its stdin and read one
//! JSON event per line from its stdout).
//!
//! A front end like the others: it serves one method family (threads and turns,
//! `families::front_ends::exec`) by calling the engine, acts for the local user under the
//! operator's `[clients]` ceiling with the `exec` defaults (`FrontEnd::Exec`), and answers the
//! engine's questions itself (`session.rs`: approvals declined, questions refused; the model is
//! offered no dialog tools). `args.rs` is its command line, `events.rs` the reference's event
//! shapes, `output.rs` the thread that prints them.
//!
//! The home: `TANDEM_HOME` when set, else `CODEX_HOME` when set (a client that runs Tandem in
//! place of `codex` names the home it reads back), else `~/.tandem`.
//!
//! Exit status: 0 when the turn completed, 1 when it failed or was interrupted (SIGINT
//! interrupts it; a second SIGINT ends the process at once) or the run could not start, 2 on a
//! bad command line.

pub mod args;
mod events;
mod output;
mod session;

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::item::UserInput;
use app_server_protocol::policy::{AskForApproval, SandboxMode, SortDirection};
use app_server_protocol::tables::ClientMethod;
use app_server_protocol::thread_requests::{
    ThreadListCwdFilter, ThreadListParams, ThreadResumeParams, ThreadSortKey, ThreadStartParams,
};
use app_server_protocol::turn_requests::TurnStartParams;
use tandem_core::access::{ClientPolicy, FrontEnd};
use tandem_core::account::AccountState;
use tandem_core::audit::AuditLog;
use tandem_core::config::Config;
use tandem_core::engine::{Engine, EngineError};
use tandem_core::families::front_ends;
use tandem_core::principal::Principal;
use tandem_core::store::Store;
use tokio::sync::mpsc;

use crate::exec::args::{ExecArgs, ExecCommand, SandboxArg};
use crate::exec::events::TurnEnd;
use crate::exec::output::{OutputOptions, ToOutput};

/// Largest prompt read from stdin.
const MAX_PROMPT_BYTES: u64 = 16 * 1024 * 1024;
/// Largest `--output-schema` file.
const MAX_SCHEMA_BYTES: u64 = 1024 * 1024;
/// Longest client name taken from the originator variable.
const MAX_ORIGINATOR_CHARS: usize = 64;
/// The variable through which the SDKs name themselves (`codex_sdk_ts`, `codex_sdk_py`).
const ORIGINATOR_VARIABLE: &str = "CODEX_INTERNAL_ORIGINATOR_OVERRIDE";
/// The variable the SDKs set to their `apiKey` option.
const API_KEY_VARIABLE: &str = "CODEX_API_KEY";
/// The exit status of a process ended by a second SIGINT.
const FORCED_EXIT_STATUS: i32 = 130;

/// Why a run did not happen.
enum Refusal {
    /// A bad command line: exit 2.
    Usage(String),
    /// Anything else: exit 1.
    Failed(String),
}

/// Which thread the turn runs on.
enum Target {
    New,
    Resume(String),
    Last { all: bool },
}

/// Everything the run needs, checked before the runtime starts.
struct Plan {
    config: Config,
    target: Target,
    prompt: String,
    images: Vec<PathBuf>,
    output_schema: Option<serde_json::Value>,
    cwd: PathBuf,
    /// `--cd` was given: a resumed thread moves there.
    cwd_given: bool,
    model: Option<String>,
    sandbox: Option<SandboxMode>,
    approval_policy: Option<AskForApproval>,
    originator: String,
    output: OutputOptions,
    warnings: Vec<String>,
}

/// Runs `tandem exec`.
pub fn run(args: ExecArgs, overrides: &[String]) -> ExitCode {
    let plan = match prepare(args, overrides) {
        Ok(plan) => plan,
        Err(Refusal::Usage(message)) => {
            report(&format!("error: {message}"));
            return ExitCode::from(2);
        }
        Err(Refusal::Failed(message)) => {
            report(&format!("error: {message}"));
            return ExitCode::from(1);
        }
    };
    // On stderr only: the events on stdout stay those of the turn.
    for warning in &plan.warnings {
        report(&format!("warning: {warning}"));
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            report(&format!("error: cannot start the runtime: {error}"));
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(execute(plan));
    runtime.shutdown_timeout(Duration::from_secs(5));
    match result {
        Ok((end, output)) => {
            // Everything the turn printed was written and flushed before its end was reported;
            // the output thread is left to end with the process.
            drop(output);
            match end {
                Some(TurnEnd::Completed) => ExitCode::SUCCESS,
                Some(TurnEnd::Failed(_)) | None => ExitCode::from(1),
            }
        }
        Err(message) => {
            report(&format!("error: {message}"));
            ExitCode::from(1)
        }
    }
}

/// Writes one line to stderr (the transcript's stream; stdout is the answer or the events).
fn report(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "tandem exec: {line}");
}

fn prepare(args: ExecArgs, overrides: &[String]) -> Result<Plan, Refusal> {
    let options = args.options;
    let warnings: Vec<String> = options
        .ignored_flags()
        .into_iter()
        .map(|flag| format!("{flag} is accepted for compatibility and ignored"))
        .collect();
    let (target, prompt) = match args.command {
        None => (Target::New, args.prompt),
        Some(ExecCommand::Resume(resume)) => {
            if args.prompt.is_some() {
                return Err(Refusal::Usage(
                    "give the prompt after `resume <THREAD_ID>`".to_string(),
                ));
            }
            match (resume.last, resume.thread_id, resume.prompt) {
                (true, Some(_), Some(_)) => {
                    return Err(Refusal::Usage(
                        "with --last, give only the prompt (no thread id)".to_string(),
                    ));
                }
                (true, first, None) => (Target::Last { all: resume.all }, first),
                (true, None, second) => (Target::Last { all: resume.all }, second),
                (false, Some(id), prompt) => (Target::Resume(id), prompt),
                (false, None, _) => {
                    return Err(Refusal::Usage(
                        "`tandem exec resume` needs a thread id or --last".to_string(),
                    ));
                }
            }
        }
    };

    let config = load_config(overrides, options.profile.as_deref(), &options.add_dir)?;
    let cwd = match &options.cd {
        Some(dir) => std::fs::canonicalize(dir)
            .map_err(|error| Refusal::Failed(format!("--cd {}: {error}", dir.display())))?,
        None => std::env::current_dir().map_err(|error| {
            Refusal::Failed(format!("cannot read the working directory: {error}"))
        })?,
    };
    if !options.skip_git_repo_check && !inside_git_repository(&cwd) {
        return Err(Refusal::Failed(format!(
            "{} is not inside a git repository and --skip-git-repo-check was not specified",
            cwd.display()
        )));
    }
    let images = options
        .image
        .iter()
        .map(|image| {
            let path = absolute(image, &cwd);
            match std::fs::metadata(&path) {
                Ok(metadata) if metadata.is_file() => Ok(path),
                Ok(_) => Err(Refusal::Failed(format!(
                    "--image {}: not a file",
                    image.display()
                ))),
                Err(error) => Err(Refusal::Failed(format!(
                    "--image {}: {error}",
                    image.display()
                ))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let output_schema = options
        .output_schema
        .as_deref()
        .map(read_output_schema)
        .transpose()?;
    let prompt = read_prompt(prompt)?;
    let originator = originator();
    if std::env::var_os("TANDEM_HOME").is_none()
        && std::env::var_os("CODEX_HOME").is_some_and(|home| !home.is_empty())
    {
        tracing::debug!(home = %config.home.display(), "using CODEX_HOME");
    }
    // `approval_policy` defaults to `never` here, as in the reference, unless configured.
    let approval_policy =
        (!config.origins.contains_key("approval_policy")).then_some(AskForApproval::Never);
    Ok(Plan {
        config,
        target,
        prompt,
        images,
        output_schema,
        cwd,
        cwd_given: options.cd.is_some(),
        model: options.model,
        sandbox: options.sandbox.map(|sandbox| match sandbox {
            SandboxArg::ReadOnly => SandboxMode::ReadOnly,
            SandboxArg::WorkspaceWrite => SandboxMode::WorkspaceWrite,
            SandboxArg::DangerFullAccess => SandboxMode::DangerFullAccess,
        }),
        approval_policy,
        originator,
        output: OutputOptions {
            json: options.json,
            last_message_file: options.output_last_message,
        },
        warnings,
    })
}

/// The configuration: the home (`TANDEM_HOME`, else `CODEX_HOME`, else `~/.tandem`), the
/// reference's spellings among the `-c` flags, `OPENAI_BASE_URL` and `CODEX_API_KEY`, and the
/// `--add-dir` directories as writable roots.
fn load_config(
    overrides: &[String],
    profile: Option<&str>,
    add_dir: &[PathBuf],
) -> Result<Config, Refusal> {
    let home = match std::env::var_os("TANDEM_HOME") {
        Some(home) if !home.is_empty() => None,
        _ => std::env::var_os("CODEX_HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from),
    };
    let mut flags = Vec::new();
    // The Python SDK passes its `base_url` option in the environment.
    if let Ok(url) = std::env::var("OPENAI_BASE_URL")
        && !url.is_empty()
    {
        flags.push(format!(
            "model_providers.openai.base_url={}",
            serde_json::Value::String(url)
        ));
    }
    if let Some(profile) = profile {
        flags.push(format!(
            "profile={}",
            serde_json::Value::String(profile.to_string())
        ));
    }
    for flag in overrides {
        // The reference's top-level `openai_base_url` is the built-in provider's `base_url`.
        match flag.trim_start().strip_prefix("openai_base_url") {
            Some(rest) if rest.trim_start().starts_with('=') => {
                flags.push(format!("model_providers.openai.base_url{rest}"));
            }
            _ => flags.push(flag.clone()),
        }
    }
    let mut config = Config::load(home, &flags)
        .map_err(|error| Refusal::Failed(format!("cannot load the configuration: {error}")))?;
    if std::env::var(API_KEY_VARIABLE).is_ok_and(|key| !key.is_empty()) {
        for provider in config.model_providers.values_mut() {
            if provider.env_key.as_deref() == Some("OPENAI_API_KEY") {
                provider.env_key = Some(API_KEY_VARIABLE.to_string());
            }
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    for dir in add_dir {
        config
            .sandbox_workspace_write
            .writable_roots
            .push(absolute(dir, &cwd));
    }
    Ok(config)
}

fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// Whether `dir` or a parent holds `.git` (a directory, or a file in a worktree).
fn inside_git_repository(dir: &Path) -> bool {
    dir.ancestors().any(|dir| dir.join(".git").exists())
}

/// The prompt: the argument, or stdin when it is absent or `-`.
fn read_prompt(argument: Option<String>) -> Result<String, Refusal> {
    let prompt = match argument {
        Some(prompt) if prompt != "-" => prompt,
        _ => {
            if std::io::stdin().is_terminal() {
                report("reading the prompt from stdin (end it with Ctrl-D)");
            }
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .take(MAX_PROMPT_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|error| Refusal::Failed(format!("cannot read stdin: {error}")))?;
            if bytes.len() as u64 > MAX_PROMPT_BYTES {
                return Err(Refusal::Failed(format!(
                    "the prompt on stdin is longer than {MAX_PROMPT_BYTES} bytes"
                )));
            }
            String::from_utf8(bytes)
                .map_err(|_| Refusal::Failed("the prompt on stdin is not UTF-8".to_string()))?
        }
    };
    if prompt.trim().is_empty() {
        return Err(Refusal::Failed(
            "no prompt: give one as an argument or on stdin".to_string(),
        ));
    }
    Ok(prompt)
}

/// `--output-schema FILE`: a JSON object, at most [`MAX_SCHEMA_BYTES`].
fn read_output_schema(path: &Path) -> Result<serde_json::Value, Refusal> {
    let failed =
        |reason: String| Refusal::Failed(format!("--output-schema {}: {reason}", path.display()));
    let file = std::fs::File::open(path).map_err(|error| failed(error.to_string()))?;
    let mut text = String::new();
    file.take(MAX_SCHEMA_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|error| failed(error.to_string()))?;
    if text.len() as u64 > MAX_SCHEMA_BYTES {
        return Err(failed(format!("larger than {MAX_SCHEMA_BYTES} bytes")));
    }
    let schema: serde_json::Value =
        serde_json::from_str(&text).map_err(|error| failed(format!("not JSON: {error}")))?;
    if !schema.is_object() {
        return Err(failed("not a JSON object".to_string()));
    }
    Ok(schema)
}

/// The client name recorded as the thread's originator: the SDK's, else `tandem_exec`.
fn originator() -> String {
    std::env::var(ORIGINATOR_VARIABLE)
        .ok()
        .map(|name| {
            name.chars()
                .filter(|c| c.is_ascii_graphic())
                .take(MAX_ORIGINATOR_CHARS)
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "tandem_exec".to_string())
}

/// A method the run calls must be one of the families `exec` serves.
fn served(method: ClientMethod) -> Result<(), String> {
    if front_ends::exec().serves(method) {
        Ok(())
    } else {
        Err(format!("{} is not served by tandem exec", method.method()))
    }
}

type OutputThread = std::thread::JoinHandle<std::io::Result<()>>;

async fn execute(plan: Plan) -> Result<(Option<TurnEnd>, OutputThread), String> {
    let Plan {
        config,
        target,
        prompt,
        images,
        output_schema,
        cwd,
        cwd_given,
        model,
        sandbox,
        approval_policy,
        originator,
        output,
        warnings: _,
    } = plan;
    // The store and the account are files under the home: opened off the async worker.
    let home = config.home.clone();
    let (store, account) = tokio::task::spawn_blocking(move || {
        let store = Store::open(&home)
            .map_err(|error| format!("cannot open {}: {error}", home.display()))?;
        Ok::<_, String>((Arc::new(store), Arc::new(AccountState::load(&home))))
    })
    .await
    .map_err(|error| format!("cannot open the home: {error}"))??;
    tandem_core::redact::register_known_secrets(store.redactor(), &config, &account);
    let (queue, received) = mpsc::channel(output::OUTPUT_QUEUE);
    let (mut end, output_thread) = output::start(output, received)
        .map_err(|error| format!("cannot start the output thread: {error}"))?;
    // The local user's own command line, under the operator's `[clients]` with the `exec`
    // defaults.
    let access = ClientPolicy::resolve(&config, FrontEnd::Exec);
    let home = config.home.clone();
    let header = vec![
        format!("Tandem {} exec", env!("CARGO_PKG_VERSION")),
        "--------".to_string(),
        format!("workdir: {}", cwd.display()),
    ];
    let engine = Engine::new(
        config,
        store,
        account,
        Arc::new(session::ChannelSink {
            output: queue.clone(),
        }),
        Arc::new(session::DecliningApprover),
        Principal::local_user(),
        access,
    );
    let audit = AuditLog::open(&home);
    engine.set_audit(audit.clone(), FrontEnd::Exec.name());
    engine.set_originator(&originator);
    // Nobody answers questions: the model is offered none of the tools that ask them.
    engine.set_questions(false);
    let result = run_turn(
        &engine,
        &queue,
        &mut end,
        Turn {
            target,
            prompt,
            images,
            output_schema,
            cwd,
            cwd_given,
            model,
            sandbox,
            approval_policy,
            header,
        },
    )
    .await;
    engine.shutdown().await;
    drop(engine);
    drop(queue);
    let _ = tokio::task::spawn_blocking(move || audit.flush(Duration::from_secs(1))).await;
    result.map(|end| (end, output_thread))
}

/// What [`run_turn`] runs.
struct Turn {
    target: Target,
    prompt: String,
    images: Vec<PathBuf>,
    output_schema: Option<serde_json::Value>,
    cwd: PathBuf,
    cwd_given: bool,
    model: Option<String>,
    sandbox: Option<SandboxMode>,
    approval_policy: Option<AskForApproval>,
    header: Vec<String>,
}

async fn run_turn(
    engine: &Engine,
    queue: &mpsc::Sender<ToOutput>,
    end: &mut tokio::sync::oneshot::Receiver<TurnEnd>,
    turn: Turn,
) -> Result<Option<TurnEnd>, String> {
    let engine_error = |error: EngineError| error.to_string();
    let cwd_text = turn.cwd.to_string_lossy().into_owned();
    let thread_id = match &turn.target {
        Target::New => {
            served(ClientMethod::ThreadStart)?;
            let started = engine
                .start_thread(ThreadStartParams {
                    model: turn.model.clone(),
                    cwd: Some(cwd_text.clone()),
                    approval_policy: turn.approval_policy,
                    sandbox: turn.sandbox,
                    ..ThreadStartParams::default()
                })
                .await
                .map_err(engine_error)?;
            started.thread.id
        }
        Target::Resume(id) => resume(engine, id.clone(), &turn).await?,
        Target::Last { all } => {
            served(ClientMethod::ThreadList)?;
            let listed = engine
                .list_threads(ThreadListParams {
                    limit: Some(1),
                    sort_key: Some(ThreadSortKey::UpdatedAt),
                    sort_direction: Some(SortDirection::Desc),
                    cwd: (!*all).then(|| ThreadListCwdFilter::One(cwd_text.clone())),
                    ..ThreadListParams::default()
                })
                .await
                .map_err(engine_error)?;
            let Some(thread) = listed.data.into_iter().next() else {
                return Err(if *all {
                    "no thread to resume".to_string()
                } else {
                    format!(
                        "no thread to resume in {cwd_text} (--all resumes the latest of any directory)"
                    )
                });
            };
            resume(engine, thread.id, &turn).await?
        }
    };
    let _ = queue
        .send(ToOutput::Thread {
            thread_id: thread_id.clone(),
            header: turn.header.clone(),
            prompt: turn.prompt.clone(),
        })
        .await;
    served(ClientMethod::TurnStart)?;
    let mut input = vec![UserInput::Text {
        text: turn.prompt.clone(),
        text_elements: None,
    }];
    input.extend(turn.images.iter().map(|path| UserInput::LocalImage {
        detail: None,
        path: path.to_string_lossy().into_owned(),
    }));
    let (started, launcher) = engine
        .start_turn(TurnStartParams {
            thread_id: thread_id.clone(),
            input,
            client_user_message_id: None,
            cwd: None,
            approval_policy: None,
            approvals_reviewer: None,
            sandbox_policy: None,
            model: None,
            service_tier: None,
            effort: None,
            summary: None,
            personality: None,
            output_schema: turn.output_schema.clone(),
            collaboration_mode: None,
        })
        .map_err(engine_error)?;
    let Some(launcher) = launcher else {
        return Err(format!("thread {thread_id} is already running a turn"));
    };
    launcher.launch();
    wait_for_end(engine, &thread_id, &started.id, end).await
}

async fn resume(engine: &Engine, thread_id: String, turn: &Turn) -> Result<String, String> {
    served(ClientMethod::ThreadResume)?;
    let (resumed, _) = engine
        .resume_thread(ThreadResumeParams {
            thread_id,
            model: turn.model.clone(),
            cwd: turn
                .cwd_given
                .then(|| turn.cwd.to_string_lossy().into_owned()),
            model_provider: None,
            service_tier: None,
            approval_policy: turn.approval_policy,
            approvals_reviewer: None,
            sandbox: turn.sandbox,
            config: None,
            base_instructions: None,
            developer_instructions: None,
            personality: None,
            exclude_turns: Some(true),
            persist_extended_history: None,
        })
        .await
        .map_err(|error| error.to_string())?;
    Ok(resumed.thread.id)
}

/// Waits for the turn to end; the first SIGINT interrupts it (it then ends as failed), a second
/// one ends the process at once.
async fn wait_for_end(
    engine: &Engine,
    thread_id: &str,
    turn_id: &str,
    end: &mut tokio::sync::oneshot::Receiver<TurnEnd>,
) -> Result<Option<TurnEnd>, String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())
        .map_err(|error| format!("cannot handle SIGINT: {error}"))?;
    let mut interrupted = false;
    loop {
        tokio::select! {
            ended = &mut *end => return Ok(ended.ok()),
            _ = interrupt.recv() => {
                if interrupted {
                    std::process::exit(FORCED_EXIT_STATUS);
                }
                interrupted = true;
                served(ClientMethod::TurnInterrupt)?;
                match engine.prepare_interrupt(thread_id, turn_id) {
                    Ok(handle) => handle.interrupt(),
                    // The turn ended meanwhile; its end is on its way.
                    Err(error) => tracing::debug!(%error, "nothing to interrupt"),
                }
            }
        }
    }
}
