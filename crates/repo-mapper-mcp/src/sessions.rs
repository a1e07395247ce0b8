//! Live map sessions, one per (root, profile, exclude-unranked), least recently used
//! evicted past a bound.
//!
//! A session is a [`RepoMap`]: its renderer's caches and its map cache live as long as it
//! does, and each call finds the files that changed since the last (the tag store is
//! checked file by file) and parses only those.
//!
//! Calls on one session run one at a time; calls on different sessions never wait for
//! each other: each session runs its work on a thread pool of its own, so a cold scan of
//! a large repository does not queue a warm call on a small one behind its parsing (on
//! one shared pool, rayon serves a worker's own queue before work from other callers).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};

use repo_mapper::{CacheLocation, Config, Listing, Profile, RepoMap};

/// What a session is for: calls that differ here cannot share one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionKey {
    pub root: PathBuf,
    pub profile: Profile,
    pub exclude_unranked: bool,
}

/// A session's state: the map session and the repository's last walk.
#[derive(Debug)]
pub(crate) struct Live {
    pub map: RepoMap,
    listing: Option<Listing>,
    /// Whether the listing's files are lent out ([`Live::lend_files`]) and not yet given
    /// back.
    lent: bool,
}

impl Live {
    /// Every file of the repository, moved out of the last walk while it still holds,
    /// else out of a new one: a call lends them to its request instead of copying 78,000
    /// paths (the Linux tree) and gives them back ([`Live::give_back`]). Files never given
    /// back cost the next call a walk, nothing else.
    pub(crate) fn lend_files(&mut self) -> Vec<PathBuf> {
        if let Some(listing) = &mut self.listing
            && !self.lent
            && listing.is_current()
        {
            self.lent = true;
            return std::mem::take(&mut listing.files);
        }
        let config = self.map.config();
        let skip = match &config.cache {
            CacheLocation::Dir(d) => d.clone(),
            _ => config.root.join(".repo-mapper"),
        };
        let mut listing = Listing::walk(&config.root, Some(&skip));
        let files = std::mem::take(&mut listing.files);
        self.listing = Some(listing);
        self.lent = true;
        files
    }

    /// Puts back the files [`Live::lend_files`] lent, as they were lent.
    pub(crate) fn give_back(&mut self, files: Vec<PathBuf>) {
        if let Some(listing) = &mut self.listing
            && self.lent
        {
            listing.files = files;
            self.lent = false;
        }
    }
}

/// A session: its state, locked while a call uses it, and what the call is doing.
#[derive(Debug)]
pub(crate) struct Slot {
    live: Mutex<Live>,
    status: Arc<Status>,
    /// The session's own threads (`None` if they could not be started: then rayon's
    /// global pool).
    pool: Option<rayon::ThreadPool>,
    /// Its repository's directory in the per-user cache, marked used at every call (a
    /// session may outlive the time the cache keeps an unused directory).
    shared_cache: Option<PathBuf>,
}

/// Told, as the current call's tag scan reads files, how many it has read and has to
/// read (from any thread).
pub(crate) type Listener = Box<dyn Fn(usize, usize) + Send + Sync>;

/// Files the current call's tag scan has read, and has to read; who else is told.
#[derive(Default)]
struct Status {
    done: AtomicUsize,
    total: AtomicUsize,
    listener: Mutex<Option<Listener>>,
}

impl std::fmt::Debug for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Status")
            .field("done", &self.done)
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

impl Status {
    fn set_listener(&self, listener: Option<Listener>) {
        *self.listener.lock().unwrap_or_else(|p| p.into_inner()) = listener;
    }
}

/// A session is busy with another call, and the caller asked not to wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Busy(pub String);

impl Slot {
    fn new(mut map: RepoMap) -> Slot {
        let status = Arc::new(Status::default());
        let seen = Arc::clone(&status);
        map.set_progress(move |p| {
            seen.total.store(p.total, Ordering::Relaxed);
            seen.done.store(p.done, Ordering::Relaxed);
            let listener = seen.listener.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(listener) = listener.as_ref() {
                listener(p.done, p.total);
            }
        });
        let pool = rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("repo-mapper-session-{i}"))
            .build()
            .inspect_err(|e| tracing::warn!("a session's threads could not start: {e}"))
            .ok();
        let live = Mutex::new(Live {
            map,
            listing: None,
            lent: false,
        });
        Slot {
            live,
            status,
            pool,
            shared_cache: None,
        }
    }

    /// Runs `work` on the session (on its own threads), waiting for the call before it
    /// unless `wait` is false: then a busy session answers [`Busy`] at once. `listener`
    /// is told of the files the work's scan reads, until it ends.
    pub(crate) fn run<R: Send>(
        &self,
        wait: bool,
        listener: Option<Listener>,
        work: impl FnOnce(&mut Live) -> R + Send,
    ) -> Result<R, Busy> {
        let mut live = match self.live.try_lock() {
            Ok(live) => live,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) if !wait => return Err(self.busy()),
            Err(TryLockError::WouldBlock) => self.live.lock().unwrap_or_else(|p| p.into_inner()),
        };
        self.status.total.store(0, Ordering::Relaxed);
        self.status.done.store(0, Ordering::Relaxed);
        self.status.set_listener(listener);
        // Cleared however the work ends, a panic included: a listener left behind would
        // keep its call's progress channel open, and the call waiting for it.
        let _clear = ClearListener(&self.status);
        let live = &mut *live;
        Ok(match &self.pool {
            Some(pool) => pool.install(|| work(live)),
            None => work(live),
        })
    }

    /// What the call that holds the session is doing.
    fn busy(&self) -> Busy {
        let total = self.status.total.load(Ordering::Relaxed);
        let done = self.status.done.load(Ordering::Relaxed);
        Busy(if total > done {
            format!("scanning: {done} of {total} files")
        } else {
            "busy: another call on this repository is being answered".to_owned()
        })
    }
}

/// Clears a session's listener when dropped.
struct ClearListener<'a>(&'a Status);

impl Drop for ClearListener<'_> {
    fn drop(&mut self) {
        self.0.set_listener(None);
    }
}

/// A session, shared by the calls that use it.
pub(crate) type Session = Arc<Slot>;

/// The live sessions, most recently used last.
#[derive(Debug)]
pub(crate) struct Sessions {
    max: usize,
    /// Where repositories' caches go (`None`: each root's `.repo-mapper`).
    cache_base: Option<PathBuf>,
    live: Mutex<Vec<(SessionKey, Session)>>,
}

impl Sessions {
    /// At most `max` sessions (at least one).
    pub(crate) fn new(max: usize, cache_base: Option<PathBuf>) -> Sessions {
        Sessions {
            max: max.max(1),
            cache_base,
            live: Mutex::new(Vec::new()),
        }
    }

    /// The session for `key`, made if there is none, evicting the least recently used
    /// when there are too many.
    pub(crate) fn get(&self, key: &SessionKey) -> Session {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = live.iter().position(|(k, _)| k == key) {
            let entry = live.remove(at);
            let session = entry.1.clone();
            live.push(entry);
            drop(live); // no file work under the sessions' lock
            if let Some(dir) = &session.shared_cache {
                repo_mapper::mark_cache_used(dir);
            }
            return session;
        }
        if live.len() >= self.max {
            let (gone, _) = live.remove(0);
            tracing::debug!(root = %gone.root.display(), "session evicted");
        }
        let config = config(key, self.cache_base.as_deref());
        let shared_cache = match (&self.cache_base, &config.cache) {
            (Some(_), CacheLocation::Dir(dir)) => Some(dir.clone()),
            _ => None,
        };
        let mut slot = Slot::new(RepoMap::new(config));
        slot.shared_cache = shared_cache;
        let session = Arc::new(slot);
        live.push((key.clone(), session.clone()));
        session
    }

    /// The roots of the live sessions, least recently used first.
    #[cfg(test)]
    pub(crate) fn roots(&self) -> Vec<PathBuf> {
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        live.iter().map(|(k, _)| k.root.clone()).collect()
    }
}

fn config(key: &SessionKey, cache_base: Option<&Path>) -> Config {
    let root = Path::new(&key.root);
    let mut config = Config::new(root).with_profile(key.profile);
    if let Some(base) = cache_base {
        let dir = repo_mapper::shared_cache_dir(base, root);
        // Checked before anything is written there: the pruning marks it used.
        let (cache, untrusted) = repo_mapper::trusted_cache(CacheLocation::Dir(dir));
        if let (CacheLocation::Dir(dir), None) = (&cache, untrusted) {
            repo_mapper::prune_shared_cache(base, dir);
        }
        config.cache = cache;
    }
    config.rank.exclude_unranked = key.exclude_unranked;
    config.warm_session = true;
    config.full_report = false; // the answer lists only the map's files
    config.history = true;
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(root: &str) -> SessionKey {
        SessionKey {
            root: PathBuf::from(root),
            profile: Profile::default(),
            exclude_unranked: false,
        }
    }

    #[test]
    fn least_recently_used_is_evicted() {
        let sessions = Sessions::new(2, None);
        let a = sessions.get(&key("/a"));
        sessions.get(&key("/b"));
        assert!(
            Arc::ptr_eq(&a, &sessions.get(&key("/a"))),
            "kept and reused"
        );
        sessions.get(&key("/c"));
        assert_eq!(sessions.roots(), [PathBuf::from("/a"), PathBuf::from("/c")]);
    }

    /// A call whose work panics leaves no listener behind: its progress channel closes,
    /// so the call waiting for its notifications gets its (error) answer.
    #[test]
    fn a_panicking_call_leaves_no_listener_behind() {
        let sessions = Sessions::new(1, None);
        let session = sessions.get(&key("/nowhere"));
        let (sender, receiver) = std::sync::mpsc::channel::<()>();
        let listener: Listener = Box::new(move |_, _| {
            let _ = sender.send(());
        });
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            session.run(true, Some(listener), |_| panic!("the work fails"))
        }));
        assert!(ran.is_err());
        let closed = receiver.recv_timeout(std::time::Duration::from_secs(5));
        assert_eq!(closed, Err(std::sync::mpsc::RecvTimeoutError::Disconnected));
    }
}
