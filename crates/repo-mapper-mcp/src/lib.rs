#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod listings;
mod output;
mod params;
mod server;
mod sessions;
mod tools;
mod transport;

pub use output::{
    OutlineOutput, OutlinedFile, RepoMapOutput, ResultKind, SearchOutput, SearchResult, ShowOutput,
    ShownSource,
};
pub use params::{OutlineParams, RepoMapParams, SearchParams, ShowParams};
pub use server::{RepoMapServer, ServerOptions};
pub use tools::{DEFAULT_MAX_TOKENS, DEFAULT_TOKEN_LIMIT, ToolError};

/// Serves MCP on standard input and output until the client closes the connection.
///
/// When the client closes standard input, the calls in flight have rmcp's few seconds to
/// be answered; one still running then is abandoned (its thread keeps no one waiting, and
/// ends with the process).
///
/// A line of input that is not JSON (not UTF-8, cut short, a NUL byte, …) is answered
/// with a JSON-RPC parse error (−32700, `"id": null`) and logged as one warning; the
/// session goes on.
///
/// # Errors
/// When the tokio runtime cannot start or the connection fails (not for bad tool input,
/// which is answered as a tool error, nor for a client that leaves before initializing).
pub fn serve_stdio(options: ServerOptions) -> std::io::Result<()> {
    use rmcp::ServiceExt;
    use rmcp::service::ServerInitializeError;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = runtime.block_on(async {
        let stdio = transport::CheckedStdio::spawn(tokio::io::stdin(), tokio::io::stdout());
        let (rmcp_ends, output) = stdio.split();
        let served = async {
            let service = match RepoMapServer::new(options).serve(rmcp_ends).await {
                Ok(service) => service,
                // A client that leaves before it has initialized ends its session as one
                // that leaves later does: nothing failed here.
                Err(ServerInitializeError::ConnectionClosed(_)) => {
                    tracing::info!("the client closed the connection before initializing");
                    return Ok(());
                }
                Err(e) => return Err(std::io::Error::other(e)),
            };
            let quit = service.waiting().await.map_err(std::io::Error::other)?;
            tracing::debug!(?quit, "the MCP session ended");
            Ok(())
        };
        // rmcp has dropped its ends either way: what it wrote is flushed, then the result.
        let served = served.await;
        output.finish().await?;
        served
    });
    // A call still running when rmcp stops (rmcp gives the calls in flight when stdin
    // closes 5 seconds to be answered) is abandoned, not waited for: dropping the
    // runtime would wait for its blocking thread, i.e. for a whole cold scan or search.
    runtime.shutdown_background();
    served
}
