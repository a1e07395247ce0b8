//! Each language's rule: standard library first (its own list, or its convention), then
//! the repository's files, then third-party (with the manifest that declares it).

use repo_mapper_tags::Language;
use repo_mapper_tags::explore::{ImportForm, RawImport};

use super::manifests::normalise;
use super::{ImportCategory, Resolver, stdlib};

/// Category, resolved path and declaring manifest.
type Sorted = (ImportCategory, Option<String>, Option<String>);

const LOCAL: ImportCategory = ImportCategory::Local;
const STDLIB: Sorted = (ImportCategory::Stdlib, None, None);

pub(super) fn classify(r: &mut Resolver, file: &str, lang: Language, import: &RawImport) -> Sorted {
    let dir = parent(file);
    let m = import.module.as_str();
    use Language::*;
    match lang {
        Python => python(r, dir, m),
        JavaScript | TypeScript | Tsx => javascript(r, dir, m),
        Go => go(r, dir, m),
        Rust => rust(r, file, import),
        Java | Kotlin => jvm(r, dir, m, lang == Kotlin),
        C | Cpp => include(r, dir, m, import.form),
        CSharp => csharp(r, dir, m),
        Ruby => ruby(r, dir, m, import.form),
        Php => php(r, dir, m, import.form),
        Swift => swift(r, dir, m),
        _ => third_party(r, dir, m),
    }
}

/// Third-party, with the nearest manifest declaring `name` (or a prefix of it, for
/// package paths and group ids).
fn third_party(r: &mut Resolver, dir: &str, name: &str) -> Sorted {
    let declared = r.manifests_above(dir).into_iter().find_map(|m| {
        m.declaring(name).map(str::to_owned).or_else(|| {
            let wanted = normalise(name);
            m.deps
                .iter()
                .find(|(d, _)| prefixes(&wanted, d) || prefixes(d, &wanted))
                .map(|(_, f)| f.clone())
        })
    });
    (ImportCategory::ThirdParty, None, declared)
}

/// Whether `long` is `short` followed by `_` or `/` and more.
fn prefixes(long: &str, short: &str) -> bool {
    long.strip_prefix(short)
        .is_some_and(|rest| rest.starts_with('_') || rest.starts_with('/'))
}

fn local(path: Option<String>) -> Sorted {
    (LOCAL, path, None)
}

fn in_list(list: &[&str], name: &str) -> bool {
    list.binary_search(&name).is_ok()
}

/// The first of `candidates` that exists in the repository.
fn first_existing(r: &Resolver, candidates: impl IntoIterator<Item = String>) -> Option<String> {
    candidates.into_iter().find(|c| r.exists(c))
}

fn python(r: &mut Resolver, dir: &str, m: &str) -> Sorted {
    if m.starts_with('.') {
        let dots = m.chars().take_while(|&c| c == '.').count();
        let base = (1..dots).try_fold(dir.to_owned(), |d, _| up(&d));
        let rest = m[dots..].replace('.', "/");
        let found = base.and_then(|b| {
            let at = join(&b, &rest);
            let module_file = (!rest.is_empty()).then(|| format!("{at}.py"));
            let found =
                first_existing(r, module_file.into_iter().chain([join(&at, "__init__.py")]));
            found.or_else(|| r.is_dir(&at).then_some(at))
        });
        return local(found);
    }
    let top = m.split('.').next().unwrap_or(m);
    if in_list(stdlib::PYTHON, top) {
        return STDLIB;
    }
    let path = m.replace('.', "/");
    let mut bases = vec![String::new(), "src".to_owned(), "lib".to_owned()];
    bases.extend(package_base(r, dir));
    for base in &bases {
        let at = join(base, &path);
        let top_at = join(base, top);
        let candidates = [
            format!("{at}.py"),
            join(&at, "__init__.py"),
            format!("{top_at}.py"),
            join(&top_at, "__init__.py"),
        ];
        if let Some(found) = first_existing(r, candidates) {
            return local(Some(found));
        }
    }
    third_party(r, dir, top)
}

/// The directory above the outermost Python package holding `dir` (a package is a
/// directory with `__init__.py`).
fn package_base(r: &Resolver, dir: &str) -> Option<String> {
    let mut at = dir.to_owned();
    let mut base = None;
    while !at.is_empty() && r.exists(&join(&at, "__init__.py")) {
        base = up(&at);
        at = base.clone()?;
    }
    base
}

const JS_EXTENSIONS: &[&str] = &[
    "",
    ".ts",
    ".tsx",
    ".d.ts",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
    ".mts",
    ".cts",
    ".json",
    "/index.ts",
    "/index.tsx",
    "/index.js",
    "/index.jsx",
    "/index.mjs",
];

fn javascript(r: &mut Resolver, dir: &str, m: &str) -> Sorted {
    let aliased = m.strip_prefix("@/").or_else(|| m.strip_prefix("~/"));
    if m.starts_with('.') || m.starts_with('/') || aliased.is_some() {
        let at = match aliased {
            Some(rest) => Some(join("src", rest)),
            None => normalize(&join(dir, m)),
        };
        let found = at.and_then(|at| {
            // TypeScript's ESM imports name the `.js` a `.ts` file compiles to.
            let stem = at.strip_suffix(".js").map(str::to_owned);
            let mut candidates: Vec<String> =
                JS_EXTENSIONS.iter().map(|e| format!("{at}{e}")).collect();
            candidates.extend(
                stem.iter()
                    .flat_map(|s| [format!("{s}.ts"), format!("{s}.tsx")]),
            );
            first_existing(r, candidates)
        });
        return local(found);
    }
    let bare = m.strip_prefix("node:");
    let name = bare.unwrap_or(m);
    let first = name.split('/').next().unwrap_or(name);
    if bare.is_some() || in_list(stdlib::NODE, name) || in_list(stdlib::NODE, first) {
        return STDLIB;
    }
    let package = package_name(m);
    let own = r
        .manifests_above(dir)
        .iter()
        .any(|mf| mf.own.iter().any(|o| o == package));
    if own {
        return local(None);
    }
    third_party(r, dir, package)
}

/// An npm package's name: its first path segment, two for a scoped one.
fn package_name(m: &str) -> &str {
    let cut = if m.starts_with('@') { 2 } else { 1 };
    let end = m
        .match_indices('/')
        .nth(cut - 1)
        .map_or(m.len(), |(i, _)| i);
    &m[..end]
}

fn go(r: &mut Resolver, dir: &str, m: &str) -> Sorted {
    let modules: Vec<(String, String)> = r
        .manifests_above(dir)
        .iter()
        .flat_map(|mf| mf.own.iter().map(|o| (o.clone(), mf.dir.clone())))
        .collect();
    for (module, at) in modules {
        if m == module || m.starts_with(&format!("{module}/")) {
            let rest = m[module.len()..].trim_start_matches('/');
            let at = join(&at, rest);
            return local(r.is_dir(&at).then_some(at));
        }
    }
    let first = m.split('/').next().unwrap_or(m);
    if !first.contains('.') {
        return STDLIB;
    }
    third_party(r, dir, m)
}

fn rust(r: &mut Resolver, file: &str, import: &RawImport) -> Sorted {
    let dir = parent(file);
    let module_dir = rust_module_dir(file);
    if import.form == ImportForm::ModDecl {
        let m = &import.module;
        let found = first_existing(
            r,
            [
                join(&module_dir, &format!("{m}.rs")),
                join(&module_dir, &format!("{m}/mod.rs")),
            ],
        );
        return local(found);
    }
    let path = import.module.trim_start_matches("::");
    let mut segments = path
        .split("::")
        .map(|s| s.trim())
        .take_while(|s| !s.starts_with('{') && !s.contains(' ') && *s != "*");
    let first = segments.next().unwrap_or("");
    let rest: Vec<&str> = segments.collect();
    match first {
        "std" | "core" | "alloc" | "proc_macro" | "test" => STDLIB,
        "crate" => local(rust_path(r, &crate_src(r, dir), &rest)),
        "self" => local(rust_path(r, &module_dir, &rest)),
        "super" => local(up(&module_dir).and_then(|d| rust_path(r, &d, &rest))),
        name => {
            let own = r
                .manifests_above(dir)
                .iter()
                .any(|mf| mf.own.iter().any(|o| normalise(o) == normalise(name)));
            if own {
                return local(first_existing(r, [join(&crate_src(r, dir), "lib.rs")]));
            }
            let declared = r
                .manifests_above(dir)
                .iter()
                .any(|mf| mf.declaring(name).is_some());
            let sibling = first_existing(
                r,
                [
                    join(&module_dir, &format!("{name}.rs")),
                    join(&module_dir, &format!("{name}/mod.rs")),
                ],
            );
            match sibling {
                Some(found) if !declared => local(Some(found)),
                _ => third_party(r, dir, name),
            }
        }
    }
}

/// The directory a Rust file's child modules live in: its own for `lib.rs`, `main.rs`
/// and `mod.rs`, else a directory named after it.
fn rust_module_dir(file: &str) -> String {
    let dir = parent(file);
    let name = file.rsplit('/').next().unwrap_or(file);
    match name.strip_suffix(".rs") {
        Some("lib" | "main" | "mod") | None => dir.to_owned(),
        Some(stem) => join(dir, stem),
    }
}

/// The `src` directory of the crate holding `dir`: beside the nearest `Cargo.toml` above.
fn crate_src(r: &Resolver, dir: &str) -> String {
    let mut at = Some(dir.to_owned());
    while let Some(d) = at {
        if r.exists(&join(&d, "Cargo.toml")) {
            return join(&d, "src");
        }
        at = up(&d);
    }
    "src".to_owned()
}

/// The deepest module file of `segments` under `dir` that exists.
fn rust_path(r: &Resolver, dir: &str, segments: &[&str]) -> Option<String> {
    let mut best = None;
    let mut at = dir.to_owned();
    for seg in segments {
        let file = first_existing(
            r,
            [
                join(&at, &format!("{seg}.rs")),
                join(&at, &format!("{seg}/mod.rs")),
            ],
        );
        match file {
            Some(f) => best = Some(f),
            None => break,
        }
        at = join(&at, seg);
    }
    best.or_else(|| {
        first_existing(
            r,
            [
                join(dir, "lib.rs"),
                join(dir, "main.rs"),
                join(dir, "mod.rs"),
            ],
        )
    })
}

const JVM_STDLIB: &[&str] = &[
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "com.sun.",
    "org.w3c.dom",
    "org.xml.sax",
    "org.ietf.jgss",
    "org.omg.",
];

fn jvm(r: &mut Resolver, dir: &str, m: &str, kotlin: bool) -> Sorted {
    if JVM_STDLIB.iter().any(|p| m.starts_with(p)) || (kotlin && m.starts_with("kotlin.")) {
        return STDLIB;
    }
    let path = m.trim_end_matches(".*").replace('.', "/");
    let extensions: &[&str] = if kotlin {
        &[".kt", ".java"]
    } else {
        &[".java", ".kt"]
    };
    // `a.b.C`, `a.b.C.member` (static), `a.b.*` (a package: any file in it).
    let mut at = path.as_str();
    for _ in 0..3 {
        for ext in extensions {
            if let Some(found) = file_ending(r, &format!("{at}{ext}")) {
                return local(Some(found));
            }
        }
        if let Some(found) = dir_ending(r, at) {
            return local(Some(found));
        }
        match at.rsplit_once('/') {
            Some((head, _)) => at = head,
            None => break,
        }
    }
    third_party(r, dir, m)
}

fn include(r: &mut Resolver, dir: &str, m: &str, form: ImportForm) -> Sorted {
    if form == ImportForm::Relative
        && let Some(found) = normalize(&join(dir, m)).filter(|p| r.exists(p))
    {
        return local(Some(found));
    }
    let standard =
        in_list(stdlib::C_HEADERS, m) || in_list(stdlib::CPP_HEADERS, m) || m.starts_with("sys/");
    if standard && form == ImportForm::System {
        return STDLIB;
    }
    if let Some(found) = file_ending(r, m) {
        return local(Some(found));
    }
    if standard {
        return STDLIB;
    }
    third_party(r, dir, m.split('/').next().unwrap_or(m))
}

fn csharp(r: &mut Resolver, dir: &str, m: &str) -> Sorted {
    let first = m.split('.').next().unwrap_or(m);
    let bcl = [
        "Microsoft.CSharp",
        "Microsoft.Win32",
        "Microsoft.VisualBasic",
    ];
    if first == "System" || bcl.iter().any(|p| m.starts_with(p)) {
        return STDLIB;
    }
    // A namespace of the repository's: a directory named after it or its first parts.
    let segments: Vec<&str> = m.split('.').collect();
    for n in (1..=segments.len()).rev() {
        let name = segments[..n].join(".");
        if let Some(found) = dir_ending(r, &name)
            .or_else(|| dir_ending(r, &segments[..n].join("/")).filter(|_| n > 1))
        {
            return local(Some(found));
        }
    }
    third_party(r, dir, m)
}

fn ruby(r: &mut Resolver, dir: &str, m: &str, form: ImportForm) -> Sorted {
    let with_rb = if m.ends_with(".rb") {
        m.to_owned()
    } else {
        format!("{m}.rb")
    };
    if form == ImportForm::Relative {
        return local(normalize(&join(dir, &with_rb)).filter(|p| r.exists(p)));
    }
    let first = m.split('/').next().unwrap_or(m);
    if in_list(stdlib::RUBY, m) || in_list(stdlib::RUBY, first) {
        return STDLIB;
    }
    if let Some(found) = file_ending(r, &format!("lib/{with_rb}")) {
        return local(Some(found));
    }
    third_party(r, dir, first)
}

fn php(r: &mut Resolver, dir: &str, m: &str, form: ImportForm) -> Sorted {
    if form == ImportForm::Relative {
        let found = normalize(&join(dir, m.trim_start_matches('/'))).filter(|p| r.exists(p));
        return local(found.or_else(|| file_ending(r, m.trim_start_matches('/'))));
    }
    // A global name: a built-in class, function (lower case) or constant (upper case).
    let function = m
        .chars()
        .all(|c| c.is_lowercase() || c.is_ascii_digit() || c == '_');
    let constant = m
        .chars()
        .all(|c| c.is_uppercase() || c.is_ascii_digit() || c == '_');
    if !m.contains('\\') && (in_list(stdlib::PHP_GLOBAL, m) || function || constant) {
        return STDLIB;
    }
    let prefixes: Vec<(String, String)> = r
        .manifests_above(dir)
        .iter()
        .flat_map(|mf| mf.psr4.clone())
        .collect();
    let best = prefixes
        .iter()
        .filter(|(p, _)| m == p || m.starts_with(&format!("{p}\\")))
        .max_by_key(|(p, _)| p.len());
    if let Some((prefix, at)) = best {
        let rest = m[prefix.len()..]
            .trim_start_matches('\\')
            .replace('\\', "/");
        let found = first_existing(r, [format!("{}.php", join(at, &rest)), join(at, &rest)]);
        return local(found.or_else(|| Some(at.clone())));
    }
    let vendor = m.split('\\').next().unwrap_or(m).to_lowercase();
    third_party(r, dir, &vendor)
}

fn swift(r: &mut Resolver, dir: &str, m: &str) -> Sorted {
    let module = m.split('.').next().unwrap_or(m);
    if in_list(stdlib::SWIFT, module) {
        return STDLIB;
    }
    let own = r
        .manifests_above(dir)
        .iter()
        .any(|mf| mf.own.iter().any(|o| o == module));
    let found = dir_ending(r, &format!("Sources/{module}"));
    if own || found.is_some() {
        return local(found);
    }
    third_party(r, dir, module)
}

/// The repository file whose path is `tail` or ends with `/tail`.
fn file_ending(r: &mut Resolver, tail: &str) -> Option<String> {
    r.index().file_ending(tail).map(str::to_owned)
}

/// A directory of the repository whose path is `tail` or ends with `/tail`.
fn dir_ending(r: &mut Resolver, tail: &str) -> Option<String> {
    r.index().dir_ending(tail).map(str::to_owned)
}

/// The directory part of a `/`-separated relative path (`""` at the root).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// One directory up; `None` above the root.
fn up(dir: &str) -> Option<String> {
    (!dir.is_empty()).then(|| parent(dir).to_owned())
}

fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (false, true) => dir.to_owned(),
        (false, false) => format!("{dir}/{rest}"),
    }
}

/// `a/./b/../c` as `a/c`; `None` when it climbs above the root.
fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_joined_and_normalised_inside_the_root() {
        assert_eq!(normalize("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(normalize("a/../../x"), None);
        assert_eq!(parent("a/b.py"), "a");
        assert_eq!(parent("b.py"), "");
        assert_eq!(up("a"), Some(String::new()));
        assert_eq!(up(""), None);
        assert_eq!(package_name("@scope/pkg/sub"), "@scope/pkg");
        assert_eq!(package_name("react-dom/client"), "react-dom");
        assert_eq!(rust_module_dir("src/lib.rs"), "src");
        assert_eq!(rust_module_dir("src/a.rs"), "src/a");
    }
}
