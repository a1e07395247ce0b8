//! Issue 12: nothing outside the root is read, whoever lists the file, and one file that
//! cannot be parsed in time leaves the rest of the map as it was.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use repo_mapper::{
    Anchors, CacheLocation, Config, Limits, MapRequest, Profile, RepoMap, list_files,
};

const SECRET: &str = "def leaked_secret_function():\n    return 'token'\n";

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

/// A repository `repo/` with two good files, and `secret.py` beside it (outside the root).
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("repo");
    fs::create_dir_all(root.join("pkg")).unwrap();
    fs::write(
        root.join("pkg/models.py"),
        "class Order:\n    def total(self):\n        return 1\n",
    )
    .unwrap();
    fs::write(
        root.join("pkg/service.py"),
        "from pkg.models import Order\n\ndef checkout():\n    return Order().total()\n",
    )
    .unwrap();
    let outside = base.join("secret.py");
    fs::write(&outside, SECRET).unwrap();
    Setup {
        _dir: dir,
        root,
        outside,
    }
}

fn map_of(root: &Path, files: &[PathBuf], configure: impl Fn(&mut Config)) -> String {
    let mut config = Config::new(root);
    config.cache = CacheLocation::Memory;
    config.map_tokens = 4096;
    configure(&mut config);
    let none = BTreeSet::new();
    RepoMap::new(config)
        .get_repo_map(&[], files, &none, &none, false)
        .unwrap_or_default()
}

fn profiles() -> [Profile; 2] {
    [Profile::Default, Profile::Aider]
}

#[test]
fn paths_outside_the_root_are_never_read_nor_named() {
    let s = setup();
    let mut files = list_files(&s.root, None);
    files.push(s.root.join("../secret.py"));
    files.push(s.outside.clone());
    for profile in profiles() {
        let map = map_of(&s.root, &files, |c| c.set_profile(profile));
        assert!(map.contains("Order"), "{profile:?}: {map}");
        assert!(!map.contains("leaked_secret"), "{profile:?}: {map}");
        assert!(!map.contains("secret.py"), "{profile:?}: {map}");
    }
}

/// Issue 23: an anchor naming a file outside the root (directly, by `..`, as
/// `FILE:IDENT`, or through a symlinked directory) is left out, as a chat file would be:
/// the map must not reveal which outside files exist.
#[test]
fn anchors_outside_the_root_are_left_out() {
    let s = setup();
    #[cfg(unix)]
    std::os::unix::fs::symlink(s.outside.parent().unwrap(), s.root.join("up")).unwrap();
    let files = list_files(&s.root, None);
    let values = [
        s.outside.display().to_string(),
        "../secret.py".to_owned(),
        format!("{}:leaked_secret_function", s.outside.display()),
        "up/secret.py".to_owned(),
        "pkg/models.py".to_owned(),
    ];
    let anchors = Anchors::resolve(&values, &s.root, &s.root);
    assert!(
        anchors.files.len() + anchors.scoped.len() >= 4,
        "{anchors:?}"
    );
    for profile in profiles() {
        let mut config = Config::new(&s.root);
        config.cache = CacheLocation::Memory;
        config.set_profile(profile);
        let request = MapRequest::new(files.clone()).with_anchors(anchors.clone());
        let map = RepoMap::new(config).map(&request).unwrap().text;
        assert!(
            map.trim_start().starts_with("pkg/models.py"),
            "{profile:?}: the anchor inside: {map}"
        );
        assert!(!map.contains("secret"), "{profile:?}: {map}");
    }
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_are_not_followed_unless_asked() {
    let s = setup();
    std::os::unix::fs::symlink(&s.outside, s.root.join("link.py")).unwrap();
    let files = list_files(&s.root, None);
    assert!(files.contains(&s.root.join("link.py")));
    for profile in profiles() {
        let map = map_of(&s.root, &files, |c| c.set_profile(profile));
        assert!(map.contains("Order"), "{profile:?}: {map}");
        assert!(!map.contains("leaked_secret"), "{profile:?}: {map}");
        let followed = map_of(&s.root, &files, |c| {
            c.set_profile(profile);
            c.follow_external_symlinks = true;
        });
        assert!(
            followed.contains("leaked_secret"),
            "{profile:?}: {followed}"
        );
    }
}

#[test]
fn a_file_out_of_time_leaves_the_rest_of_the_map_alone() {
    let s = setup();
    let n = 100_000;
    let deep: String = (0..n)
        .map(|i| format!("function f{i}(){{"))
        .collect::<String>()
        + "x();"
        + &"}".repeat(n);
    fs::write(s.root.join("deep.js"), deep).unwrap();
    let files = list_files(&s.root, None);
    let without_deep: Vec<PathBuf> = files
        .iter()
        .filter(|f| !f.ends_with("deep.js"))
        .cloned()
        .collect();
    for profile in profiles() {
        let limited = |c: &mut Config| {
            c.set_profile(profile);
            c.limits = Limits::new(Duration::from_millis(500));
            // The file is 1.6 MB: parsed, so that the time bound is what stops it.
            c.max_file_size = None;
        };
        let map = map_of(&s.root, &files, limited);
        let reference = map_of(&s.root, &without_deep, limited);
        assert!(map.contains("Order") && map.contains("checkout"), "{map}");
        // The good files render exactly as in a map without the deep file.
        let blocks = |m: &str| -> Vec<String> {
            m.split("\n\n")
                .map(|b| b.trim().to_owned())
                .filter(|b| !b.is_empty() && !b.contains("deep.js"))
                .collect()
        };
        let (good, want) = (blocks(&map), blocks(&reference));
        assert_eq!(good, want, "{profile:?}");
    }
}
