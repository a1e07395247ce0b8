//! Helpers shared by the store's test files.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

/// Sets the modification time of the file at `p`.
pub(crate) fn set_mtime(p: &Path, t: SystemTime) {
    fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}
