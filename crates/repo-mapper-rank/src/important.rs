//! Important files (behaviour.md §8): conventional repository files that head the map.
//!
//! The list is Aider 0.86.2's (`aider/special.py`), matched against the whole relative
//! path: `README.md` at the root is important, `docs/README.md` is not. Any `*.yml` file
//! directly inside `.github/workflows/` is important too.

use std::collections::HashSet;
use std::sync::OnceLock;

/// The important paths, relative to the repository root, in Aider's order.
pub(crate) const ROOT_IMPORTANT_FILES: &[&str] = &[
    // Version control
    ".gitignore",
    ".gitattributes",
    // Documentation
    "README",
    "README.md",
    "README.txt",
    "README.rst",
    "CONTRIBUTING",
    "CONTRIBUTING.md",
    "CONTRIBUTING.txt",
    "CONTRIBUTING.rst",
    "LICENSE",
    "LICENSE.md",
    "LICENSE.txt",
    "CHANGELOG",
    "CHANGELOG.md",
    "CHANGELOG.txt",
    "CHANGELOG.rst",
    "SECURITY",
    "SECURITY.md",
    "SECURITY.txt",
    "CODEOWNERS",
    // Package management
    "requirements.txt",
    "Pipfile",
    "Pipfile.lock",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "package-lock.json",
    "yarn.lock",
    "npm-shrinkwrap.json",
    "Gemfile",
    "Gemfile.lock",
    "composer.json",
    "composer.lock",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "build.sbt",
    "go.mod",
    "go.sum",
    "Cargo.toml",
    "Cargo.lock",
    "mix.exs",
    "rebar.config",
    "project.clj",
    "Podfile",
    "Cartfile",
    "dub.json",
    "dub.sdl",
    // Configuration
    ".env",
    ".env.example",
    ".editorconfig",
    "tsconfig.json",
    "jsconfig.json",
    ".babelrc",
    "babel.config.js",
    ".eslintrc",
    ".eslintignore",
    ".prettierrc",
    ".stylelintrc",
    "tslint.json",
    ".pylintrc",
    ".flake8",
    ".rubocop.yml",
    ".scalafmt.conf",
    ".dockerignore",
    ".gitpod.yml",
    "sonar-project.properties",
    "renovate.json",
    "dependabot.yml",
    ".pre-commit-config.yaml",
    "mypy.ini",
    "tox.ini",
    ".yamllint",
    "pyrightconfig.json",
    // Build
    "webpack.config.js",
    "rollup.config.js",
    "parcel.config.js",
    "gulpfile.js",
    "Gruntfile.js",
    "build.xml",
    "build.boot",
    "project.json",
    "build.cake",
    "MANIFEST.in",
    // Testing
    "pytest.ini",
    "phpunit.xml",
    "karma.conf.js",
    "jest.config.js",
    "cypress.json",
    ".nycrc",
    ".nycrc.json",
    // CI/CD
    ".travis.yml",
    ".gitlab-ci.yml",
    "Jenkinsfile",
    "azure-pipelines.yml",
    "bitbucket-pipelines.yml",
    "appveyor.yml",
    "circle.yml",
    ".circleci/config.yml",
    ".github/dependabot.yml",
    "codecov.yml",
    ".coveragerc",
    // Containers
    "Dockerfile",
    "docker-compose.yml",
    "docker-compose.override.yml",
    // Cloud and serverless
    "serverless.yml",
    "firebase.json",
    "now.json",
    "netlify.toml",
    "vercel.json",
    "app.yaml",
    "terraform.tf",
    "main.tf",
    "cloudformation.yaml",
    "cloudformation.json",
    "ansible.cfg",
    "kubernetes.yaml",
    "k8s.yaml",
    // Database
    "schema.sql",
    "liquibase.properties",
    "flyway.conf",
    // Frameworks
    "next.config.js",
    "nuxt.config.js",
    "vue.config.js",
    "angular.json",
    "gatsby-config.js",
    "gridsome.config.js",
    // API documentation
    "swagger.yaml",
    "swagger.json",
    "openapi.yaml",
    "openapi.json",
    // Development environment
    ".nvmrc",
    ".ruby-version",
    ".python-version",
    "Vagrantfile",
    // Quality and metrics
    ".codeclimate.yml",
    "codecov.yml",
    // Documentation tooling
    "mkdocs.yml",
    "_config.yml",
    "book.toml",
    "readthedocs.yml",
    ".readthedocs.yaml",
    // Package registries
    ".npmrc",
    ".yarnrc",
    // Linting and formatting
    ".isort.cfg",
    ".markdownlint.json",
    ".markdownlint.yaml",
    // Security
    ".bandit",
    ".secrets.baseline",
    // Misc
    ".pypirc",
    ".gitkeep",
    ".npmignore",
];

/// Whether a path relative to the repository root is an important file: its normalised
/// form is one of Aider's important paths (behaviour.md §8.1, `aider/special.py`), or it is a
/// `*.yml` file directly in `.github/workflows/`. Paths are compared as Python's `os.path.normpath` leaves them
/// (`./README.md` and `a/../README.md` are `README.md`).
pub fn is_important(rel_fname: &str) -> bool {
    // A plain last component survives `normpath` as it is: when no important path ends
    // with it, the path is not important (most paths, without normalising them).
    let name = rel_fname.rsplit('/').next().unwrap_or(rel_fname);
    if !matches!(name, "" | "." | "..")
        && !name.ends_with(".yml")
        && !important_names().contains(name)
    {
        return false;
    }
    is_important_in_full(rel_fname)
}

/// [`is_important`] without the shortcut.
fn is_important_in_full(rel_fname: &str) -> bool {
    let (dir, name) = match rel_fname.rfind('/') {
        Some(i) => (&rel_fname[..i + 1], &rel_fname[i + 1..]),
        None => ("", rel_fname),
    };
    if normpath(dir) == ".github/workflows" && name.ends_with(".yml") {
        return true;
    }
    let normalized = normpath(rel_fname);
    ROOT_IMPORTANT_FILES.contains(&normalized.as_str())
}

/// The last components of the important paths.
fn important_names() -> &'static HashSet<&'static str> {
    static NAMES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        ROOT_IMPORTANT_FILES
            .iter()
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .collect()
    })
}

/// Python's `posixpath.normpath`: collapses separators and `.`, resolves `..` where a
/// component precedes it, `"."` for an empty result. (The one quirk we skip: POSIX keeps a
/// leading `//`; no relative path has one.)
fn normpath(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|&p| p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_files_are_important() {
        for f in [
            "README.md",
            ".gitignore",
            "Cargo.toml",
            ".circleci/config.yml",
            "./setup.py",
        ] {
            assert!(is_important(f), "{f}");
        }
        for f in [
            "docs/README.md",
            "src/Cargo.toml",
            "readme.md",
            "main.py",
            ".circleci/x.yml",
        ] {
            assert!(!is_important(f), "{f}");
        }
    }

    #[test]
    fn workflow_yml_files_are_important() {
        assert!(is_important(".github/workflows/ci.yml"));
        assert!(is_important(".github//workflows/./release.yml"));
        assert!(!is_important(".github/workflows/ci.yaml"));
        assert!(!is_important(".github/workflows/sub/ci.yml"));
        assert!(!is_important("x/.github/workflows/ci.yml"));
        assert!(is_important(".github/dependabot.yml"));
        assert!(is_important(".github/workflows/.yml"));
    }

    #[test]
    fn the_shortcut_never_changes_the_answer() {
        let mut paths = vec!["", ".", "..", "a/..", "x.yml", "main.py", "src/lib.rs"];
        let variants: Vec<String> = ROOT_IMPORTANT_FILES
            .iter()
            .flat_map(|f| {
                ["", "./", "a/../", "x/", "../", ".github/workflows/"]
                    .iter()
                    .flat_map(move |pre| {
                        ["", "/", "/.", "/..", "/x", "x", ".yml"]
                            .iter()
                            .map(move |post| format!("{pre}{f}{post}"))
                    })
            })
            .collect();
        paths.extend(variants.iter().map(String::as_str));
        let mut important = 0;
        for p in paths {
            assert_eq!(is_important(p), is_important_in_full(p), "{p:?}");
            important += usize::from(is_important(p));
        }
        assert!(important > ROOT_IMPORTANT_FILES.len(), "{important}");
    }

    #[test]
    fn normpath_matches_python() {
        assert_eq!(normpath(""), ".");
        assert_eq!(normpath("a//b/./c/"), "a/b/c");
        assert_eq!(normpath("a/../../b"), "../b");
        assert_eq!(normpath("/../a"), "/a");
        assert_eq!(normpath(".github/workflows/"), ".github/workflows");
    }
}
