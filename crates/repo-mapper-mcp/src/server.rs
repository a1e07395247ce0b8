//! The MCP side: the two tools registered with rmcp, each call run on a blocking thread
//! (mapping is CPU work) against the shared [`Tools`].

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ProgressNotificationParam, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::listings::Listings;
use crate::output::{OutlineOutput, RepoMapOutput, SearchOutput, ShowOutput};
use crate::params::{OutlineParams, RepoMapParams, SearchParams, ShowParams};
use crate::sessions::{Listener, Sessions};
use crate::tools::{ToolError, Tools};

/// How a [`RepoMapServer`] runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Directories the served roots must lie in (each root given to a tool must be one of
    /// them or inside one); empty: any directory.
    pub roots: Vec<PathBuf>,
    /// Live sessions kept (one per root and profile); the least recently used is dropped
    /// past this many.
    pub max_sessions: usize,
    /// The per-user cache each repository's own directory goes in
    /// ([`repo_mapper::shared_cache_dir`]); `None`: `ROOT/.repo-mapper`.
    pub cache_base: Option<PathBuf>,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            roots: Vec::new(),
            max_sessions: 4,
            cache_base: None,
        }
    }
}

/// The repo-mapper MCP server: tools `repo_map` and `search_identifiers`, sessions kept
/// warm between calls.
#[derive(Debug, Clone)]
pub struct RepoMapServer {
    tools: Arc<Tools>,
    tool_router: ToolRouter<RepoMapServer>,
}

#[tool_router]
impl RepoMapServer {
    /// A server with these options (the allowed roots are canonicalised; one that does not
    /// exist allows nothing).
    pub fn new(options: ServerOptions) -> RepoMapServer {
        let allowed = options
            .roots
            .iter()
            .map(|r| r.canonicalize().unwrap_or_else(|_| r.clone()))
            .collect();
        RepoMapServer {
            tools: Arc::new(Tools {
                allowed,
                sessions: Sessions::new(options.max_sessions, options.cache_base.clone()),
                listings: Listings::default(),
            }),
            tool_router: Self::tool_router(),
        }
    }

    /// The `repo_map` tool, called directly: the map and its report as JSON, or the one
    /// line saying what was wrong with the input.
    pub fn repo_map_json(&self, params: &RepoMapParams) -> Result<Value, ToolError> {
        self.tools.repo_map(params, None)
    }

    /// The `outline` tool, called directly.
    pub fn outline_json(&self, params: &OutlineParams) -> Result<Value, ToolError> {
        self.tools.outline(params)
    }

    /// The `show_symbol` tool, called directly.
    pub fn show_symbol_json(&self, params: &ShowParams) -> Result<Value, ToolError> {
        self.tools.show_symbol(params)
    }

    /// The `search_identifiers` tool, called directly.
    pub fn search_identifiers_json(&self, params: &SearchParams) -> Result<Value, ToolError> {
        self.tools.search_identifiers(params, None)
    }

    #[tool(
        name = "repo_map",
        description = "A map of the repository for an LLM: the most relevant definitions, \
ranked by PageRank over the references between files (Aider's repo map), with their \
enclosing scopes, within token_limit tokens. Pass the files being edited as chat_files and \
the user's message as message to steer it. Returns JSON: map, report, error.",
        output_schema = schema_for_output::<RepoMapOutput>(),
        annotations(
            title = "Repository map",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn repo_map(
        &self,
        Parameters(params): Parameters<RepoMapParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let tools = self.tools.clone();
        with_progress(&context, move |listener| tools.repo_map(&params, listener)).await
    }

    #[tool(
        name = "outline",
        description = "What files define: each symbol's kind, signature and line range, \
nested in the symbols that hold them, within max_tokens tokens (the outermost kept; a file \
cut short says how many more). Returns JSON: outline (text), files (per file: language, \
lines, symbols, shown).",
        output_schema = schema_for_output::<OutlineOutput>(),
        annotations(
            title = "Outline files",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn outline(
        &self,
        Parameters(params): Parameters<OutlineParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let tools = self.tools.clone();
        blocking(move || tools.outline(&params)).await
    }

    #[tool(
        name = "show_symbol",
        description = "The whole source of a definition: symbol FILE#NAME gives every \
definition of NAME in FILE, FILE:LINE the innermost definition holding that line (from 1), \
each with its file and line range, within max_tokens tokens (a cut says so). Returns JSON: \
definitions.",
        output_schema = schema_for_output::<ShowOutput>(),
        annotations(
            title = "Show a symbol's source",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn show_symbol(
        &self,
        Parameters(params): Parameters<ShowParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let tools = self.tools.clone();
        blocking(move || tools.show_symbol(&params)).await
    }

    #[tool(
        name = "search_identifiers",
        description = "Where identifiers whose name contains query (ignoring case) are \
defined and used in the repository, with file, line and lines of context; exact matches \
first, definitions before references. Returns JSON: query, count, results.",
        output_schema = schema_for_output::<SearchOutput>(),
        annotations(
            title = "Search identifiers",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_identifiers(
        &self,
        Parameters(params): Parameters<SearchParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let tools = self.tools.clone();
        with_progress(&context, move |listener| {
            tools.search_identifiers(&params, listener)
        })
        .await
    }
}

/// Runs a tool's `work` ([`blocking`]) with the call's [`Progress`]: every notification
/// is sent before the answer.
async fn with_progress(
    context: &RequestContext<RoleServer>,
    work: impl FnOnce(Option<Listener>) -> Result<Value, ToolError> + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    let progress = Progress::of(context);
    let listener = progress.listener();
    let answer = blocking(move || work(listener)).await;
    progress.sent().await;
    answer
}

/// Progress notifications for a call whose client sent a progress token: the files its
/// scan reads, at most one notification per percent, sent in order by a task of their
/// own (the scan runs on other threads and must not wait for the client).
struct Progress {
    sender: Option<mpsc::UnboundedSender<(usize, usize)>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Progress {
    /// Progress for the call of `context`: nothing unless it has a progress token.
    fn of(context: &RequestContext<RoleServer>) -> Progress {
        let Some(token) = context.meta.get_progress_token() else {
            return Progress {
                sender: None,
                task: None,
            };
        };
        let (sender, mut received) = mpsc::unbounded_channel::<(usize, usize)>();
        let peer = context.peer.clone();
        let task = tokio::spawn(async move {
            let mut last = None;
            while let Some((done, total)) = received.recv().await {
                // Threads race to send: progress only ever goes up.
                if last.is_some_and(|last| done <= last) {
                    continue;
                }
                last = Some(done);
                let note = ProgressNotificationParam::new(token.clone(), done as f64)
                    .with_total(total as f64)
                    .with_message(format!("parsed {done} of {total} files"));
                // A client that has gone needs no progress.
                let _ = peer.notify_progress(note).await;
            }
        });
        Progress {
            sender: Some(sender),
            task: Some(task),
        }
    }

    /// What the call's scan tells: each new percent of the files it reads.
    fn listener(&self) -> Option<Listener> {
        let sender = self.sender.clone()?;
        // One more than the last percent sent (0: none yet).
        let sent = AtomicUsize::new(0);
        Some(Box::new(move |done, total| {
            if total == 0 {
                return;
            }
            let next = done.saturating_mul(100) / total + 1;
            if sent.fetch_max(next, Ordering::Relaxed) < next {
                let _ = sender.send((done, total));
            }
        }))
    }

    /// Waits until every notification is sent, so that all come before the answer.
    async fn sent(mut self) {
        drop(self.sender.take());
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

/// Runs `work` on tokio's blocking pool: the answer as structured content (and its JSON
/// text), a bad input a tool error (one line), a panic in the work an internal error,
/// never the end of the server.
async fn blocking(
    work: impl FnOnce() -> Result<Value, ToolError> + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(value)) => Ok(CallToolResult::structured(value)),
        Ok(Err(ToolError(line))) => Ok(CallToolResult::error(vec![ContentBlock::text(line)])),
        Err(e) => Err(ErrorData::internal_error(
            format!("the call failed: {e}"),
            None,
        )),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RepoMapServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = Implementation::default();
        info.name = "repo-mapper".to_owned();
        info.version = env!("CARGO_PKG_VERSION").to_owned();
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(info)
            .with_instructions(
                "repo_map gives a ranked map of a repository's definitions within a token \
budget; search_identifiers finds where names are defined and used.",
            )
    }
}
