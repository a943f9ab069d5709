//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Tandem: a local agent server for IDEs, speaking the app-server protocol over stdio.
#[derive(Debug, Parser)]
#[command(name = "tandem", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub config: RootConfigFlags,

    #[command(subcommand)]
    pub command: Command,
}

/// Declares a set of config flags. The root command's set is its own (not `global`, with its
/// own argument ids), and each subcommand has a `global` set of its own, so that flags given
/// before the subcommand and flags given after it are both kept: clap replaces a parent's
/// values of a `global` argument with a subcommand's, which would drop the first `-c` flags as
/// soon as one follows.
macro_rules! config_flags {
    ($(#[$meta:meta])* $name:ident, global = $global:literal, id = $id:literal) => {
        $(#[$meta])*
        #[derive(Debug, Default, Args)]
        pub struct $name {
            /// Override a config value: `-c dotted.key=<TOML value>` (repeatable). Flags given
            /// before and after the subcommand all apply, in order: the later wins per key.
            /// Example: `-c model_provider="demo"`.
            #[arg(id = concat!($id, "config"), short = 'c', long = "config", value_name = "KEY=VALUE", global = $global)]
            pub config: Vec<String>,
            /// Turn a feature on (repeatable): the same as `-c features.FEATURE=true`.
            #[arg(id = concat!($id, "enable"), long = "enable", value_name = "FEATURE", global = $global)]
            pub enable: Vec<String>,
            /// Turn a feature off (repeatable): the same as `-c features.FEATURE=false`.
            #[arg(id = concat!($id, "disable"), long = "disable", value_name = "FEATURE", global = $global)]
            pub disable: Vec<String>,
            /// Refuse to start when the configuration has keys this version does not know
            /// (without it they are reported on stderr and ignored).
            #[arg(id = concat!($id, "strict_config"), long = "strict-config", global = $global)]
            pub strict_config: bool,
        }

        impl $name {
            /// Appends these flags to `startup` as `-c` overrides: `-c` first, then
            /// `--enable`, then `--disable`.
            fn add_to(&self, startup: &mut StartupConfig) {
                startup.overrides.extend(self.config.iter().cloned());
                for feature in &self.enable {
                    startup.overrides.push(format!("features.{feature}=true"));
                }
                for feature in &self.disable {
                    startup.overrides.push(format!("features.{feature}=false"));
                }
                startup.strict |= self.strict_config;
            }
        }
    };
}

config_flags!(
    /// The config flags given before the subcommand.
    RootConfigFlags,
    global = false,
    id = "root_"
);
config_flags!(
    /// The config flags given after the subcommand (and after its own subcommands).
    ConfigFlags,
    global = true,
    id = ""
);

/// The configuration the command line asks for: `-c` overrides in the order they apply, and
/// whether unknown keys are an error.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StartupConfig {
    /// `KEY=VALUE` overrides, lowest precedence first.
    pub overrides: Vec<String>,
    /// `--strict-config` was given.
    pub strict: bool,
}

impl Cli {
    /// The config flags of both positions, those before the subcommand first.
    pub fn startup_config(&self) -> StartupConfig {
        let mut startup = StartupConfig::default();
        self.config.add_to(&mut startup);
        let after = match &self.command {
            Command::AppServer(args) => Some(&args.config),
            Command::Run(args) => Some(&args.config),
            Command::Exec(args) => Some(&args.config),
            Command::McpServer(args) => Some(&args.config),
            Command::History(args) => Some(&args.config),
            Command::Index(args) => Some(&args.config),
            Command::SandboxExec(_) => None,
            #[cfg(feature = "fuzzing")]
            Command::Fuzz(_) => None,
        };
        if let Some(flags) = after {
            flags.add_to(&mut startup);
        }
        startup
    }
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the app-server protocol (JSONL over stdio), or generate client bindings.
    AppServer(AppServerArgs),
    /// Run one prompt through a spawned app-server and print the turn, asking you to approve
    /// commands and file changes. `--demo` uses the offline scripted demo provider.
    #[command(after_help = RUN_EXIT_CODES)]
    Run(RunArgs),
    /// Run one turn non-interactively and print it (`--json`: one JSON event per line), as
    /// `codex exec` does; the official Codex SDKs run it unchanged.
    #[command(after_help = EXEC_EXIT_CODES)]
    Exec(crate::exec::args::ExecArgs),
    /// Serve the agent to MCP clients as the `codex` and `codex-reply` tools, over stdio or
    /// (with `--http`) streamable HTTP.
    McpServer(McpServerArgs),
    /// Search past conversations: ingest rollouts, search them, open an event's context.
    History(HistoryArgs),
    /// The project index behind `query_project`: refresh it, query it, install the local
    /// embedding model.
    Index(crate::index_cli::IndexArgs),
    /// Internal: run a command inside the sandbox (used by the server itself).
    #[command(hide = true)]
    SandboxExec(tandem_core::sandbox::SandboxExecArgs),
    /// Internal: run a fuzz target (built with the `fuzzing` feature).
    #[cfg(feature = "fuzzing")]
    #[command(hide = true)]
    Fuzz(crate::fuzz::FuzzArgs),
}

/// Arguments of `tandem history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub config: ConfigFlags,

    #[command(subcommand)]
    pub command: HistoryCommand,
}

/// Subcommands of `tandem history`.
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Index new rollout lines from `$TANDEM_HOME/sessions` and the configured sources.
    Ingest,
    /// Print the events that best match a query (BM25).
    Search(HistorySearchArgs),
    /// Print the events around one event, in conversation order.
    Open(HistoryOpenArgs),
}

/// Arguments of `tandem history search`.
#[derive(Debug, Args)]
pub struct HistorySearchArgs {
    /// The query.
    pub query: String,
    /// How many hits.
    #[arg(long, short = 'n')]
    pub limit: Option<i64>,
    /// Restrict to one session (thread id).
    #[arg(long)]
    pub session: Option<String>,
    /// Include tool calls and outputs.
    #[arg(long)]
    pub tools: bool,
    /// Print the full JSON payload.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `tandem history open`.
#[derive(Debug, Args)]
pub struct HistoryOpenArgs {
    /// The event uid (from `tandem history search`).
    pub event_uid: String,
    /// Events of context before.
    #[arg(long, short = 'B')]
    pub before: Option<i64>,
    /// Events of context after.
    #[arg(long, short = 'A')]
    pub after: Option<i64>,
    /// Print the full JSON payload.
    #[arg(long)]
    pub json: bool,
}

/// The exit codes of `tandem run`, shown under its `--help`.
const RUN_EXIT_CODES: &str = "Exit codes:
  0  the turn completed
  1  the turn failed or was interrupted (its error, and the provider's own error text, are printed), or the run itself failed (e.g. the server did not start)
  2  bad command line";

/// The exit codes of `tandem exec`, shown under its `--help`.
const EXEC_EXIT_CODES: &str = "Exit codes:
  0  the turn completed
  1  the turn failed or was interrupted (SIGINT), or the run could not start (no git repository without --skip-git-repo-check, a bad configuration, no prompt)
  2  bad command line

Home: $TANDEM_HOME when set, else $CODEX_HOME when set, else ~/.tandem.";

/// Arguments of `tandem run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub config: ConfigFlags,
    /// What to ask.
    #[arg(default_value = "Show me what you can do.")]
    pub prompt: String,
    /// Use the offline scripted demo provider (no network, no key).
    #[arg(long)]
    pub demo: bool,
    /// Approve every command and file change without asking.
    #[arg(long, conflicts_with = "no")]
    pub yes: bool,
    /// Decline every command and file change without asking (the default without a terminal).
    #[arg(long)]
    pub no: bool,
    /// Approval policy for the thread: untrusted, on-request or never.
    #[arg(long, value_name = "POLICY")]
    pub approval_policy: Option<String>,
    /// Sandbox for the thread: read-only, workspace-write or danger-full-access.
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Plan mode: the agent may ask you questions.
    #[arg(long)]
    pub plan: bool,
    /// Read answers from stdin even when it is not a terminal (scripted answers).
    #[arg(long, conflicts_with_all = ["yes", "no"])]
    pub interactive: bool,
}

/// Arguments of `tandem app-server`.
///
/// Every flag of the reference's `codex app-server` is accepted, so that its launchers work
/// unchanged; those that mean nothing here are named on stderr and otherwise ignored.
#[derive(Debug, Args)]
pub struct AppServerArgs {
    #[command(flatten)]
    pub config: ConfigFlags,

    /// Where to listen: `stdio://` (the default), `unix://` (the socket under
    /// `$TANDEM_HOME/app-server-control/`), `unix://PATH`, `ws://IP:PORT` or `off`. The
    /// listeners speak WebSocket, one JSON-RPC message per text frame.
    #[arg(long, value_name = "URL", default_value = "stdio://")]
    pub listen: String,

    /// The same as `--listen stdio://`.
    #[arg(long, conflicts_with = "listen")]
    pub stdio: bool,

    /// Check the configuration, print the server's version and requirements as JSON on
    /// stdout, and exit without serving.
    #[arg(long)]
    pub print_startup_config: bool,

    #[command(flatten)]
    pub ws: WsFlags,

    /// Connections a `ws://` or `unix://` listener serves at once; one more is closed as
    /// soon as it is accepted (lowered to half the process's open-file limit when that is
    /// smaller).
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,

    /// Time a connection to a `ws://` or `unix://` listener has to send a whole request head
    /// (its WebSocket upgrade, a health check); a slower one is closed.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_positive_duration)]
    pub header_read_timeout: std::time::Duration,

    #[command(flatten)]
    pub ignored: AppServerIgnoredFlags,

    #[command(subcommand)]
    pub command: Option<AppServerCommand>,
}

impl WsFlags {
    /// The flags that were given, by name.
    pub fn given(&self) -> Vec<&'static str> {
        [
            (self.ws_auth.is_some(), "--ws-auth"),
            (self.ws_token_file.is_some(), "--ws-token-file"),
            (self.ws_token_sha256.is_some(), "--ws-token-sha256"),
            (
                self.ws_shared_secret_file.is_some(),
                "--ws-shared-secret-file",
            ),
            (self.ws_issuer.is_some(), "--ws-issuer"),
            (self.ws_audience.is_some(), "--ws-audience"),
            (
                self.ws_max_clock_skew_seconds.is_some(),
                "--ws-max-clock-skew-seconds",
            ),
            (!self.allowed_origin.is_empty(), "--allowed-origin"),
            (self.web, "--web"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }
}

/// How `--listen ws://` authenticates (`--ws-auth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WsAuthMode {
    /// A capability token: `--ws-token-file`, `--ws-token-sha256`, or one generated at
    /// startup (the default).
    CapabilityToken,
    /// An HS256 JWT signed with `--ws-shared-secret-file`; its `sub` names the principal.
    SignedBearerToken,
    /// No token (loopback addresses only): every local account can connect.
    None,
}

/// Authentication of the WebSocket listener. The token travels as
/// `Authorization: Bearer <token>`.
#[derive(Debug, Default, Args)]
pub struct WsFlags {
    /// How WebSocket clients authenticate [default: capability-token].
    #[arg(long, value_enum, value_name = "MODE")]
    pub ws_auth: Option<WsAuthMode>,
    /// Capability tokens: one bare token, or `NAME TOKEN` lines naming principals (re-read
    /// when it changes).
    #[arg(long, value_name = "PATH", conflicts_with = "ws_token_sha256")]
    pub ws_token_file: Option<PathBuf>,
    /// The SHA-256 (64 hex digits) of the one accepted capability token.
    #[arg(long, value_name = "HEX")]
    pub ws_token_sha256: Option<String>,
    /// The HS256 secret of signed bearer tokens (a trailing newline is ignored).
    #[arg(long, value_name = "PATH")]
    pub ws_shared_secret_file: Option<PathBuf>,
    /// The `iss` signed bearer tokens must carry.
    #[arg(long, value_name = "ISSUER")]
    pub ws_issuer: Option<String>,
    /// The `aud` signed bearer tokens must carry.
    #[arg(long, value_name = "AUDIENCE")]
    pub ws_audience: Option<String>,
    /// Leeway for `exp` and `nbf` of signed bearer tokens [default: 30].
    #[arg(long, value_name = "SECONDS")]
    pub ws_max_clock_skew_seconds: Option<u64>,
    /// A browser origin (`http://host:port`) allowed to connect; repeatable. A request with
    /// any other `Origin` header is refused with 403.
    #[arg(long, value_name = "ORIGIN")]
    pub allowed_origin: Vec<String>,
    /// Serve the web client at `/` and print its URL (with the token in the fragment) on
    /// stderr; its page's own origin may connect and sends the token in its first message.
    #[arg(long)]
    pub web: bool,
}

/// Flags of the reference's `codex app-server` that mean nothing in Tandem: accepted, named
/// on stderr, and ignored.
#[derive(Debug, Default, Args)]
pub struct AppServerIgnoredFlags {
    /// Ignored: Tandem has no managed sign-in.
    #[arg(long, hide = true)]
    pub startup_sign_out: bool,
    /// Ignored: the client is identified by `initialize`.
    #[arg(long, value_name = "JSON", hide = true)]
    pub startup_client_info: Option<String>,
    /// Ignored: Tandem has no cloud skills.
    #[arg(long, value_name = "PATH", hide = true)]
    pub cloud_skills_snapshot: Option<PathBuf>,
    /// Ignored: Tandem has no code-mode host.
    #[arg(long, value_name = "URL", hide = true)]
    pub code_mode_host: Option<String>,
    /// Ignored: Tandem sends no analytics.
    #[arg(long, hide = true)]
    pub analytics_default_enabled: bool,
}

impl AppServerIgnoredFlags {
    /// The flags that were given, by name, with why each is ignored.
    pub fn given(&self) -> Vec<(&'static str, &'static str)> {
        const NO_LOGIN: &str = "Tandem has no managed sign-in";
        [
            (self.startup_sign_out, "--startup-sign-out", NO_LOGIN),
            (
                self.startup_client_info.is_some(),
                "--startup-client-info",
                "the client is identified by `initialize`",
            ),
            (
                self.cloud_skills_snapshot.is_some(),
                "--cloud-skills-snapshot",
                "Tandem has no cloud skills",
            ),
            (
                self.code_mode_host.is_some(),
                "--code-mode-host",
                "Tandem has no code-mode host",
            ),
            (
                self.analytics_default_enabled,
                "--analytics-default-enabled",
                "Tandem sends no analytics",
            ),
        ]
        .into_iter()
        .filter_map(|(given, name, why)| given.then_some((name, why)))
        .collect()
    }
}

/// Subcommands of `tandem app-server`.
#[derive(Debug, Subcommand)]
pub enum AppServerCommand {
    /// Write TypeScript bindings: one `.ts` file per type plus `index.ts`.
    GenerateTs(GenerateArgs),
    /// Write JSON Schemas: one file per type plus a bundle with every definition.
    GenerateJsonSchema(GenerateArgs),
    /// Manage the shared app-server of this `TANDEM_HOME` (listening on the default
    /// `unix://` socket); each command prints its result as JSON.
    Daemon(DaemonArgs),
    /// Join this process's stdio to the daemon's socket.
    Proxy(ProxyArgs),
}

/// Arguments of `tandem app-server daemon`.
#[derive(Debug, Args)]
pub struct DaemonArgs {
    #[command(subcommand)]
    pub command: crate::daemon::DaemonCommand,
}

/// Arguments of `tandem app-server proxy`.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// The daemon's socket [default: `$TANDEM_HOME/app-server-control/app-server-control.sock`].
    #[arg(long, value_name = "SOCKET_PATH")]
    pub sock: Option<PathBuf>,

    /// Speak plain JSONL on stdio (one line per WebSocket text frame) instead of copying the
    /// socket's WebSocket bytes unchanged.
    #[arg(long)]
    pub jsonl: bool,
}

/// Arguments of the binding generators.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Output directory (created if missing; existing generated files are replaced).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,

    /// Include experimental methods, fields and types.
    #[arg(long)]
    pub experimental: bool,
}

/// Arguments of `tandem mcp-server`.
#[derive(Debug, Args)]
pub struct McpServerArgs {
    #[command(flatten)]
    pub config: ConfigFlags,
    /// Serve streamable HTTP at `http://ADDR/mcp` instead of stdio (default address
    /// `127.0.0.1:3333`; port 0 picks a free port, reported on stderr).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:3333")]
    pub http: Option<std::net::SocketAddr>,
    /// How HTTP requests are authenticated: `token` (every request carries
    /// `Authorization: Bearer <token>`; without `--auth-token-file` a token is generated and
    /// written to `$TANDEM_HOME/mcp-http.token`) or `none` (loopback addresses only: every
    /// account on this machine can then connect).
    #[arg(long, value_enum, value_name = "MODE", default_value = "token")]
    pub auth: AuthMode,
    /// File of accepted bearer tokens, one `NAME TOKEN` line per principal (or one bare token,
    /// the principal `default`); re-read when it changes. Share it between the nodes of a
    /// `--redis` cluster.
    #[arg(long, value_name = "PATH", requires = "http")]
    pub auth_token_file: Option<PathBuf>,
    /// HTTP connections served at once; one more is closed as soon as it is accepted (lowered
    /// to half the process's open-file limit when that is smaller).
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Time an HTTP connection has to send a whole request head (also between two requests
    /// of a kept-alive connection); a slower one is closed.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_positive_duration)]
    pub header_read_timeout: std::time::Duration,
    /// MCP sessions this HTTP server holds at most; `initialize` beyond is answered 503.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_sessions: u32,
    /// Idle time after which an HTTP session is evicted (its turns are interrupted).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = humantime::parse_duration)]
    pub session_ttl: std::time::Duration,
    /// What approvals become when the client does not support elicitation.
    #[arg(long, value_enum, default_value = "decline")]
    pub approval_fallback: crate::mcp::elicitation::ApprovalFallback,
    /// Another `Origin` to accept besides loopback origins (repeatable), e.g.
    /// `https://app.example.com`.
    #[arg(long, value_name = "ORIGIN")]
    pub allowed_origin: Vec<String>,
    /// Another `Host` to accept besides loopback names and the bind address (repeatable).
    #[arg(long, value_name = "HOST")]
    pub allowed_host: Vec<String>,
    /// Interval of the keep-alive comments on HTTP SSE streams.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = humantime::parse_duration)]
    pub sse_keep_alive: std::time::Duration,
    /// Also serve the fixture tools, resources and prompts of the MCP conformance suite.
    #[cfg(feature = "conformance-fixtures")]
    #[arg(long)]
    pub conformance_fixtures: bool,
    /// Serve only these tools (comma-separated), e.g. `--tools search,open` for a stateless
    /// history-only server. Default: every tool.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub tools: Option<Vec<String>>,
    /// Share sessions and streams with other `--http` nodes through this Redis server
    /// (`redis://[USER:PASSWORD@]HOST:PORT/DB`, or `rediss://` for TLS); overrides `url` of
    /// `[mcp.distributed]` in the config. Needs `--auth-token-file` (or `--auth none`).
    #[arg(long, value_name = "URL", requires = "http")]
    pub redis: Option<String>,
    /// Largest accepted HTTP request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
}

/// `--auth` of `tandem mcp-server --http`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    /// Bearer tokens: from `--auth-token-file`, or one generated at startup.
    Token,
    /// No authentication; accepted on loopback addresses only.
    None,
}

/// A duration above zero (`humantime` syntax: `500ms`, `10s`, `1m`).
fn parse_positive_duration(text: &str) -> Result<std::time::Duration, String> {
    match humantime::parse_duration(text) {
        Ok(duration) if duration.is_zero() => Err("must be longer than zero".to_string()),
        Ok(duration) => Ok(duration),
        Err(error) => Err(error.to_string()),
    }
}
