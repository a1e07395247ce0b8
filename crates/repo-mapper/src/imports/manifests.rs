//! The dependency manifests of one directory, read for the names they declare: enough to
//! say which manifest declares a third-party import, and what the repository calls its own
//! packages. Line-based readers, not full TOML/XML parsers: a manifest they cannot follow
//! declares less, and the import is still third-party.

use std::path::Path;

/// What one directory's manifests declare.
#[derive(Debug, Default)]
pub(super) struct Manifests {
    /// The directory, relative to the root (empty: the root).
    pub(super) dir: String,
    /// Declared dependencies: (normalised name, manifest file relative to the root).
    pub(super) deps: Vec<(String, String)>,
    /// The names the repository's own packages go by here (Cargo's and npm's `name`, Go's
    /// module path, Swift's targets).
    pub(super) own: Vec<String>,
    /// Composer's PSR-4 prefixes: (namespace prefix, directory relative to the root).
    pub(super) psr4: Vec<(String, String)>,
}

/// Reads one manifest's text into what it found.
type Reader = fn(&str, &mut Found);

/// The manifests this module reads, and how.
const READERS: &[(&str, Reader)] = &[
    ("requirements.txt", requirements),
    ("requirements-dev.txt", requirements),
    ("pyproject.toml", toml_deps),
    ("Pipfile", toml_deps),
    ("Cargo.toml", toml_deps),
    ("go.mod", go_mod),
    ("package.json", package_json),
    ("composer.json", composer_json),
    ("Gemfile", gem_lines),
    ("pom.xml", pom_xml),
    ("build.gradle", gradle),
    ("build.gradle.kts", gradle),
    ("Package.swift", package_swift),
];

/// What a reader found in one file.
#[derive(Default)]
struct Found {
    deps: Vec<String>,
    own: Vec<String>,
    psr4: Vec<(String, String)>,
}

impl Manifests {
    /// The manifests of `dir` (relative to `root`); a file that cannot be read is skipped.
    pub(super) fn read(root: &Path, dir: &Path) -> Manifests {
        let dir_rel = dir.to_string_lossy().replace('\\', "/");
        let mut out = Manifests {
            dir: dir_rel.clone(),
            ..Manifests::default()
        };
        let mut names: Vec<String> = READERS.iter().map(|(n, _)| (*n).to_owned()).collect();
        names.extend(gemspecs_and_csprojs(&root.join(dir)));
        for name in names {
            let Some(text) = read_inside(root, &dir.join(&name)) else {
                continue;
            };
            let mut found = Found::default();
            reader_for(&name)(&text, &mut found);
            let rel = if dir_rel.is_empty() {
                name.clone()
            } else {
                format!("{dir_rel}/{name}")
            };
            out.deps
                .extend(found.deps.into_iter().map(|d| (normalise(&d), rel.clone())));
            out.own.extend(found.own);
            out.psr4
                .extend(found.psr4.into_iter().map(|(p, d)| (p, join(&dir_rel, &d))));
        }
        out
    }

    /// The manifest declaring `name` (compared normalised), if any.
    pub(super) fn declaring(&self, name: &str) -> Option<&str> {
        let name = normalise(name);
        self.deps
            .iter()
            .find(|(d, _)| *d == name)
            .map(|(_, file)| file.as_str())
    }
}

/// The text of the manifest at `rel` (relative to `root`): nothing when it is missing,
/// lies outside the root (a symlink out of it), is not a regular file (a FIFO), is over
/// [`MANIFEST_BYTES`] or is not UTF-8.
fn read_inside(root: &Path, rel: &Path) -> Option<String> {
    let path = crate::guard::inside_root(root, root, rel)?;
    let meta = path.metadata().ok()?;
    // A FIFO or a device would block or never end: regular files only.
    if !meta.is_file() || meta.len() > MANIFEST_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The largest manifest read.
const MANIFEST_BYTES: u64 = 1 << 20;

/// The reader of the manifest file `name`.
fn reader_for(name: &str) -> Reader {
    if name.ends_with(".gemspec") {
        return gem_lines;
    }
    if name.ends_with(".csproj") {
        return csproj;
    }
    READERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, r)| *r)
        .unwrap_or(requirements)
}

/// The `*.gemspec` and `*.csproj` files of a directory.
fn gemspecs_and_csprojs(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".gemspec") || n.ends_with(".csproj"))
        .collect();
    names.sort_unstable();
    names
}

/// A package name compared loosely: lower case, `-` and `.` as `_`.
pub(super) fn normalise(name: &str) -> String {
    name.to_lowercase().replace(['-', '.'], "_")
}

fn join(dir: &str, rest: &str) -> String {
    let rest = rest.trim_start_matches("./").trim_end_matches('/');
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (false, true) => dir.to_owned(),
        (false, false) => format!("{dir}/{rest}"),
    }
}

/// The name a requirement starts with (`requests>=2` → `requests`).
fn requirement_name(line: &str) -> Option<String> {
    let line = line.trim().trim_matches(|c| c == '"' || c == '\'');
    let name: String = line
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    (!name.is_empty() && !line.starts_with('-')).then_some(name)
}

fn requirements(text: &str, found: &mut Found) {
    let lines = text.lines().map(|l| l.split('#').next().unwrap_or(""));
    found.deps.extend(lines.filter_map(requirement_name));
}

/// pyproject.toml, Pipfile, Cargo.toml: the keys of dependency tables, the strings of
/// dependency arrays, and `[package]`/`[project]` names.
fn toml_deps(text: &str, found: &mut Found) {
    let mut table = String::new();
    let mut in_array = false;
    // Open braces of a multi-line inline table: its continuation lines hold its keys.
    let mut braces: i64 = 0;
    for raw in text.lines() {
        let line = raw.split(" #").next().unwrap_or("").trim();
        if braces > 0 {
            braces += brace_balance(line);
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = header.trim_matches(|c| c == '[' || c == ']').to_owned();
            in_array = false;
            found.deps.extend(dependency_table_key(&table));
            continue;
        }
        if in_array {
            let names = quoted(line);
            found
                .deps
                .extend(names.iter().filter_map(|s| requirement_name(s)));
            in_array = !line.contains(']');
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim().trim_matches('"'), value.trim());
        braces = brace_balance(value).max(0);
        if is_dependency_table(&table) {
            found.deps.push(key.to_owned());
        } else if key == "name" && matches!(table.as_str(), "package" | "project") {
            found.own.extend(quoted(value).into_iter().take(1));
        } else if value.starts_with('[') && is_dependency_array(&table, key) {
            let names = quoted(value);
            found
                .deps
                .extend(names.iter().filter_map(|s| requirement_name(s)));
            in_array = !value.contains(']');
        }
    }
}

/// `{` minus `}` on a line.
fn brace_balance(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Whether a TOML table lists dependencies by key.
fn is_dependency_table(table: &str) -> bool {
    let last = table.rsplit('.').next().unwrap_or("");
    matches!(
        last,
        "dependencies" | "dev-dependencies" | "build-dependencies" | "packages" | "dev-packages"
    ) && table != "project"
}

/// `dependencies.foo` names the dependency `foo` in a table of its own.
fn dependency_table_key(table: &str) -> Option<String> {
    let (head, key) = table.rsplit_once('.')?;
    is_dependency_table(head).then(|| key.trim_matches('"').to_owned())
}

/// Whether `key` of `table` is an array of requirements.
fn is_dependency_array(table: &str, key: &str) -> bool {
    matches!(
        (table, key),
        ("project", "dependencies") | ("build-system", "requires")
    ) || table == "project.optional-dependencies"
        || table == "dependency-groups"
}

/// The double- or single-quoted strings of a line.
fn quoted(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        let after = &rest[start + 1..];
        let Some(end) = after.find(quote) else {
            break;
        };
        out.push(after[..end].to_owned());
        rest = &after[end + 1..];
    }
    out
}

fn go_mod(text: &str, found: &mut Found) {
    let mut in_block = false;
    for line in text.lines().map(str::trim) {
        if let Some(module) = line.strip_prefix("module ") {
            found.own.push(module.trim().trim_matches('"').to_owned());
        } else if line.starts_with("require (") {
            in_block = true;
        } else if in_block && line.starts_with(')') {
            in_block = false;
        } else if let Some(dep) = line.strip_prefix("require ").or(in_block.then_some(line)) {
            found
                .deps
                .extend(dep.split_whitespace().next().map(str::to_owned));
        }
    }
}

fn package_json(text: &str, found: &mut Found) {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    for table in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        if let Some(deps) = json.get(table).and_then(|d| d.as_object()) {
            found.deps.extend(deps.keys().cloned());
        }
    }
    found
        .own
        .extend(json.get("name").and_then(|n| n.as_str()).map(str::to_owned));
}

fn composer_json(text: &str, found: &mut Found) {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    for table in ["require", "require-dev"] {
        if let Some(deps) = json.get(table).and_then(|d| d.as_object()) {
            found.deps.extend(deps.keys().cloned());
        }
    }
    for autoload in ["autoload", "autoload-dev"] {
        let map = json
            .get(autoload)
            .and_then(|a| a.get("psr-4"))
            .and_then(|p| p.as_object());
        for (prefix, dirs) in map.into_iter().flatten() {
            let dirs: Vec<&str> = match dirs {
                serde_json::Value::String(d) => vec![d.as_str()],
                serde_json::Value::Array(a) => a.iter().filter_map(|d| d.as_str()).collect(),
                _ => Vec::new(),
            };
            let prefix = prefix.trim_end_matches('\\').to_owned();
            found
                .psr4
                .extend(dirs.into_iter().map(|d| (prefix.clone(), d.to_owned())));
        }
    }
}

/// `gem 'x'` (Gemfile) and `add_dependency 'x'` (gemspec).
fn gem_lines(text: &str, found: &mut Found) {
    for line in text.lines().map(str::trim) {
        let declares = line.starts_with("gem ")
            || line.contains("add_dependency")
            || line.contains("add_runtime_dependency")
            || line.contains("add_development_dependency");
        if declares {
            found.deps.extend(quoted(line).into_iter().take(1));
        }
    }
}

/// Maven's dependencies, by group id (Java imports name packages, not artifacts).
fn pom_xml(text: &str, found: &mut Found) {
    for part in text.split("<dependency>").skip(1) {
        let group = part
            .split("<groupId>")
            .nth(1)
            .and_then(|g| g.split("</groupId>").next());
        found.deps.extend(group.map(|g| g.trim().to_owned()));
    }
}

/// Gradle's `"group:artifact:version"` coordinates, by group id.
fn gradle(text: &str, found: &mut Found) {
    for s in text.lines().flat_map(quoted) {
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() >= 2 && parts[0].contains('.') && !parts[0].contains(' ') {
            found.deps.push(parts[0].to_owned());
        }
    }
}

/// SwiftPM: `.product(name: "X", …)` dependencies and `.target(name: "Y")` targets.
fn package_swift(text: &str, found: &mut Found) {
    for (marker, into_own) in [(".product(", false), ("Target(", true), (".target(", true)] {
        for part in text.split(marker).skip(1) {
            let name = part
                .split_once("name:")
                .and_then(|(_, rest)| quoted(rest).into_iter().next());
            match (name, into_own) {
                (Some(n), true) => found.own.push(n),
                (Some(n), false) => found.deps.push(n),
                (None, _) => {}
            }
        }
    }
}

/// `<PackageReference Include="X" …/>`.
fn csproj(text: &str, found: &mut Found) {
    for part in text.split("<PackageReference").skip(1) {
        let name = part
            .split_once("Include=")
            .and_then(|(_, rest)| quoted(rest).into_iter().next());
        found.deps.extend(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deps(reader: Reader, text: &str) -> (Vec<String>, Vec<String>) {
        let mut found = Found::default();
        reader(text, &mut found);
        (found.deps, found.own)
    }

    #[test]
    fn a_fifo_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let fifo = root.join("requirements.txt");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let read = Manifests::read(&root, Path::new(""));
        assert!(read.deps.is_empty());
    }

    #[test]
    fn a_manifest_outside_the_root_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("repo");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(base.join("secret.txt"), "leaked\n").unwrap();
        std::os::unix::fs::symlink(base.join("secret.txt"), root.join("requirements.txt")).unwrap();
        std::fs::write(root.join("Gemfile"), "gem 'rack'\n").unwrap();
        let read = Manifests::read(&root, Path::new(""));
        let names: Vec<&str> = read.deps.iter().map(|(d, _)| d.as_str()).collect();
        assert_eq!(names, ["rack"]);
    }

    #[test]
    fn toml_manifests() {
        let cargo = "[package]\nname = \"my-tool\"\n\n[dependencies]\nserde = \"1\"\ntokio = { version = \"1\",\n  features = [\"rt\"] }\n\n[dependencies.regex]\nversion = \"1\"\n\n[target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n";
        let (d, own) = deps(toml_deps, cargo);
        assert_eq!(d, ["serde", "tokio", "regex", "libc"]);
        assert_eq!(own, ["my-tool"]);
        let py = "[project]\nname = \"pkg\"\ndependencies = [\n  \"requests>=2\",\n  'click',\n]\n[project.optional-dependencies]\ntest = [\"pytest\"]\n[tool.poetry.dependencies]\nhttpx = \"^0.2\"\n";
        let (d, own) = deps(toml_deps, py);
        assert_eq!(d, ["requests", "click", "pytest", "httpx"]);
        assert_eq!(own, ["pkg"]);
    }

    #[test]
    fn other_manifests() {
        assert_eq!(
            deps(requirements, "# x\nrequests==2\n-r other.txt\nPyYAML\n").0,
            ["requests", "PyYAML"]
        );
        let gomod = "module github.com/a/b\n\ngo 1.21\n\nrequire (\n\tgithub.com/x/y v1.0.0\n)\nrequire golang.org/x/sys v0.1.0\n";
        assert_eq!(
            deps(go_mod, gomod),
            (
                vec!["github.com/x/y".into(), "golang.org/x/sys".into()],
                vec!["github.com/a/b".into()]
            )
        );
        let pkg = r#"{"name": "me", "dependencies": {"react": "1"}, "devDependencies": {"@types/node": "1"}}"#;
        assert_eq!(
            deps(package_json, pkg),
            (
                vec!["react".into(), "@types/node".into()],
                vec!["me".into()]
            )
        );
        let mut found = Found::default();
        composer_json(
            r#"{"require": {"psr/log": "1"}, "autoload": {"psr-4": {"Slim\\": "Slim/"}}}"#,
            &mut found,
        );
        assert_eq!(found.deps, ["psr/log"]);
        assert_eq!(found.psr4, [("Slim".to_owned(), "Slim/".to_owned())]);
        assert_eq!(
            deps(gem_lines, "source 'x'\ngem \"rack\", '~> 2'\n").0,
            ["rack"]
        );
        assert_eq!(
            deps(
                pom_xml,
                "<dependency>\n<groupId>junit</groupId>\n</dependency>"
            )
            .0,
            ["junit"]
        );
        assert_eq!(
            deps(gradle, "implementation \"com.squareup.okio:okio:3.0\"\n").0,
            ["com.squareup.okio"]
        );
        let swift = ".target(name: \"Core\", dependencies: [.product(name: \"ArgumentParser\", package: \"x\")])";
        assert_eq!(
            deps(package_swift, swift),
            (vec!["ArgumentParser".into()], vec!["Core".into()])
        );
        assert_eq!(
            deps(
                csproj,
                "<PackageReference Include=\"Newtonsoft.Json\" Version=\"13\" />"
            )
            .0,
            ["Newtonsoft.Json"]
        );
    }
}
