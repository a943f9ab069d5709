//! The `tandem` command line: the app-server, binding generators and (later) the MCP adapter.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod codegen;
mod compat;
mod connection;
mod daemon;
mod exec;
#[cfg(feature = "fuzzing")]
mod fuzz;
mod history;
mod http_accept;
mod index_cli;
mod listener;
mod listener_auth;
mod mcp;
mod outgoing;
mod pending;
mod processor;
mod rpc_error;
mod run_client;
mod run_dialogs;
mod server;
mod shutdown;
mod transport;
mod unwind;
mod utility;

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use crate::cli::{AppServerCommand, Cli, Command};
use tandem_core::config::Config;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let startup = cli.startup_config();
    let overrides = startup.overrides.as_slice();
    if startup.strict
        && let Err(error) = Config::load_checked(None, overrides, true)
    {
        report_error(&error.into());
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::AppServer(app_server) => match app_server.command {
            Some(AppServerCommand::GenerateTs(args)) => codegen::generate_ts(&args),
            Some(AppServerCommand::GenerateJsonSchema(args)) => {
                codegen::generate_json_schema(&args)
            }
            Some(AppServerCommand::Daemon(args)) => Config::load(None, overrides)
                .map_err(anyhow::Error::from)
                .and_then(|config| daemon::run(args.command, &config.home, overrides)),
            Some(AppServerCommand::Proxy(args)) => run_proxy(&args, overrides),
            None => run_app_server(&app_server, overrides),
        },
        Command::Run(args) => match run_terminal_client(&args, overrides) {
            Ok(code) => return code,
            Err(error) => Err(error),
        },
        Command::Exec(args) => {
            init_logging();
            return exec::run(args, overrides);
        }
        Command::McpServer(args) => run_mcp_server(&args, overrides),
        Command::History(args) => history::run_cli(&args.command, overrides),
        Command::SandboxExec(args) => tandem_core::sandbox::run_sandbox_exec(&args),
        #[cfg(feature = "fuzzing")]
        Command::Fuzz(args) => fuzz::run(&args),
        Command::Index(args) => index_cli::run(args, overrides),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report_error(&error);
            ExitCode::FAILURE
        }
    }
}

#[allow(
    clippy::print_stderr,
    reason = "the CLI reports fatal errors on stderr"
)]
fn report_error(error: &anyhow::Error) {
    eprintln!("tandem: error: {error:#}");
}

fn run_app_server(args: &cli::AppServerArgs, overrides: &[String]) -> anyhow::Result<()> {
    let listen = if args.stdio { "stdio://" } else { &args.listen };
    let address = listener::ListenAddress::parse(listen)?;
    if !matches!(address, listener::ListenAddress::WebSocket(_)) {
        for flag in args.ws.given() {
            report_note(&format!(
                "{flag} is accepted and ignored: it applies to ws:// listeners"
            ));
        }
    }
    for (flag, why) in args.ignored.given() {
        report_note(&format!("{flag} is accepted and ignored: {why}"));
    }
    if args.print_startup_config {
        let config = Config::load(None, overrides)?;
        return print_startup_config(&config);
    }
    // Logging first, so that the loader's warnings (unknown keys) reach stderr; configuration
    // errors stop the process before it serves anything.
    init_logging();
    let config = Config::load(None, overrides)?;
    // Reads `auth.json` now, before the runtime, rather than on a worker thread later; the
    // server shares it with its engine.
    let account = Arc::new(tandem_core::account::AccountState::load(&config.home));
    // The user agent that `initialize` answers with; read here, off the async workers.
    let os_release = compat::requests::OsRelease::read();
    let history = history::connect(&config)?;
    // One async worker: a connection's async work (decoding, events, serialization) is light,
    // and everything that blocks runs on the blocking pool. With one worker, a turn's task and
    // the stdout writer take turns on the same thread, so a burst of deltas is written as one
    // batch instead of waking a second worker for each notification.
    if address != listener::ListenAddress::Stdio {
        let admission = listener_admission(&args.ws, &address, &config)?;
        let limits = http_accept::ConnectionLimits {
            max_connections: http_accept::connection_cap(
                args.max_connections as usize,
                "app-server",
            ),
            header_read_timeout: args.header_read_timeout,
        };
        // Connections are served side by side: as many workers as cores.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let served = runtime.block_on(async move {
            if let listener::Admission::WebSocket {
                auth: listener::auth::WsAuth::Tokens(table),
                ..
            } = &admission
                && table.source().is_some()
            {
                tokio::spawn(listener_auth::watch_token_file(table.clone()));
            }
            listener::serve(
                config,
                account,
                os_release,
                Some(history),
                address,
                admission,
                limits,
            )
            .await
        });
        shutdown::finish(runtime);
        return served;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let served = runtime.block_on(server::serve_stdio(
        config,
        account,
        os_release,
        Some(history),
    ));
    shutdown::finish(runtime);
    served
}

/// `tandem app-server proxy`: stdio joined to the daemon's socket until either side closes.
fn run_proxy(args: &cli::ProxyArgs, overrides: &[String]) -> anyhow::Result<()> {
    init_logging();
    let config = Config::load(None, overrides)?;
    if !overrides.is_empty() && !args.jsonl {
        report_note(
            "-c, --enable and --disable reach the threads of `proxy --jsonl` only (the byte proxy does not read what it copies): give them to `tandem app-server daemon start`, or as a thread's `config` in `thread/start`",
        );
    }
    let socket = args
        .sock
        .clone()
        .unwrap_or_else(|| listener::socket::default_path(&config.home));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let max_line_bytes = config.app_server.max_line_bytes;
    runtime.block_on(async move {
        if args.jsonl {
            transport::proxy::jsonl(&socket, max_line_bytes, overrides).await
        } else {
            transport::proxy::copy_bytes(&socket).await
        }
    })
}

/// How the listener at `address` admits connections, from the `--ws-*` flags: the kernel's
/// word on `unix://`, a bearer token on `ws://` (a capability token generated and written
/// under `$TANDEM_HOME` when none is given; `--ws-auth none` on loopback addresses only).
#[allow(
    clippy::print_stderr,
    reason = "the generated token's file and the warnings are told on stderr to whoever started the server"
)]
fn listener_admission(
    flags: &cli::WsFlags,
    address: &listener::ListenAddress,
    config: &Config,
) -> anyhow::Result<listener::Admission> {
    use cli::WsAuthMode;
    use listener::auth::{SignedTokens, WsAuth};
    let bind = match address {
        listener::ListenAddress::WebSocket(bind) => *bind,
        // The --ws-* flags were noted as ignored: a unix:// socket admits the server's own
        // user only.
        _ => return Ok(listener::Admission::SameUser),
    };
    let mode = flags.ws_auth.unwrap_or(WsAuthMode::CapabilityToken);
    let signed_flags = flags.ws_shared_secret_file.is_some()
        || flags.ws_issuer.is_some()
        || flags.ws_audience.is_some()
        || flags.ws_max_clock_skew_seconds.is_some();
    let token_flags = flags.ws_token_file.is_some() || flags.ws_token_sha256.is_some();
    let auth = match mode {
        WsAuthMode::None => {
            if token_flags || signed_flags {
                anyhow::bail!("--ws-auth none takes no token or shared secret");
            }
            if !bind.ip().is_loopback() {
                anyhow::bail!(
                    "--ws-auth none is accepted on loopback addresses only (127.0.0.0/8, ::1): {bind} is reachable from other machines"
                );
            }
            eprintln!(
                "tandem app-server: warning: --ws-auth none: every account on this machine can connect to ws://{bind} and run commands through the agent"
            );
            WsAuth::Disabled
        }
        WsAuthMode::SignedBearerToken => {
            if token_flags {
                anyhow::bail!(
                    "--ws-token-file and --ws-token-sha256 go with --ws-auth capability-token"
                );
            }
            let Some(secret) = &flags.ws_shared_secret_file else {
                anyhow::bail!("--ws-auth signed-bearer-token needs --ws-shared-secret-file PATH");
            };
            WsAuth::Signed(Arc::new(SignedTokens::new(
                secret,
                flags.ws_issuer.as_deref(),
                flags.ws_audience.as_deref(),
                flags
                    .ws_max_clock_skew_seconds
                    .unwrap_or(listener::auth::DEFAULT_CLOCK_SKEW_SECONDS),
            )?))
        }
        WsAuthMode::CapabilityToken => {
            if signed_flags {
                anyhow::bail!(
                    "--ws-shared-secret-file, --ws-issuer, --ws-audience and --ws-max-clock-skew-seconds go with --ws-auth signed-bearer-token"
                );
            }
            match (&flags.ws_token_file, &flags.ws_token_sha256) {
                (Some(path), _) => WsAuth::Tokens(Arc::new(listener_auth::TokenTable::from_file(
                    "--ws-token-file",
                    path,
                )?)),
                (None, Some(hex)) => WsAuth::TokenDigest(listener::auth::parse_digest(hex)?),
                (None, None) => {
                    let (table, path) = listener_auth::TokenTable::generate(
                        &config.home,
                        listener::auth::GENERATED_WS_TOKEN_FILE,
                    )?;
                    eprintln!(
                        "tandem app-server: capability token written to {} (send `Authorization: Bearer <token>`; a new one at every start)",
                        path.display()
                    );
                    WsAuth::Tokens(Arc::new(table))
                }
            }
        }
    };
    // The page's URL carries the token when the server knows the one token to give.
    let web = flags.web.then(|| {
        listener::web::WebPage::new(match &auth {
            WsAuth::Disabled => Some(String::new()),
            WsAuth::Tokens(table) => {
                let tokens = table.tokens();
                if tokens.len() == 1 {
                    tokens.into_iter().next()
                } else {
                    None
                }
            }
            WsAuth::TokenDigest(_) | WsAuth::Signed(_) => None,
        })
    });
    Ok(listener::Admission::WebSocket {
        auth,
        allowed_origins: flags.allowed_origin.clone(),
        web,
    })
}

/// `app-server --print-startup-config`: the configuration loaded, the version and the
/// operator's requirements as one JSON line on stdout.
fn print_startup_config(config: &Config) -> anyhow::Result<()> {
    use std::io::Write;
    let report = serde_json::json!({
        "appServerVersion": env!("CARGO_PKG_VERSION"),
        "configRequirements": tandem_core::engine::config_requests::config_requirements_under(
            tandem_core::access::ClientPolicy::resolve(
                config,
                tandem_core::access::FrontEnd::AppServerStdio,
            )
            .max_sandbox(),
        ),
    });
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{report}")?;
    stdout.flush()?;
    Ok(())
}

#[allow(
    clippy::print_stderr,
    reason = "notes about the command line go to stderr"
)]
fn report_note(note: &str) {
    eprintln!("tandem: note: {note}");
}

fn run_mcp_server(args: &cli::McpServerArgs, overrides: &[String]) -> anyhow::Result<()> {
    let config = Config::load(None, overrides)?;
    mcp::logging::init(&config.home);
    // One account for the home, shared by every session's engine.
    let account = Arc::new(tandem_core::account::AccountState::load(&config.home));
    let os_release = compat::requests::OsRelease::read();
    // An unknown `--tools` name, a bad `[history]` table or an unreachable ClickHouse stops the
    // server before it serves.
    mcp::tools::check_selection(args.tools.as_deref())?;
    let history = history::connect_for_server(&config, args.tools.as_deref())?;
    // Which front end this is decides the defaults of the operator's `[clients]` ceiling.
    let front_end = match args.http {
        None => tandem_core::access::FrontEnd::McpServerStdio,
        Some(_) => tandem_core::access::FrontEnd::McpServerHttp,
    };
    // The signing key of 2026 `requestState`s: the operator's, or the home's generated one.
    let request_states = Arc::new(mcp::request_state::RequestStates::load(
        &config.home,
        &config.effective,
    )?);
    let options = mcp::session::McpOptions {
        account,
        os_release,
        audit: tandem_core::audit::AuditLog::open(&config.home),
        front_end: front_end.name(),
        access: tandem_core::access::ClientPolicy::resolve(&config, front_end),
        history,
        families: mcp::tools::families_for(args.tools.as_deref()),
        warm_up_started: Arc::default(),
        tools: args.tools.clone(),
        approval_fallback: args.approval_fallback,
        approval_timeout: std::time::Duration::from_secs(60 * 60),
        parked_calls: Arc::new(mcp::mrtr::ParkedCalls::new(
            request_states.max_pending(),
            request_states.ttl(),
        )),
        request_states,
        listeners: Arc::default(),
        tasks: Arc::default(),
        #[cfg(feature = "conformance-fixtures")]
        conformance_fixtures: args.conformance_fixtures,
    };
    // Everything that can refuse the command line, and the token file, before the runtime.
    let http = match args.http {
        None => None,
        Some(bind) => {
            let distributed = mcp::distributed::DistributedOptions::from_config(
                &config.effective,
                args.redis.as_deref(),
                args.session_ttl,
            )?;
            let authentication = mcp_authentication(args, bind, &config, distributed.is_some())?;
            let http = mcp::http::HttpOptions {
                bind,
                access: mcp::http::guard::AccessPolicy {
                    allowed_hosts: args.allowed_host.clone(),
                    allowed_origins: args.allowed_origin.clone(),
                    authentication,
                },
                limits: http_accept::ConnectionLimits {
                    max_connections: http_accept::connection_cap(
                        args.max_connections as usize,
                        "mcp-server",
                    ),
                    header_read_timeout: args.header_read_timeout,
                },
                max_sessions: args.max_sessions as usize,
                session_ttl: args.session_ttl,
                max_body_bytes: args.max_body_bytes,
                keep_alive: args
                    .sse_keep_alive
                    .max(std::time::Duration::from_millis(10)),
                replay_buffer: 1024,
                sse_retry: std::time::Duration::from_secs(3),
            };
            Some((http, distributed))
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = match http {
        None => runtime.block_on(mcp::stdio::serve_stdio(config, options)),
        Some((http, distributed)) => {
            runtime.block_on(mcp::http::serve_http(config, options, http, distributed))
        }
    };
    shutdown::finish(runtime);
    served
}

/// The authentication of `mcp-server --http` from `--auth` and `--auth-token-file`: refuses
/// `--auth none` off loopback and a generated token in a cluster; writes a generated token.
#[allow(
    clippy::print_stderr,
    reason = "where the generated token lies is told on stderr to whoever started the server"
)]
fn mcp_authentication(
    args: &cli::McpServerArgs,
    bind: std::net::SocketAddr,
    config: &Config,
    distributed: bool,
) -> anyhow::Result<listener_auth::Authentication> {
    use listener_auth::{Authentication, GENERATED_TOKEN_FILE, TokenTable};
    match (args.auth, &args.auth_token_file) {
        (cli::AuthMode::None, Some(_)) => {
            anyhow::bail!("--auth none and --auth-token-file exclude each other")
        }
        (cli::AuthMode::None, None) if !bind.ip().is_loopback() => anyhow::bail!(
            "--auth none is accepted on loopback addresses only (127.0.0.0/8, ::1): {bind} is reachable from other machines; use --auth-token-file FILE"
        ),
        (cli::AuthMode::None, None) => Ok(Authentication::Disabled),
        (cli::AuthMode::Token, Some(path)) => Ok(Authentication::Tokens(std::sync::Arc::new(
            TokenTable::from_file("--auth-token-file", path)?,
        ))),
        (cli::AuthMode::Token, None) if distributed => anyhow::bail!(
            "a cluster (--redis or [mcp.distributed]) needs --auth-token-file FILE, the same file on every node (or --auth none on loopback addresses): a generated token is for a single node"
        ),
        (cli::AuthMode::Token, None) => {
            let (table, path) = TokenTable::generate(&config.home, GENERATED_TOKEN_FILE)?;
            eprintln!(
                "tandem mcp-server: bearer token written to {} (send `Authorization: Bearer <token>`; a new one at every start)",
                path.display()
            );
            Ok(Authentication::Tokens(std::sync::Arc::new(table)))
        }
    }
}

fn run_terminal_client(args: &cli::RunArgs, overrides: &[String]) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run_client::run(args, overrides))
}

/// Logs go to stderr (stdout is the protocol); `RUST_LOG` filters, default `warn`.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}
