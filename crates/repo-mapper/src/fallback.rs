//! Aider's progressive fallback (`Coder.get_repo_map` in 0.86.2): when the requested map
//! comes out empty, ask again with less personalisation.

use crate::compute::sorted_union;
use crate::map::RepoMap;
use crate::mentions::Mentions;
use crate::request::{Anchors, Attempt, MapOutput, MapRequest, NoMap};

impl RepoMap {
    /// The map for `request`, falling back as Aider does when there is none: (1) the
    /// request, its chat files no candidates (Aider's other files are all files less the
    /// chat files); (2) no chat files, every file (chat and other) a candidate, mentions and
    /// anchors kept; (3) that without mentions or anchors. Attempts 2 and 3 get the
    /// no-chat budget expansion and never bypass the map cache. An attempt that would
    /// repeat the one before (no chat files to drop, no hints to drop) is skipped, as it
    /// could only give the same answer. [`MapOutput::attempt`] says which one produced the
    /// map; with none, the last attempt's reason is returned.
    ///
    /// ```
    /// use repo_mapper::{Attempt, CacheLocation, Config, MapRequest, RepoMap};
    ///
    /// let root = std::env::temp_dir().join(format!("repo-mapper-fb-{}", std::process::id()));
    /// std::fs::create_dir_all(&root)?;
    /// std::fs::write(root.join("shop.py"), "class Order:\n    pass\n")?;
    /// let mut config = Config::new(&root);
    /// config.cache = CacheLocation::Memory;
    /// let mut session = RepoMap::new(config);
    /// // The only file is in the chat: nothing is left to map until attempt 2.
    /// let request = MapRequest::new(vec![]).with_chat_files(vec![root.join("shop.py")]);
    /// let map = session.map_with_fallback(&request).expect("a map");
    /// assert_eq!(map.attempt, Attempt::NoChatFiles);
    /// assert!(map.text.contains("class Order"));
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn map_with_fallback(&mut self, request: &MapRequest) -> Result<MapOutput, NoMap> {
        let mut last = match self.map(request) {
            Err(NoMap::ZeroBudget) => return Err(NoMap::ZeroBudget),
            Ok(out) => return Ok(out),
            Err(why) => why,
        };
        for (attempt, next) in fallbacks(request) {
            match self.map(&next) {
                Ok(out) => return Ok(MapOutput { attempt, ..out }),
                Err(why) => last = why,
            }
        }
        Err(last)
    }

    /// What `message` mentions among `request`'s files ([`Mentions::from_paths`] under
    /// this session's root).
    pub fn mentions(&self, request: &MapRequest, message: &str) -> Mentions {
        let root = &self.config.root;
        Mentions::from_paths(message, root, &request.chat_files, &request.other_files)
    }
}

/// Attempts 2 and 3 for `request`, leaving out any that would repeat the one before.
fn fallbacks(request: &MapRequest) -> Vec<(Attempt, MapRequest)> {
    let all = sorted_union(&request.chat_files, &request.other_files);
    let no_chat = MapRequest {
        chat_files: Vec::new(),
        other_files: all.into_iter().cloned().collect(),
        force_refresh: false,
        ..request.clone()
    };
    let hinted = !request.mentioned_files.is_empty()
        || !request.mentioned_idents.is_empty()
        || !request.anchors.is_empty()
        || request.message.is_some();
    let unhinted = hinted.then(|| MapRequest {
        mentioned_files: Default::default(),
        mentioned_idents: Default::default(),
        message: None,
        anchors: Anchors::new(),
        ..no_chat.clone()
    });
    let mut attempts = Vec::new();
    if !request.chat_files.is_empty() {
        attempts.push((Attempt::NoChatFiles, no_chat));
    }
    attempts.extend(unhinted.map(|r| (Attempt::Unhinted, r)));
    attempts
}
