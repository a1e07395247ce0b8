//! Compiles the C parsers under `grammars/`. Reads only files of this repository.

use std::path::Path;

/// Grammars compiled into this crate: directory under `grammars/` and C symbol suffix.
const GRAMMARS: &[&str] = &["pony", "udev", "chatito"];

fn main() {
    for name in GRAMMARS {
        let src = Path::new("grammars").join(name).join("src");
        let mut build = cc::Build::new();
        build
            .std("c11")
            .include(&src)
            .warnings(false)
            .flag_if_supported("-Wno-unused-parameter")
            .flag_if_supported("-Wno-unused-but-set-variable")
            .flag_if_supported("-Wno-trigraphs");
        for file in ["parser.c", "scanner.c"] {
            let path = src.join(file);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
                build.file(path);
            }
        }
        build.compile(&format!("tree-sitter-{name}"));
    }
}
