//! Method families: every method of the app-server's client table sorted into named families,
//! and each front end described as the families it serves.
//!
//! A front end is a transport plus a list of families. A method outside them is answered
//! `-32601` before any handler runs, so serving a family is the only way a method is reached:
//! the history-only MCP server (`--tools search,open`) serves no family of the app-server table
//! and cannot start a conversation or run a command. The sorting is an exhaustive `match` over
//! the table's [`ClientMethod`], so a method added to the table does not compile until it has a
//! family. [`ThreadScope`] sorts the same table by how each method relates to threads, for
//! the owner check.

use app_server_protocol::tables::ClientMethod;

/// A named set of methods with one purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MethodFamily {
    /// `initialize`: answered by every front end that speaks the app-server protocol.
    Handshake,
    /// Threads and turns (`thread/*`, `turn/*`).
    Threads,
    /// Models and collaboration modes (`model/list`, `collaborationMode/list`).
    Models,
    /// Reading the configuration and what it offers (`config/read`, `configRequirements/read`,
    /// `experimentalFeature/list`, `permissionProfile/list`, `modelProvider/list`,
    /// `modelProvider/capabilities/read`) and reading `config.toml` again
    /// (`config/mcpServer/reload`).
    Config,
    /// Writing `config.toml` (`config/value/write`, `config/batchWrite`,
    /// `modelProvider/config/write`, `modelProvider/default/set`) and runtime feature toggles
    /// (`experimentalFeature/enablement/set`); each write is also subject to
    /// `clients.allow_config_writes`.
    ConfigWrite,
    /// Standalone commands (`command/exec` and its companions, `process/*`).
    Commands,
    /// Searching the workspace's files (`fuzzyFileSearch` and its sessions).
    Files,
    /// Reading, writing and watching files within the connection's file roots (`fs/*`).
    FileSystem,
    /// The account of the home (`account/*`).
    Accounts,
    /// Codex's first-generation conversation API (`newConversation`, `sendUserMessage`, …,
    /// `execOneOffCommand`, `getAuthStatus`, `gitDiffToRemote`), shared by the app-server and
    /// the MCP adapter.
    ConversationApi,
    /// Search over past conversations (`history/search`, `history/open`).
    History,
    /// The project index (`index/query`, `index/refresh`).
    Index,
    /// The configured MCP servers of a thread (`mcpServerStatus/list`).
    McpServers,
    /// Skills: listing them, choosing which the model is told about, the connection's extra
    /// roots (`skills/*`); the write is also subject to `clients.allow_config_writes`.
    Skills,
    /// The operator's hooks (`hooks/list`).
    Hooks,
    /// A client calling a thread's MCP servers directly (`mcpServer/tool/call`,
    /// `mcpServer/resource/read`): a network listener serves them only when the operator
    /// enables them ([`MethodFamily::OPERATOR_OPT_IN`]).
    McpServerCalls,
    /// Housekeeping: a local feedback bundle (`feedback/save`), the local plugins
    /// (`plugin/list`) and importing another agent's setup (`externalAgentConfig/detect`,
    /// `externalAgentConfig/import`, which adds MCP servers or hooks for local clients only).
    Housekeeping,
}

impl MethodFamily {
    /// Every family.
    pub const ALL: &'static [MethodFamily] = &[
        MethodFamily::Handshake,
        MethodFamily::Threads,
        MethodFamily::Models,
        MethodFamily::Config,
        MethodFamily::ConfigWrite,
        MethodFamily::Commands,
        MethodFamily::Files,
        MethodFamily::FileSystem,
        MethodFamily::Accounts,
        MethodFamily::ConversationApi,
        MethodFamily::History,
        MethodFamily::Index,
        MethodFamily::McpServers,
        MethodFamily::Skills,
        MethodFamily::Hooks,
        MethodFamily::McpServerCalls,
        MethodFamily::Housekeeping,
    ];

    /// The families a network listener leaves out unless the operator enables them:
    /// `McpServerCalls` with `clients.allow_mcp_server_calls = true` (the core refuses the
    /// calls too, whichever front end serves them, see `ClientPolicy::allows_mcp_server_calls`).
    pub const OPERATOR_OPT_IN: &'static [MethodFamily] = &[MethodFamily::McpServerCalls];

    /// The family a method belongs to.
    pub const fn of(method: ClientMethod) -> MethodFamily {
        match method {
            ClientMethod::Initialize => MethodFamily::Handshake,
            ClientMethod::ThreadStart
            | ClientMethod::ThreadResume
            | ClientMethod::ThreadFork
            | ClientMethod::ThreadList
            | ClientMethod::ThreadRead
            | ClientMethod::ThreadTurnsList
            | ClientMethod::ThreadItemsList
            | ClientMethod::ThreadArchive
            | ClientMethod::ThreadDelete
            | ClientMethod::ThreadMetadataUpdate
            | ClientMethod::ThreadInjectItems
            | ClientMethod::ThreadRevert
            | ClientMethod::ThreadGoalSet
            | ClientMethod::ThreadGoalGet
            | ClientMethod::ThreadGoalClear
            | ClientMethod::ThreadAttachmentAdd
            | ClientMethod::ThreadAttachmentList
            | ClientMethod::ThreadAttachmentRemove
            | ClientMethod::ThreadUnarchive
            | ClientMethod::ThreadSetName
            | ClientMethod::ThreadLoadedList
            | ClientMethod::ThreadUnsubscribe
            | ClientMethod::ThreadRollback
            | ClientMethod::ThreadCompactStart
            | ClientMethod::ThreadShellCommand
            | ClientMethod::ReviewStart
            | ClientMethod::ThreadBackgroundTerminalsList
            | ClientMethod::ThreadQueueAdd
            | ClientMethod::ThreadQueueList
            | ClientMethod::ThreadSectionCreate
            | ClientMethod::ThreadSectionList
            | ClientMethod::ThreadSectionUpdate
            | ClientMethod::ThreadSectionDelete
            | ClientMethod::ThreadSectionMove
            | ClientMethod::ThreadSettingsUpdate
            | ClientMethod::ThreadReadStateUpdate
            | ClientMethod::TurnStart
            | ClientMethod::TurnInterrupt
            | ClientMethod::TurnSteer => MethodFamily::Threads,
            ClientMethod::ModelList | ClientMethod::CollaborationModeList => MethodFamily::Models,
            ClientMethod::ConfigRead
            | ClientMethod::ConfigMcpServerReload
            | ClientMethod::ConfigRequirementsRead
            | ClientMethod::ExperimentalFeatureList
            | ClientMethod::PermissionProfileList
            | ClientMethod::ModelProviderList
            | ClientMethod::ModelProviderCapabilitiesRead => MethodFamily::Config,
            ClientMethod::ConfigValueWrite
            | ClientMethod::ConfigBatchWrite
            | ClientMethod::ExperimentalFeatureEnablementSet
            | ClientMethod::ModelProviderConfigWrite
            | ClientMethod::ModelProviderDefaultSet => MethodFamily::ConfigWrite,
            ClientMethod::CommandExec
            | ClientMethod::CommandExecWrite
            | ClientMethod::CommandExecResize
            | ClientMethod::CommandExecTerminate
            | ClientMethod::ProcessSpawn
            | ClientMethod::ProcessWriteStdin
            | ClientMethod::ProcessKill
            | ClientMethod::ProcessResizePty => MethodFamily::Commands,
            ClientMethod::FuzzyFileSearch
            | ClientMethod::FuzzyFileSearchSessionStart
            | ClientMethod::FuzzyFileSearchSessionUpdate
            | ClientMethod::FuzzyFileSearchSessionStop => MethodFamily::Files,
            ClientMethod::FsReadFile
            | ClientMethod::FsWriteFile
            | ClientMethod::FsCreateDirectory
            | ClientMethod::FsGetMetadata
            | ClientMethod::FsReadDirectory
            | ClientMethod::FsRemove
            | ClientMethod::FsCopy
            | ClientMethod::FsWatch
            | ClientMethod::FsUnwatch => MethodFamily::FileSystem,
            ClientMethod::AccountRead
            | ClientMethod::AccountLoginStart
            | ClientMethod::AccountLoginCancel
            | ClientMethod::AccountLogout
            | ClientMethod::AccountRateLimitsRead => MethodFamily::Accounts,
            ClientMethod::GitDiffToRemote
            | ClientMethod::GetAuthStatus
            | ClientMethod::GetConversationSummary
            | ClientMethod::NewConversation
            | ClientMethod::SendUserMessage
            | ClientMethod::SendUserTurn
            | ClientMethod::InterruptConversation
            | ClientMethod::ListConversations
            | ClientMethod::ResumeConversation
            | ClientMethod::ArchiveConversation
            | ClientMethod::GetUserSavedConfig
            | ClientMethod::SetDefaultModel
            | ClientMethod::GetUserAgent
            | ClientMethod::UserInfo
            | ClientMethod::ExecOneOffCommand => MethodFamily::ConversationApi,
            ClientMethod::HistorySearch
            | ClientMethod::HistoryOpen
            | ClientMethod::ThreadSearch
            | ClientMethod::MemoryStatus => MethodFamily::History,
            ClientMethod::IndexQuery | ClientMethod::IndexRefresh => MethodFamily::Index,
            ClientMethod::McpServerStatusList => MethodFamily::McpServers,
            ClientMethod::SkillsList
            | ClientMethod::SkillsConfigWrite
            | ClientMethod::SkillsExtraRootsSet => MethodFamily::Skills,
            ClientMethod::HooksList => MethodFamily::Hooks,
            ClientMethod::McpServerToolCall | ClientMethod::McpResourceRead => {
                MethodFamily::McpServerCalls
            }
            ClientMethod::FeedbackSave
            | ClientMethod::PluginList
            | ClientMethod::ExternalAgentConfigDetect
            | ClientMethod::ExternalAgentConfigImport => MethodFamily::Housekeeping,
        }
    }

    /// The methods of this family, in table order.
    pub fn methods(self) -> impl Iterator<Item = ClientMethod> {
        ClientMethod::ALL
            .iter()
            .copied()
            .filter(move |method| MethodFamily::of(*method) == self)
    }
}

/// How a method of the client table relates to threads, for the owner check
/// (`engine::owner`): the exhaustive `match` of [`ThreadScope::of`] makes a method added to
/// the table say whether it names a thread before it compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreadScope {
    /// Its params name a thread: the owner check runs before its handler, and another
    /// principal's thread fails as one that does not exist.
    NamesThread,
    /// It lists threads: only the caller's are listed.
    ListsThreads,
    /// It searches or opens history entries: only those of the caller's threads are found.
    History,
    /// It names no thread (it may create one, which then belongs to the caller).
    None,
}

impl ThreadScope {
    /// The scope of a method.
    pub const fn of(method: ClientMethod) -> ThreadScope {
        match method {
            ClientMethod::ThreadResume
            | ClientMethod::ThreadFork
            | ClientMethod::ThreadRead
            | ClientMethod::ThreadTurnsList
            | ClientMethod::ThreadItemsList
            | ClientMethod::ThreadArchive
            | ClientMethod::ThreadDelete
            | ClientMethod::ThreadMetadataUpdate
            | ClientMethod::ThreadInjectItems
            | ClientMethod::ThreadRevert
            | ClientMethod::ThreadGoalSet
            | ClientMethod::ThreadGoalGet
            | ClientMethod::ThreadGoalClear
            | ClientMethod::ThreadAttachmentAdd
            | ClientMethod::ThreadAttachmentList
            | ClientMethod::ThreadAttachmentRemove
            | ClientMethod::ThreadUnarchive
            | ClientMethod::ThreadSetName
            | ClientMethod::ThreadUnsubscribe
            | ClientMethod::ThreadRollback
            | ClientMethod::ThreadCompactStart
            | ClientMethod::ThreadShellCommand
            | ClientMethod::ReviewStart
            | ClientMethod::ThreadBackgroundTerminalsList
            | ClientMethod::ThreadQueueAdd
            | ClientMethod::ThreadQueueList
            | ClientMethod::ThreadSectionMove
            | ClientMethod::ThreadSettingsUpdate
            | ClientMethod::ThreadReadStateUpdate
            | ClientMethod::TurnStart
            | ClientMethod::TurnInterrupt
            | ClientMethod::TurnSteer
            | ClientMethod::McpServerStatusList
            | ClientMethod::ExperimentalFeatureList
            | ClientMethod::GetConversationSummary
            | ClientMethod::SendUserMessage
            | ClientMethod::SendUserTurn
            | ClientMethod::InterruptConversation
            | ClientMethod::ResumeConversation
            | ClientMethod::ArchiveConversation
            | ClientMethod::HooksList
            | ClientMethod::McpServerToolCall
            | ClientMethod::McpResourceRead
            | ClientMethod::FeedbackSave => ThreadScope::NamesThread,
            ClientMethod::ThreadList
            | ClientMethod::ThreadLoadedList
            | ClientMethod::ListConversations => ThreadScope::ListsThreads,
            ClientMethod::HistorySearch
            | ClientMethod::HistoryOpen
            | ClientMethod::ThreadSearch => ThreadScope::History,
            // Sections are the caller's own (the store keys them by owner); they name no thread.
            ClientMethod::Initialize
            | ClientMethod::ThreadStart
            | ClientMethod::ThreadSectionCreate
            | ClientMethod::ThreadSectionList
            | ClientMethod::ThreadSectionUpdate
            | ClientMethod::ThreadSectionDelete
            | ClientMethod::ModelList
            | ClientMethod::CollaborationModeList
            | ClientMethod::ConfigRead
            | ClientMethod::CommandExec
            | ClientMethod::CommandExecWrite
            | ClientMethod::CommandExecResize
            | ClientMethod::CommandExecTerminate
            | ClientMethod::ProcessSpawn
            | ClientMethod::ProcessWriteStdin
            | ClientMethod::ProcessKill
            | ClientMethod::ProcessResizePty
            | ClientMethod::FuzzyFileSearch
            | ClientMethod::FuzzyFileSearchSessionStart
            | ClientMethod::FuzzyFileSearchSessionUpdate
            | ClientMethod::FuzzyFileSearchSessionStop
            | ClientMethod::FsReadFile
            | ClientMethod::FsWriteFile
            | ClientMethod::FsCreateDirectory
            | ClientMethod::FsGetMetadata
            | ClientMethod::FsReadDirectory
            | ClientMethod::FsRemove
            | ClientMethod::FsCopy
            | ClientMethod::FsWatch
            | ClientMethod::FsUnwatch
            | ClientMethod::GitDiffToRemote
            | ClientMethod::GetAuthStatus
            | ClientMethod::NewConversation
            | ClientMethod::GetUserSavedConfig
            | ClientMethod::SetDefaultModel
            | ClientMethod::GetUserAgent
            | ClientMethod::UserInfo
            | ClientMethod::ExecOneOffCommand
            | ClientMethod::AccountRead
            | ClientMethod::AccountLoginStart
            | ClientMethod::AccountLoginCancel
            | ClientMethod::AccountLogout
            | ClientMethod::AccountRateLimitsRead
            | ClientMethod::IndexQuery
            | ClientMethod::IndexRefresh
            | ClientMethod::ConfigValueWrite
            | ClientMethod::ConfigBatchWrite
            | ClientMethod::ConfigMcpServerReload
            | ClientMethod::ConfigRequirementsRead
            | ClientMethod::ExperimentalFeatureEnablementSet
            | ClientMethod::PermissionProfileList
            | ClientMethod::ModelProviderList
            | ClientMethod::ModelProviderCapabilitiesRead
            | ClientMethod::ModelProviderConfigWrite
            | ClientMethod::ModelProviderDefaultSet
            | ClientMethod::MemoryStatus
            | ClientMethod::SkillsList
            | ClientMethod::SkillsConfigWrite
            | ClientMethod::SkillsExtraRootsSet
            | ClientMethod::PluginList
            | ClientMethod::ExternalAgentConfigDetect
            | ClientMethod::ExternalAgentConfigImport => ThreadScope::None,
        }
    }
}

/// Whether a method's params name a thread, so that the owner check guards its handler.
pub const fn names_thread(method: ClientMethod) -> bool {
    matches!(ThreadScope::of(method), ThreadScope::NamesThread)
}

/// The families one front end serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Families(&'static [MethodFamily]);

impl Families {
    /// Serves exactly `families`.
    pub const fn new(families: &'static [MethodFamily]) -> Families {
        Families(families)
    }

    /// Whether a method of the app-server table may reach a handler.
    pub fn serves(&self, method: ClientMethod) -> bool {
        self.0.contains(&MethodFamily::of(method))
    }

    /// Whether the method named `method` is in the table and served.
    pub fn serves_method(&self, method: &str) -> bool {
        ClientMethod::from_method(method).is_some_and(|method| self.serves(method))
    }
}

/// The front ends and the families each serves.
pub mod front_ends {
    use super::{Families, MethodFamily};

    /// `tandem app-server` on stdio: the IDE's own process; every family.
    pub fn app_server_stdio() -> Families {
        Families::new(MethodFamily::ALL)
    }

    /// `tandem mcp-server` (stdio or HTTP) serving the agent tools `codex` and `codex-reply`:
    /// MCP's own methods plus Codex's first-generation conversation API.
    pub fn mcp_agent() -> Families {
        Families::new(&[MethodFamily::ConversationApi])
    }

    /// `tandem exec`: one thread (started, or resumed by id or as the latest) and its turns;
    /// nothing else of the table.
    pub fn exec() -> Families {
        Families::new(&[MethodFamily::Threads])
    }

    /// `tandem mcp-server` whose `--tools` leave out both agent tools (for example the
    /// history-only `--tools search,open`): MCP's own methods and its tools, nothing of the
    /// app-server table.
    pub fn mcp_tools_only() -> Families {
        Families::new(&[])
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use app_server_protocol::tables::{ClientMethod, ClientRequest};
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn every_method_of_the_table_has_exactly_one_family() {
        let mut seen = Vec::new();
        for family in MethodFamily::ALL {
            seen.extend(family.methods().map(ClientMethod::method));
        }
        assert_eq!(
            MethodFamily::ALL.len(),
            MethodFamily::ALL
                .iter()
                .filter(|family| family.methods().next().is_some())
                .count(),
            "a family without methods"
        );
        let table: Vec<&str> = ClientRequest::METHODS
            .iter()
            .map(|spec| spec.method)
            .collect();
        assert_eq!(seen.len(), table.len());
        assert_eq!(
            seen.iter().copied().collect::<HashSet<_>>(),
            table.iter().copied().collect::<HashSet<_>>()
        );
    }

    #[test]
    fn method_kinds_round_trip_through_their_wire_names() {
        for method in ClientMethod::ALL {
            assert_eq!(ClientMethod::from_method(method.method()), Some(*method));
        }
        assert_eq!(ClientMethod::from_method("thread/nonexistent"), None);
    }

    #[test]
    fn the_tools_only_front_end_serves_nothing_of_the_table() {
        let families = front_ends::mcp_tools_only();
        for method in ClientMethod::ALL {
            assert!(!families.serves(*method), "{} is served", method.method());
        }
        assert!(!families.serves_method("execOneOffCommand"));
    }
}
