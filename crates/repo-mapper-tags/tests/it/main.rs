//! Integration tests of `repo-mapper-tags`, one binary for all of them: every test binary
//! links the grammars (~100 MB each), so one per file filled CI disks. Each module
//! is one former test file; run one with `cargo test -p repo-mapper-tags --test it MODULE::`.

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

mod bad_input;
mod capture_wrap;
mod deep_nesting;
mod queries;
mod scanner_state;
