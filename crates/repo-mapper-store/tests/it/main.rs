//! Integration tests of `repo-mapper-store`, one binary for all of them: every test binary
//! links the grammars (~100 MB each), so one per file filled CI disks. Each module
//! is one former test file; run one with `cargo test -p repo-mapper-store --test it MODULE::`.

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

mod common;
mod hostile;
mod pack;
mod problems;
mod racy;
mod rebuild;
mod store;
mod words;
