//! Integration tests of `repo-mapper`, one binary for all of them: every test binary
//! links the grammars (~100 MB each), so one per file filled CI disks. Each module
//! is one former test file; run one with `cargo test -p repo-mapper --test it MODULE::`.

mod fallback;
mod golden;
mod history;
mod hostile;
mod map;
mod profiles;
mod warm_session;
