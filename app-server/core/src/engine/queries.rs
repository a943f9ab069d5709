//! Read-only queries: `thread/list`, `thread/read`, `thread/turns/list`, `thread/loaded/list`
//! and `model/list`.

use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::notifications::DeprecationNoticeNotification;
use app_server_protocol::policy::{
    CollaborationModeMask, ModeKind, ReasoningEffort, SortDirection,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{Thread, ThreadStatus, Turn, TurnItemsView};
use app_server_protocol::thread_requests::{
    ThreadListCwdFilter, ThreadListParams, ThreadListResponse, ThreadLoadedListParams,
    ThreadLoadedListResponse, ThreadReadParams, ThreadSortKey, ThreadSourceKind,
    ThreadTurnsListParams, ThreadTurnsListResponse,
};
use app_server_protocol::utility::{
    InputModality, Model, ModelListParams, ModelListResponse, ReasoningEffortOption,
};

use crate::config::ProviderConfig;
use crate::engine::settings::{not_loaded, resolve_cwd};
use crate::engine::thread::thread_from_meta;
use crate::engine::{Engine, EngineError};
use crate::store::{ListQuery, StoreError, StoredThread};
use crate::sync::lock;

const INCLUDE_TURNS_DEPRECATION: &str = "Full-history hydration is deprecated for paginated threads; omit `includeTurns` or set it to `false`, then page with `thread/turns/list` and `thread/items/list`.";

impl Engine {
    /// `thread/list`.
    pub async fn list_threads(
        &self,
        params: ThreadListParams,
    ) -> Result<ThreadListResponse, EngineError> {
        // No Tandem thread belongs to a project or was spawned by another thread, so these
        // filters match nothing (`projectId: null`, threads of no project, matches them all).
        if params.parent_thread_id.is_some()
            || params.ancestor_thread_id.is_some()
            || matches!(params.project_id, Some(Some(_)))
        {
            return Ok(ThreadListResponse {
                data: Vec::new(),
                read_states: Some(Default::default()),
                next_cursor: None,
                backwards_cursor: None,
            });
        }
        if params.sort_key == Some(ThreadSortKey::SectionPosition)
            && !matches!(params.section_id, Some(Some(_)))
        {
            return Err(EngineError::InvalidRequest(
                "section-position sorting requires a section filter".into(),
            ));
        }
        let sources = match &params.source_kinds {
            Some(kinds) if !kinds.is_empty() => kinds
                .iter()
                .map(|kind| source_kind_name(*kind).to_string())
                .collect(),
            _ => vec!["cli".to_string(), "vscode".to_string()],
        };
        let cwds = match &params.cwd {
            None => Vec::new(),
            Some(ThreadListCwdFilter::One(cwd)) => vec![resolve_cwd(Some(cwd))],
            Some(ThreadListCwdFilter::Many(cwds)) => {
                cwds.iter().map(|cwd| resolve_cwd(Some(cwd))).collect()
            }
        };
        let query = ListQuery {
            owner: self.principal().clone(),
            cursor: params.cursor.clone(),
            limit: params.limit.map(|limit| limit.max(1) as usize),
            sort_key: params.sort_key.unwrap_or(ThreadSortKey::CreatedAt),
            sort_direction: params.sort_direction.unwrap_or(SortDirection::Desc),
            model_providers: params.model_providers.clone().unwrap_or_default(),
            sources,
            originators: params.originators.clone().unwrap_or_default(),
            archived: params.archived.unwrap_or(false),
            cwds,
            search_term: params.search_term.clone(),
            excluded_ids: params.excluded_thread_ids.unwrap_or_default(),
            section: params.section_id.clone(),
        };
        let page = self
            .inner
            .store
            .blocking(move |store| store.list(&query))
            .await?;
        let mut data: Vec<Thread> = page
            .threads
            .iter()
            .map(|meta| {
                let status = self
                    .thread(&meta.id)
                    .map_or(ThreadStatus::NotLoaded, |thread| {
                        lock(&thread.state).status.clone()
                    });
                thread_from_meta(meta, status, false)
            })
            .collect();
        self.with_sections(&mut data).await?;
        let read_states = self.read_states_of(&data).await?;
        Ok(ThreadListResponse {
            data,
            read_states: Some(read_states),
            next_cursor: page.next_cursor,
            backwards_cursor: None,
        })
    }

    /// Thread `id` read back from its rollout on the blocking pool; a missing rollout is
    /// `not_found`'s error.
    pub(super) async fn load_stored(
        &self,
        id: &str,
        not_found: fn(&str) -> EngineError,
    ) -> Result<StoredThread, EngineError> {
        let loading = id.to_owned();
        self.inner
            .store
            .blocking(move |store| store.load(&loading))
            .await
            .map_err(|error| match error {
                StoreError::NotFound(_) => not_found(id),
                other => other.into(),
            })
    }

    /// `thread/read`. Emits `deprecationNotice` before returning when turns are included.
    pub async fn read_thread(&self, params: ThreadReadParams) -> Result<Thread, EngineError> {
        let owned = self.owned_thread(&params.thread_id, not_loaded).await?;
        let id = owned.id().to_owned();
        let include_turns = params.include_turns.unwrap_or(false);
        let mut thread = match owned.loaded() {
            Some(loaded) => {
                let state = lock(&loaded.state);
                let mut thread = state.to_thread();
                if include_turns {
                    thread.turns = state.turns.clone();
                }
                thread
            }
            None => {
                if include_turns {
                    let stored = self.load_stored(&id, not_loaded).await?;
                    let mut thread = thread_from_meta(&stored.meta, ThreadStatus::NotLoaded, false);
                    thread.turns = stored.turns;
                    thread
                } else {
                    let finding = id.clone();
                    let meta = self
                        .inner
                        .store
                        .blocking(move |store| store.find(&finding))
                        .await?
                        .ok_or_else(|| not_loaded(&id))?;
                    thread_from_meta(&meta, ThreadStatus::NotLoaded, false)
                }
            }
        };
        self.with_sections(std::slice::from_mut(&mut thread))
            .await?;
        if include_turns {
            self.emit(ServerNotification::DeprecationNotice(
                DeprecationNoticeNotification {
                    summary: INCLUDE_TURNS_DEPRECATION.into(),
                    details: None,
                },
            ))
            .await;
        }
        Ok(thread)
    }

    /// `thread/turns/list`. A thread that is not loaded is read from its rollout on the
    /// blocking pool.
    pub async fn list_turns(
        &self,
        params: ThreadTurnsListParams,
    ) -> Result<ThreadTurnsListResponse, EngineError> {
        let owned = self.owned_thread(&params.thread_id, not_loaded).await?;
        let id = owned.id().to_owned();
        let mut turns = match owned.loaded() {
            Some(thread) => lock(&thread.state).turns.clone(),
            None => self.load_stored(&id, not_loaded).await?.turns,
        };
        if params.sort_direction.unwrap_or(SortDirection::Desc) == SortDirection::Desc {
            turns.reverse();
        }
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => decode_offset_cursor(cursor)?,
        };
        let view = params.items_view.unwrap_or(TurnItemsView::Summary);
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = offset.saturating_add(limit).min(turns.len());
        let data = turns
            .get(offset.min(turns.len())..end)
            .unwrap_or_default()
            .iter()
            .cloned()
            .map(|turn| apply_items_view(turn, view))
            .collect();
        let next_cursor = (end < turns.len()).then(|| encode_offset_cursor(end));
        Ok(ThreadTurnsListResponse {
            data,
            next_cursor,
            backwards_cursor: None,
        })
    }

    /// The working directories of the engine principal's loaded threads (part of its file
    /// roots, `file_access`).
    pub fn loaded_workspaces(&self) -> Vec<std::path::PathBuf> {
        self.inner.threads.workspaces(self.principal())
    }

    /// `thread/loaded/list`: the loaded threads of the engine's principal.
    pub fn loaded_threads(
        &self,
        params: ThreadLoadedListParams,
    ) -> Result<ThreadLoadedListResponse, EngineError> {
        let ids = self.inner.threads.ids(self.principal());
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => decode_offset_cursor(cursor)?,
        };
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = offset.saturating_add(limit).min(ids.len());
        let data = ids
            .get(offset.min(ids.len())..end)
            .unwrap_or_default()
            .to_vec();
        let next_cursor = (end < ids.len()).then(|| encode_offset_cursor(end));
        Ok(ThreadLoadedListResponse { data, next_cursor })
    }

    /// `model/list`.
    pub async fn list_models(
        &self,
        params: ModelListParams,
    ) -> Result<ModelListResponse, EngineError> {
        let config = self.inner.config();
        let provider_id = params
            .model_provider
            .clone()
            .unwrap_or_else(|| config.model_provider.clone());
        let provider = self.provider(&provider_id)?;
        let client = self.client(&provider)?;
        let mut slugs = match client.list_models().await {
            Ok(slugs) if !slugs.is_empty() => slugs,
            Ok(_) | Err(_) => provider.models.clone(),
        };
        if slugs.is_empty() {
            slugs.push(provider.default_model.clone());
        }
        let default_model = config
            .model
            .clone()
            .unwrap_or_else(|| provider.default_model.clone());
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| EngineError::InvalidRequest(format!("invalid cursor: {cursor}")))?,
        };
        // `pageSize` is the older name; `limit` wins when both are sent.
        let limit = params
            .limit
            .or(params.page_size)
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = offset.saturating_add(limit).min(slugs.len());
        let data = slugs
            .get(offset.min(slugs.len())..end)
            .unwrap_or_default()
            .iter()
            .map(|slug| model_entry(slug, &provider, slug == &default_model))
            .collect();
        let next_cursor = (end < slugs.len()).then(|| end.to_string());
        Ok(ModelListResponse { data, next_cursor })
    }
}

/// The collaboration-mode presets of `collaborationMode/list`, as partial masks: `Plan`
/// selects plan mode (the model may ask the user questions) with medium reasoning effort and
/// keeps the model and developer instructions; `Default` selects the default mode and clears
/// both the effort (the model's default applies) and the developer instructions.
pub fn collaboration_mode_presets() -> Vec<CollaborationModeMask> {
    vec![
        CollaborationModeMask {
            name: "Plan".into(),
            mode: Some(ModeKind::Plan),
            model: None,
            reasoning_effort: Some(Some(ReasoningEffort::Medium)),
            developer_instructions: None,
        },
        CollaborationModeMask {
            name: "Default".into(),
            mode: Some(ModeKind::Default),
            model: None,
            reasoning_effort: Some(None),
            developer_instructions: Some(None),
        },
    ]
}

fn source_kind_name(kind: ThreadSourceKind) -> &'static str {
    match kind {
        ThreadSourceKind::Cli => "cli",
        ThreadSourceKind::Vscode => "vscode",
        ThreadSourceKind::Exec => "exec",
        ThreadSourceKind::AppServer => "appServer",
        ThreadSourceKind::SubAgent => "subAgent",
        ThreadSourceKind::SubAgentReview => "subAgentReview",
        ThreadSourceKind::SubAgentCompact => "subAgentCompact",
        ThreadSourceKind::SubAgentThreadSpawn => "subAgentThreadSpawn",
        ThreadSourceKind::SubAgentOther => "subAgentOther",
        ThreadSourceKind::Unknown => "unknown",
    }
}

/// `summary`: the user messages and the final agent message; `full`: everything;
/// `notLoaded`: nothing.
fn apply_items_view(mut turn: Turn, view: TurnItemsView) -> Turn {
    turn.items_view = view;
    match view {
        TurnItemsView::Full => {}
        TurnItemsView::NotLoaded => turn.items.clear(),
        TurnItemsView::Summary => {
            let last_agent = turn
                .items
                .iter()
                .rposition(|item| matches!(item.details, ThreadItemDetails::AgentMessage { .. }));
            let items: Vec<ThreadItem> = turn
                .items
                .iter()
                .enumerate()
                .filter(|(index, item)| {
                    matches!(item.details, ThreadItemDetails::UserMessage { .. })
                        || Some(*index) == last_agent
                })
                .map(|(_, item)| item.clone())
                .collect();
            turn.items = items;
        }
    }
    turn
}

pub(super) fn encode_offset_cursor(offset: usize) -> String {
    serde_json::json!({ "offset": offset }).to_string()
}

pub(super) fn decode_offset_cursor(cursor: &str) -> Result<usize, EngineError> {
    serde_json::from_str::<serde_json::Value>(cursor)
        .ok()
        .and_then(|value| value.get("offset").and_then(serde_json::Value::as_u64))
        .and_then(|offset| usize::try_from(offset).ok())
        .ok_or_else(|| EngineError::InvalidRequest(format!("invalid cursor: {cursor}")))
}

fn model_entry(slug: &str, provider: &ProviderConfig, is_default: bool) -> Model {
    let efforts = [
        (
            ReasoningEffort::Low,
            "Fast responses with lighter reasoning",
        ),
        (
            ReasoningEffort::Medium,
            "Balances speed and reasoning depth for everyday tasks",
        ),
        (
            ReasoningEffort::High,
            "Greater reasoning depth for complex problems",
        ),
    ];
    Model {
        id: slug.to_string(),
        model: slug.to_string(),
        upgrade: None,
        upgrade_info: None,
        availability_nux: None,
        display_name: slug.to_string(),
        description: format!("{slug} via {}", provider.name),
        model_specialty: None,
        hidden: false,
        supported_reasoning_efforts: efforts
            .iter()
            .map(|(effort, description)| ReasoningEffortOption {
                reasoning_effort: *effort,
                description: (*description).to_string(),
            })
            .collect(),
        default_reasoning_effort: ReasoningEffort::Medium,
        input_modalities: vec![InputModality::Text, InputModality::Image],
        supports_personality: false,
        multi_agent_version: None,
        additional_speed_tiers: Vec::new(),
        service_tiers: Vec::new(),
        default_service_tier: None,
        available_access_programs: None,
        is_default,
    }
}
