//! The scope cache: a renderer that takes a file's scopes from it renders exactly what a
//! renderer that parses the file renders, on every golden case, in both dialects and both
//! header styles, and parses nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use repo_mapper_render::{Headers, Renderer, ScopeCache, ScopeKey};
use repo_mapper_tags::Dialect;

/// A scope cache in memory that counts its hits.
#[derive(Debug, Default)]
struct Kept {
    blobs: Mutex<HashMap<ScopeKey, Vec<u8>>>,
    hits: Mutex<usize>,
}

impl ScopeCache for Kept {
    fn get(&self, key: &ScopeKey) -> Option<Vec<u8>> {
        let hit = self.blobs.lock().unwrap().get(key).cloned();
        *self.hits.lock().unwrap() += usize::from(hit.is_some());
        hit
    }

    fn put(&self, key: &ScopeKey, bytes: &[u8]) {
        self.blobs.lock().unwrap().insert(*key, bytes.to_vec());
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every golden case: (source relative to the root, its lines of interest).
fn golden_cases() -> Vec<(String, Vec<i64>)> {
    let mut cases = Vec::new();
    let dir = root().join("fixtures/render/expected");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(source) = text.lines().next().and_then(|l| l.strip_prefix("source ")) else {
            continue;
        };
        for line in text.lines() {
            if let Some(lois) = line
                .split(" lois=")
                .nth(1)
                .filter(|_| line.starts_with("@@ case "))
            {
                let lois = lois.split(',').filter(|s| !s.is_empty());
                cases.push((
                    source.to_owned(),
                    lois.map(|s| s.parse().unwrap()).collect(),
                ));
            }
        }
    }
    cases.sort();
    cases
}

fn render_all(renderer: &mut Renderer, cases: &[(String, Vec<i64>)]) -> Vec<String> {
    let root = root();
    cases
        .iter()
        .map(|(source, lois)| renderer.render_tree(&root.join(source), source, lois))
        .collect()
}

#[test]
fn scopes_from_the_cache_render_as_a_parse_does() {
    let cases = golden_cases();
    assert!(cases.len() >= 100, "golden cases are missing");
    for dialect in [Dialect::Aider, Dialect::Default] {
        for headers in [Headers::GrepAst, Headers::Signatures] {
            let cache = Arc::new(Kept::default());
            let fresh = || Renderer::new(dialect).with_headers(headers);
            let parsed = render_all(&mut fresh(), &cases);
            let mut filling = fresh().with_scope_cache(cache.clone());
            assert_eq!(render_all(&mut filling, &cases), parsed);
            assert!(
                filling.parses() > 20,
                "{dialect:?} {headers:?}: files were parsed"
            );
            let mut reading = fresh().with_scope_cache(cache.clone());
            assert_eq!(
                render_all(&mut reading, &cases),
                parsed,
                "{dialect:?} {headers:?}"
            );
            assert_eq!(
                reading.parses(),
                0,
                "{dialect:?} {headers:?}: nothing parsed again"
            );
            assert!(*cache.hits.lock().unwrap() >= filling.parses() as usize);
        }
    }
}

#[test]
fn damaged_or_foreign_scopes_mean_a_parse() {
    let dir = tempfile::tempdir().unwrap();
    let code = "import os\nclass A:\n    def f(self):\n        return 1\n";
    std::fs::write(dir.path().join("a.py"), code).unwrap();
    let render = |cache: &Arc<Kept>| {
        let mut r = Renderer::new(Dialect::Default).with_scope_cache(cache.clone());
        let out = r.render_tree(&dir.path().join("a.py"), "a.py", &[3]);
        (out, r.parses())
    };
    let cache = Arc::new(Kept::default());
    let (expected, parses) = render(&cache);
    // The class and method headers show: scopes were there.
    assert_eq!(
        (expected.as_str(), parses),
        ("⋮\n│class A:\n│    def f(self):\n│        return 1\n", 1)
    );
    let key = *cache.blobs.lock().unwrap().keys().next().unwrap();
    // Bytes that are no scopes, and scopes of another number of rows, are not used.
    for bad in [vec![0xff, 1, 2], vec![1, 2, 0]] {
        cache.blobs.lock().unwrap().insert(key, bad);
        assert_eq!(render(&cache), (expected.clone(), 1));
    }
}

/// A map's first render builds its files' contexts side by side (issue 26): a map of
/// every golden source renders what maps of one file each render, each file parsed
/// once, and a second render of the map parses nothing.
#[test]
fn a_map_of_many_files_renders_as_its_files_do_one_at_a_time() {
    use repo_mapper_render::MapItem;
    use repo_mapper_tags::{Tag, TagKind};

    let root = root();
    let mut sources: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    for (source, lois) in golden_cases() {
        sources.entry(source).or_default().extend(lois);
    }
    let tags_of = |source: &str, lois: &[i64]| -> Vec<Tag> {
        let fname: Arc<Path> = Arc::from(root.join(source).as_path());
        lois.iter()
            .map(|&row| Tag {
                rel_fname: Arc::from(source),
                fname: Arc::clone(&fname),
                line: i32::try_from(row + 1).unwrap(),
                name: "x".to_owned(),
                kind: TagKind::Def,
                sub_kind: "function",
            })
            .collect()
    };
    let all: Vec<Tag> = sources.iter().flat_map(|(s, l)| tags_of(s, l)).collect();
    let no_chat: std::collections::HashSet<String> = std::collections::HashSet::new();
    fn items(tags: &[Tag]) -> Vec<MapItem<'_>> {
        tags.iter().map(MapItem::Tag).collect()
    }
    for dialect in [Dialect::Aider, Dialect::Default] {
        let one_at_a_time: String = sources
            .iter()
            .map(|(source, lois)| {
                let tags = tags_of(source, lois);
                Renderer::new(dialect).to_tree(&items(&tags), &no_chat)
            })
            .collect();
        let mut renderer = Renderer::new(dialect).with_scope_cache(Arc::new(Kept::default()));
        assert_eq!(
            renderer.to_tree(&items(&all), &no_chat),
            one_at_a_time,
            "{dialect:?}"
        );
        let parsed = renderer.parses();
        assert!(
            parsed > 20 && parsed <= sources.len() as u64,
            "{parsed} parses"
        );
        renderer.start_map();
        assert_eq!(renderer.to_tree(&items(&all), &no_chat), one_at_a_time);
        assert_eq!(
            renderer.parses(),
            parsed,
            "{dialect:?}: nothing parsed again"
        );
    }
}

/// Issue 26: the scopes a caller takes from its own parse of a file ([`Scopes::of_tree`],
/// as the tag scan of the same run does), kept under the key of that text, render exactly
/// as a parse of the renderer's own does, on every golden case, in both dialects and
/// header styles, without parsing it; scopes kept for another text (the file changed
/// since) are not found.
///
/// [`Scopes::of_tree`]: repo_mapper_render::Scopes::of_tree
#[test]
fn scopes_of_a_callers_parse_render_as_the_renderers_own_parse() {
    use repo_mapper_render::Scopes;
    use repo_mapper_tags::{Limits, parse_within};

    let root = root();
    for (source, lois) in golden_cases() {
        let path = root.join(&source);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for dialect in [Dialect::Aider, Dialect::Default] {
            let Some(language) = repo_mapper_render::render_language(Path::new(&source), dialect)
            else {
                continue;
            };
            let tree = parse_within(language, &text, &Limits::default()).unwrap();
            for headers in [Headers::GrepAst, Headers::Signatures] {
                let kept = |text: &str| {
                    let cache = Arc::new(Kept::default());
                    let key = ScopeKey::new(text, language, dialect, headers);
                    let scopes = Scopes::of_tree(text, &tree, dialect, headers);
                    cache.put(&key, &scopes.encode());
                    cache
                };
                let render = |cache: Option<Arc<Kept>>| {
                    let mut r = Renderer::new(dialect).with_headers(headers);
                    if let Some(cache) = cache {
                        r = r.with_scope_cache(cache);
                    }
                    let out = r.render_tree(&path, &source, &lois);
                    (out, r.parses())
                };
                let (expected, parsed) = render(None);
                assert_eq!(parsed, 1);
                let case = format!("{source} {dialect:?} {headers:?}");
                // The renderer reads the text as it was parsed: its scopes are found.
                if text.ends_with('\n') && !text.contains('\r') {
                    assert_eq!(render(Some(kept(&text))), (expected.clone(), 0), "{case}");
                }
                let other = kept(&format!("{text}# another text\n"));
                assert_eq!(render(Some(other)), (expected.clone(), 1), "{case}");
            }
        }
    }
}
