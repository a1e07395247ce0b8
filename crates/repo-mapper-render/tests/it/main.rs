//! Integration tests of `repo-mapper-render`, one binary for all of them: every test binary
//! links the grammars (~100 MB each), so one per file filled CI disks. Each module
//! is one former test file; run one with `cargo test -p repo-mapper-render --test it MODULE::`.

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

mod fuzz_regressions;
mod golden;
mod model;
mod renderer;
mod scope_cache;
