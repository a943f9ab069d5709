//! Approvals and questions of 2026-07-28 `codex` / `codex-reply` calls without server
//! requests: multi-round-trip results (`resultType: "input_required"`).
//!
//! A 2026 client that declares the elicitation capability gets, when its call's turn needs an
//! approval or an answer, a result `{resultType: "input_required", inputRequests:
//! {"elicitation": {method: "elicitation/create", params: <the form of a 2025 elicitation>}},
//! requestState}`, while the turn waits. The client retries the same `tools/call` with
//! `inputResponses: {"elicitation": <ElicitResult>}` and the `requestState`: the answer goes to
//! the waiting turn, and the retry is answered with the call's result, or with the next
//! `input_required`. The state is signed and single-use ([`crate::mcp::request_state`]).
//!
//! The request that started the call keeps running it after its `input_required` answer (its
//! session stays open, and its transport's slot held, until the turn ends); its later events
//! are not streamed. The waiting calls live in [`ParkedCalls`], one per pending question, on
//! the node that runs them; at most `[mcp.request_state] max_pending` per principal. A question
//! whose answer does not come within the state's lifetime ends like an unanswered elicitation
//! (`approval request timed out`).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::mcp::output::{Outbound, Route};
use crate::mcp::protocol::response;
use crate::mcp::session::McpSession;
use crate::rpc_error;
use tandem_core::engine::approval::{ApprovalReply, ApprovalRequest};
use tandem_core::principal::Principal;
use tandem_core::sync::lock;

/// The `inputRequests` key of a call's pending question.
pub const INPUT_KEY: &str = "elicitation";
/// How many calls of one principal may wait for input at once, unless configured.
pub const DEFAULT_MAX_PENDING: usize = 16;

/// What a running call tells the request waiting on it.
pub enum Step {
    /// The turn asks `requests` (an `inputRequests` map) as question `question`; the client's
    /// answer goes to `answer`.
    Input {
        /// The question's id (named by the request state).
        question: String,
        /// The `inputRequests` map.
        requests: Value,
        /// Where the `inputResponses` entry goes.
        answer: oneshot::Sender<Value>,
    },
    /// The call ended: its result (`None`: cancelled).
    Done(Option<Result<Value, JsonRpcErrorBody>>),
}

/// The link from a 2026 call's session to the request waiting on it.
pub struct CallLink {
    /// Whose call it is.
    pub principal: Principal,
    /// Where questions and the result go.
    pub steps: mpsc::Sender<Step>,
}

/// A call waiting for the answer to one question.
struct Parked {
    principal: String,
    /// The tool called (`tools/call:NAME`), which the retry must name.
    target: String,
    requests: Value,
    answer: oneshot::Sender<Value>,
    call: CallHandle,
    /// When the question's state expires; past it the entry is dropped.
    expires: Instant,
}

/// What a request holds of the call it waits on.
struct CallHandle {
    /// The call's questions and result.
    steps: mpsc::Receiver<Step>,
    /// Cancels the call.
    cancel: CancellationToken,
    /// The outbound of the call's session, which relays its messages to the retry.
    relay: Option<Arc<CallOutbound>>,
}

/// The calls of one server waiting for input, by question id.
pub struct ParkedCalls {
    max_per_principal: usize,
    ttl: Duration,
    entries: Mutex<HashMap<String, Parked>>,
}

impl std::fmt::Debug for ParkedCalls {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ParkedCalls")
            .field("max_per_principal", &self.max_per_principal)
            .finish_non_exhaustive()
    }
}

impl ParkedCalls {
    /// An empty set allowing `max_per_principal` waiting calls per principal, each for at
    /// most `ttl` (the lifetime of a request state).
    pub fn new(max_per_principal: usize, ttl: Duration) -> ParkedCalls {
        ParkedCalls {
            max_per_principal,
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `principal` may park one more call.
    pub fn has_room(&self, principal: &Principal) -> bool {
        let mut entries = lock(&self.entries);
        let now = Instant::now();
        entries.retain(|_, parked| parked.expires > now);
        let held = entries
            .values()
            .filter(|parked| parked.principal == principal.name())
            .count();
        held < self.max_per_principal
    }

    /// Forgets question `question` (its answer will not come).
    pub fn forget(&self, question: &str) {
        lock(&self.entries).remove(question);
    }

    /// Whether a call waits for the answer to `question`.
    fn holds(&self, question: &str) -> bool {
        lock(&self.entries).contains_key(question)
    }

    fn take(&self, question: &str) -> Option<Parked> {
        lock(&self.entries).remove(question)
    }

    fn insert(&self, question: String, mut parked: Parked) {
        parked.expires = Instant::now() + self.ttl;
        lock(&self.entries).insert(question, parked);
    }
}

/// The refusal of a state whose call does not wait on this server.
fn no_call_waits() -> JsonRpcErrorBody {
    rpc_error::invalid_params(
        "requestState refused: no call waits for it on this server (it ended, timed out, or runs on another node)",
    )
}

/// The tools whose 2026 calls can ask through `input_required`.
pub fn asks_through_results(name: &str) -> bool {
    matches!(name, "codex" | "codex-reply")
}

impl McpSession {
    /// Whether this 2026 `tools/call` is served by this module: a retry (it carries a
    /// `requestState`) of `codex` or `codex-reply`, or a first call of one of them by a client
    /// that declared the elicitation capability.
    pub(crate) fn is_multi_round_call(&self, params: &Value) -> bool {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.is_modern()
            && asks_through_results(name)
            && (params.get("requestState").is_some()
                || self
                    .shared
                    .negotiated
                    .get()
                    .is_some_and(|negotiated| negotiated.capabilities.form_elicitation))
    }

    /// Serves a `tools/call` of [`McpSession::is_multi_round_call`]. `None`: cancelled, or
    /// answered already (with `input_required`, while the call goes on here).
    pub(crate) async fn multi_round_call(
        &self,
        id: &RequestId,
        params: &Value,
        cancel: CancellationToken,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        if params.get("requestState").is_some() {
            return self.resume_call(id, params, cancel).await;
        }
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let target = format!("tools/call:{name}");
        let (sender, mut steps) = mpsc::channel(4);
        let _ = self.shared.call_link.set(CallLink {
            principal: self.principal.clone(),
            steps: sender.clone(),
        });
        let call = self.call_tool(id, params, cancel.clone());
        tokio::pin!(call);
        let step = tokio::select! {
            outcome = &mut call => return outcome,
            step = steps.recv() => step,
        };
        let Some(Step::Input {
            question,
            requests,
            answer,
        }) = step
        else {
            return call.await;
        };
        let relay = self.shared.call_relay.get().cloned();
        let handle = CallHandle {
            steps,
            cancel,
            relay: relay.clone(),
        };
        let result = self.park(question, &target, requests, answer, handle);
        // The request is answered now; the call goes on without it (a cancellation of this
        // request id no longer reaches it, nor does the closing of its stream).
        self.shared.forget_request(id);
        let result = result.map(|result| crate::mcp::modern::complete_result("tools/call", result));
        let message = match &result {
            Ok(result) => response(id, result.clone()),
            Err(error) => crate::mcp::protocol::error_response(Some(id), error),
        };
        self.shared
            .outbound
            .send(Route::Request(id.clone()), message)
            .await;
        if let Some(relay) = &relay {
            relay.answered(id);
        }
        let outcome = call.await;
        // Whoever waits for the call now gets its result; nobody may wait any more.
        let _ = sender.try_send(Step::Done(outcome));
        None
    }

    /// Parks a call at its question and returns the `input_required` result that asks it.
    fn park(
        &self,
        question: String,
        target: &str,
        requests: Value,
        answer: oneshot::Sender<Value>,
        call: CallHandle,
    ) -> Result<Value, JsonRpcErrorBody> {
        let options = &self.shared.options;
        let state = options
            .request_states
            .issue(&self.principal, target, &question, json!({}));
        options.parked_calls.insert(
            question,
            Parked {
                principal: self.principal.name().to_string(),
                target: target.to_string(),
                requests: requests.clone(),
                answer,
                call,
                expires: Instant::now(),
            },
        );
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": state,
        }))
    }

    /// A retry: redeems its state, gives its answer to the parked call and waits for the
    /// call's next step.
    async fn resume_call(
        &self,
        id: &RequestId,
        params: &Value,
        cancel: CancellationToken,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let target = format!("tools/call:{name}");
        let Some(state) = params.get("requestState").and_then(Value::as_str) else {
            return Some(Err(rpc_error::invalid_params(
                "requestState must be a string",
            )));
        };
        let response = match params.get("inputResponses") {
            None => None,
            Some(Value::Object(responses)) => match responses.get(INPUT_KEY) {
                None => None,
                Some(answer @ Value::Object(_)) => Some(answer.clone()),
                Some(_) => {
                    return Some(Err(rpc_error::invalid_params(format!(
                        "inputResponses.{INPUT_KEY} must be an object"
                    ))));
                }
            },
            Some(_) => {
                return Some(Err(rpc_error::invalid_params(
                    "inputResponses must be an object",
                )));
            }
        };
        let options = &self.shared.options;
        let redeemed = match options
            .request_states
            .check(state, &self.principal, &target)
        {
            Ok(redeemed) => redeemed,
            Err(error) => return Some(Err(error)),
        };
        // A node where no call waits refuses the state without using it up, so that the
        // node whose call waits still honours it; that node marks it used cluster-wide.
        if !options.parked_calls.holds(&redeemed.question) {
            return Some(Err(no_call_waits()));
        }
        if let Err(error) = options.request_states.claim(&redeemed).await {
            return Some(Err(error));
        }
        let Some(parked) = options.parked_calls.take(&redeemed.question) else {
            return Some(Err(no_call_waits()));
        };
        if parked.principal != self.principal.name() || parked.target != target {
            return Some(Err(rpc_error::invalid_params(
                "requestState refused: it was issued for another call",
            )));
        }
        let Parked {
            requests,
            answer,
            call: mut handle,
            ..
        } = parked;
        let Some(response) = response else {
            // The answer is missing: ask the same question again, under a new state.
            let question = match crate::mcp::request_state::new_question_id() {
                Ok(question) => question,
                Err(error) => {
                    return Some(Err(rpc_error::internal_error(format!(
                        "cannot draw a question id: {error}"
                    ))));
                }
            };
            return Some(self.park(question, &target, requests, answer, handle));
        };
        // The call's messages go to this retry while it waits.
        if let Some(relay) = &handle.relay {
            relay.attach(Relay {
                outbound: self.shared.outbound.clone(),
                id: id.clone(),
                progress_token: params
                    .pointer("/_meta/progressToken")
                    .filter(|token| token.is_string() || token.is_i64() || token.is_u64())
                    .cloned(),
            });
        }
        let _ = answer.send(response);
        let step = tokio::select! {
            step = handle.steps.recv() => step,
            () = cancel.cancelled() => {
                handle.cancel.cancel();
                None
            }
        };
        if let Some(relay) = &handle.relay {
            relay.detach();
        }
        if cancel.is_cancelled() {
            return None;
        }
        match step {
            Some(Step::Input {
                question,
                requests,
                answer,
            }) => Some(self.park(question, &target, requests, answer, handle)),
            Some(Step::Done(outcome)) => outcome,
            None => Some(Err(rpc_error::internal_error(
                "the call ended without a result",
            ))),
        }
    }
}

impl crate::mcp::session::SessionShared {
    /// Asks `request` through the waiting request's `input_required` result, when this
    /// session runs a multi-round-trip call; `None` otherwise.
    pub(crate) async fn ask_through_result(
        &self,
        request: &ApprovalRequest,
        call: Option<&RequestId>,
        announced: Option<&Value>,
        cancel: &CancellationToken,
    ) -> Option<ApprovalReply> {
        let link = self.call_link.get()?;
        let version = self.negotiated.get()?.version;
        let parked_calls: &Arc<ParkedCalls> = &self.options.parked_calls;
        if !parked_calls.has_room(&link.principal) {
            return Some(ApprovalReply::Failed(
                "too many calls of this principal wait for input".into(),
            ));
        }
        let question = match crate::mcp::request_state::new_question_id() {
            Ok(question) => question,
            Err(error) => {
                return Some(ApprovalReply::Failed(format!(
                    "cannot draw a question id: {error}"
                )));
            }
        };
        let params = crate::mcp::elicitation::elicitation_params(request, call, version, announced);
        let requests = json!({INPUT_KEY: {"method": "elicitation/create", "params": params}});
        let (answer, answered) = oneshot::channel();
        let step = Step::Input {
            question: question.clone(),
            requests,
            answer,
        };
        if link.steps.send(step).await.is_err() {
            return Some(ApprovalReply::Failed("nobody waits for this call".into()));
        }
        let ttl = self.options.request_states.ttl();
        // The entry's answer sender is dropped when this question is forgotten below.
        let reply = tokio::select! {
            answer = answered => match answer {
                Ok(answer) => crate::mcp::elicitation::reply_from_answer(request, Ok(answer)),
                Err(_) => ApprovalReply::Withdrawn,
            },
            () = tokio::time::sleep(ttl) => {
                report_unanswered(link.principal.name());
                ApprovalReply::Failed("approval request timed out".into())
            }
            () = cancel.cancelled() => ApprovalReply::Withdrawn,
        };
        parked_calls.forget(&question);
        Some(reply)
    }
}

/// Reports on stderr, for whoever started the server, that a question of a 2026 call of
/// `principal` was not answered within the state's lifetime (the approval then fails like an
/// unanswered elicitation).
#[allow(clippy::print_stderr, reason = "the operator's notice goes to stderr")]
fn report_unanswered(principal: &str) {
    eprintln!(
        "tandem mcp-server: a question of a 2026 call went unanswered: principal {principal}"
    );
}

/// Where a multi-round-trip call's messages go now.
struct Relay {
    /// The outbound of the retry waiting on the call.
    outbound: Arc<dyn Outbound>,
    /// The retry's request id.
    id: RequestId,
    /// The retry's progress token, if it asked for progress.
    progress_token: Option<Value>,
}

struct RelayState {
    /// The transport's outbound of the session.
    direct: Arc<dyn Outbound>,
    /// The request answered with `input_required` whose call goes on.
    answered: Option<RequestId>,
    /// The retry waiting on the call, if any.
    target: Option<Relay>,
    /// The task the answered request started, whose status message follows the call's
    /// progress messages (`crate::mcp::tasks`).
    task: Option<(Arc<crate::mcp::tasks::Tasks>, String)>,
}

/// The outbound of a 2026 session: the transport's, except that once the session's call was
/// answered with `input_required`, that call's messages (its `codex/event` and progress) go to
/// the retry waiting on it, under the retry's id and progress token, and are dropped while no
/// retry waits.
pub struct CallOutbound {
    state: Mutex<RelayState>,
}

impl CallOutbound {
    /// Sends through `direct` until [`CallOutbound::answered`].
    pub fn new(direct: Arc<dyn Outbound>) -> CallOutbound {
        CallOutbound {
            state: Mutex::new(RelayState {
                direct,
                answered: None,
                target: None,
                task: None,
            }),
        }
    }

    /// Request `id` has been answered; its call's messages now follow the retries.
    fn answered(&self, id: &RequestId) {
        lock(&self.state).answered = Some(id.clone());
    }

    /// Request `id` has been answered with a task: its call's messages still go to the
    /// transport (over HTTP, the principal's `subscriptions/listen` streams), and its progress
    /// messages become the status message of task `task_id`.
    pub(crate) fn answered_with_task(
        &self,
        id: &RequestId,
        tasks: Arc<crate::mcp::tasks::Tasks>,
        task_id: String,
    ) {
        let mut state = lock(&self.state);
        state.answered = Some(id.clone());
        state.task = Some((tasks, task_id));
    }

    fn attach(&self, relay: Relay) {
        lock(&self.state).target = Some(relay);
    }

    fn detach(&self) {
        lock(&self.state).target = None;
    }
}

/// `message` as the retry `relay` gets it; `None` when it has nothing for it (progress for a
/// retry that asked for none).
fn relayed(mut message: Value, relay: &Relay) -> Option<Value> {
    if message["method"] == "notifications/progress" {
        message["params"]["progressToken"] = relay.progress_token.clone()?;
    }
    if let Some(meta) = message
        .get_mut("params")
        .and_then(|params| params.get_mut("_meta"))
        .and_then(Value::as_object_mut)
        && meta.contains_key("requestId")
    {
        meta.insert("requestId".into(), json!(relay.id));
    }
    Some(message)
}

impl Outbound for CallOutbound {
    fn send(&self, route: Route, message: Value) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let mut progress = None;
        let forward = {
            let state = lock(&self.state);
            match (&state.answered, &route, &state.task) {
                (Some(answered), Route::Request(id), Some((tasks, task_id))) if id == answered => {
                    if message["method"] == "notifications/progress"
                        && let Some(text) =
                            message.pointer("/params/message").and_then(Value::as_str)
                    {
                        progress = Some((tasks.clone(), task_id.clone(), text.to_string()));
                    }
                    Some((state.direct.clone(), route, message))
                }
                (Some(answered), Route::Request(id), None) if id == answered => {
                    state.target.as_ref().and_then(|relay| {
                        relayed(message, relay).map(|message| {
                            (
                                relay.outbound.clone(),
                                Route::Request(relay.id.clone()),
                                message,
                            )
                        })
                    })
                }
                _ => Some((state.direct.clone(), route, message)),
            }
        };
        Box::pin(async move {
            if let Some((tasks, task_id, text)) = progress {
                tasks.progress(&task_id, &text).await;
            }
            if let Some((outbound, route, message)) = forward {
                outbound.send(route, message).await;
            }
        })
    }

    fn abandon(&self, id: &RequestId) {
        let direct = lock(&self.state).direct.clone();
        direct.abandon(id);
    }
}
