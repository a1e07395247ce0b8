//! repo-mapper-mcp: the repo map over the Model Context Protocol, for coding agents.
//!
//! ```
//! use repo_mapper_mcp::{RepoMapParams, RepoMapServer, SearchParams, ServerOptions};
//!
//! let root = std::env::temp_dir().join(format!("repo-mapper-mcp-doc-{}", std::process::id()));
//! std::fs::create_dir_all(root.join(".git"))?; // a project: served without `--root`
//! std::fs::write(root.join("shop.py"), "class Order:\n    def total(self):\n        return 1\n")?;
//! std::fs::write(root.join("app.py"), "from shop import Order\nprint(Order().total())\n")?;
//! let root = root.canonicalize()?;
//!
//! let server = RepoMapServer::new(ServerOptions::default());
//! let mut params = RepoMapParams::new(root.to_str().unwrap());
//! params.message = Some("Order totals are wrong".to_owned());
//! let answer = server.repo_map_json(&params).expect("a valid request");
//! assert!(answer["map"].as_str().unwrap().contains("class Order:"));
//! assert_eq!(answer["report"]["attempt"], 1);
//!
//! let found = server.search_identifiers_json(&SearchParams::new(root.to_str().unwrap(), "total"))
//!     .expect("a valid request");
//! assert_eq!(found["results"][0]["file"], "shop.py");
//! # std::fs::remove_dir_all(&root)?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! [`RepoMapServer`] serves two tools, named and parametrised as pdavis68/RepoMapper's so
//! that it replaces that server as it is: `repo_map` (the map, with Aider's mentions from
//! the user's `message` and its fallback chain) and `search_identifiers` (definitions and
//! references from the tag store). It keeps one live [`repo_mapper::RepoMap`] session per
//! root and profile, so a second call parses only what changed and reuses the session's
//! caches; past [`ServerOptions::max_sessions`] the least recently used is dropped. Bad
//! input is a tool error of one line; a call never ends the server. [`serve_stdio`] runs it
//! on standard input and output (what `repo-mapper mcp` does). Like every library of the
//! workspace, this one prints nothing and reads no environment: diagnostics go to
//! `tracing`.

#![warn(missing_docs)]

mod params;
mod server;
mod sessions;
mod tools;
mod transport;

pub use params::{RepoMapParams, SearchParams};
pub use server::{RepoMapServer, ServerOptions};
pub use tools::{DEFAULT_TOKEN_LIMIT, ToolError};

/// Serves MCP on standard input and output until the client closes the connection.
///
/// A line of input that is not JSON (not UTF-8, cut short, a NUL byte, …) is answered
/// with a JSON-RPC parse error (−32700, `"id": null`) and logged as one warning; the
/// session goes on.
///
/// # Errors
/// When the tokio runtime cannot start or the connection fails (not for bad tool input,
/// which is answered as a tool error).
pub fn serve_stdio(options: ServerOptions) -> std::io::Result<()> {
    use rmcp::ServiceExt;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let stdio = transport::CheckedStdio::spawn(tokio::io::stdin(), tokio::io::stdout());
        let (rmcp_ends, output) = stdio.split();
        let served = async {
            let service = RepoMapServer::new(options)
                .serve(rmcp_ends)
                .await
                .map_err(std::io::Error::other)?;
            service.waiting().await.map_err(std::io::Error::other)
        };
        // rmcp has dropped its ends either way: what it wrote is flushed, then the result.
        let served = served.await;
        output.finish().await?;
        served.map(drop)
    })
}
