//! Live map sessions, one per (root, profile, exclude-unranked), least recently used
//! evicted past a bound.
//!
//! A session is a [`RepoMap`]: its renderer's caches and its map cache live as long as it
//! does, and each call finds the files that changed since the last (the tag store is
//! checked file by file) and parses only those.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
}

impl Live {
    /// Every file of the repository: the last walk while it still holds, else a new one.
    pub fn files(&mut self) -> Vec<PathBuf> {
        if let Some(listing) = &self.listing
            && listing.is_current()
        {
            return listing.files.clone();
        }
        let config = self.map.config();
        let skip = match &config.cache {
            CacheLocation::Dir(d) => d.clone(),
            _ => config.root.join(".repo-mapper"),
        };
        let listing = Listing::walk(&config.root, Some(&skip));
        let files = listing.files.clone();
        self.listing = Some(listing);
        files
    }
}

/// A session, locked while a call uses it.
pub(crate) type Session = Arc<Mutex<Live>>;

/// The live sessions, most recently used last.
#[derive(Debug)]
pub(crate) struct Sessions {
    max: usize,
    live: Mutex<Vec<(SessionKey, Session)>>,
}

impl Sessions {
    /// At most `max` sessions (at least one).
    pub fn new(max: usize) -> Sessions {
        Sessions {
            max: max.max(1),
            live: Mutex::new(Vec::new()),
        }
    }

    /// The session for `key`, made if there is none, evicting the least recently used
    /// when there are too many.
    pub fn get(&self, key: &SessionKey) -> Session {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = live.iter().position(|(k, _)| k == key) {
            let entry = live.remove(at);
            let session = entry.1.clone();
            live.push(entry);
            return session;
        }
        if live.len() >= self.max {
            let (gone, _) = live.remove(0);
            tracing::debug!(root = %gone.root.display(), "session evicted");
        }
        let state = Live {
            map: RepoMap::new(config(key)),
            listing: None,
        };
        let session = Arc::new(Mutex::new(state));
        live.push((key.clone(), session.clone()));
        session
    }

    /// The roots of the live sessions, least recently used first.
    #[cfg(test)]
    pub fn roots(&self) -> Vec<PathBuf> {
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        live.iter().map(|(k, _)| k.root.clone()).collect()
    }
}

fn config(key: &SessionKey) -> Config {
    let mut config = Config::new(Path::new(&key.root)).with_profile(key.profile);
    config.rank.exclude_unranked = key.exclude_unranked;
    config.warm_session = true;
    config.full_report = false; // the answer lists only the map's files
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
        let sessions = Sessions::new(2);
        let a = sessions.get(&key("/a"));
        sessions.get(&key("/b"));
        assert!(
            Arc::ptr_eq(&a, &sessions.get(&key("/a"))),
            "kept and reused"
        );
        sessions.get(&key("/c"));
        assert_eq!(sessions.roots(), [PathBuf::from("/a"), PathBuf::from("/c")]);
    }
}
