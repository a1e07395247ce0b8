//! Test support for repo-mapper's own test suites (not published).
//!
//! ```
//! let (answer, events) = repo_mapper_test_support::logged(|| {
//!     tracing::warn!(file = "a.py", "file given twice");
//!     42
//! });
//! assert_eq!(answer, 42);
//! assert_eq!(events.len(), 1);
//! assert_eq!(events[0].level, tracing::Level::WARN);
//! assert_eq!(events[0].message, "file given twice");
//! ```
//!
//! [`logged`] captures the events logged on the calling thread while its closure runs.
//! It does not use `tracing::subscriber::with_default`: `tracing` caches per call site
//! whether any subscriber is interested, and with thread-scoped subscribers only, a test
//! that reaches a call site first on a thread without one caches "never" for every
//! thread, so a concurrent test expecting that warning sees none. Here one global
//! subscriber, interested in everything, routes each event to the capturing thread.
//! Events logged on other threads (rayon's workers) are not captured.

use std::cell::RefCell;
use std::sync::Once;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata};

/// One event captured by [`logged`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedEvent {
    /// The event's level.
    pub level: Level,
    /// The event's target (the module path that logged it, unless set).
    pub target: String,
    /// The event's `message` field, as formatted by `Debug`.
    pub message: String,
}

thread_local! {
    /// The capturing call's buffer on this thread, when one is running.
    static SINK: RefCell<Option<Vec<LoggedEvent>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns what it returns with the events logged on this thread meanwhile.
///
/// # Panics
/// When another global subscriber was installed in this process, or `logged` is nested.
pub fn logged<T>(f: impl FnOnce() -> T) -> (T, Vec<LoggedEvent>) {
    install();
    let outer = SINK.with(|s| s.borrow_mut().replace(Vec::new()));
    assert!(outer.is_none(), "logged() calls do not nest");
    let reset = ResetSink;
    let out = f();
    drop(reset);
    let events = SINK.with(|s| s.borrow_mut().take()).unwrap_or_default();
    (out, events)
}

/// Installs the routing subscriber once, then makes every call site registered so far
/// interested in it (one that was registering while it was installed included).
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        tracing::subscriber::set_global_default(Router)
            .expect("no other global subscriber in a test binary that uses logged()");
    });
    tracing::callsite::rebuild_interest_cache();
}

/// Leaves the sink empty-but-present until `logged` takes it, or clears it on a panic.
struct ResetSink;

impl Drop for ResetSink {
    fn drop(&mut self) {
        if std::thread::panicking() {
            SINK.with(|s| s.borrow_mut().take());
        }
    }
}

/// The global subscriber: every event, to the capturing thread's sink if there is one.
struct Router;

impl tracing::Subscriber for Router {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::always()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        SINK.with(|s| {
            if let Some(events) = s.borrow_mut().as_mut() {
                events.push(captured(event));
            }
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn captured(event: &Event<'_>) -> LoggedEvent {
    let mut message = Message(String::new());
    event.record(&mut message);
    let meta = event.metadata();
    LoggedEvent {
        level: *meta.level(),
        target: meta.target().to_owned(),
        message: message.0,
    }
}

/// Reads an event's `message` field.
struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn shared_call_site(n: u32) {
        tracing::warn!(n, "from the shared call site");
    }

    /// The race `with_default` loses: another thread, without a subscriber, reaches the
    /// call site first while this thread is capturing.
    #[test]
    fn an_event_whose_call_site_another_thread_reached_first_is_captured() {
        let (inside, wait_inside) = mpsc::channel();
        let (reached, wait_reached) = mpsc::channel();
        let capturing = std::thread::spawn(move || {
            logged(|| {
                inside.send(()).unwrap();
                wait_reached.recv().unwrap();
                shared_call_site(2);
            })
            .1
        });
        wait_inside.recv().unwrap();
        shared_call_site(1);
        reached.send(()).unwrap();
        let events = capturing.join().unwrap();
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0].message, "from the shared call site");
        assert!(events[0].target.ends_with("tests"), "{events:?}");
    }

    #[test]
    fn events_of_other_threads_and_after_the_call_are_not_captured() {
        let ((), events) = logged(|| {
            std::thread::spawn(|| tracing::error!("elsewhere"))
                .join()
                .unwrap();
            tracing::info!("here");
        });
        tracing::error!("after");
        let messages: Vec<_> = events.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(messages, ["here"]);
    }
}
