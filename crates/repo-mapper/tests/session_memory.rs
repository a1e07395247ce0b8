//! A long session stays flat in memory (issue 13): after warming up, 1,000 maps with
//! ever-changing chat files and mentions leave the live heap where it was. Before the map
//! cache and the render contexts were bounded, every distinct request kept its map and
//! report for the life of the session.

#![allow(unsafe_code)] // the counting global allocator
#![allow(clippy::print_stderr)] // prints what it measured

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicIsize, Ordering};

use repo_mapper::{CacheLocation, Config, MapRequest, Refresh, RepoMap, list_files};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only the counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sample-repo")
        .canonicalize()
        .unwrap()
}

/// Request `i`: one chat file and one mentioned identifier, both changing with `i`, so
/// nearly every request is new to the map cache.
fn request(files: &[PathBuf], i: usize) -> MapRequest {
    MapRequest::new(files.to_vec())
        .with_chat_files(vec![files[i % files.len()].clone()])
        .with_mentioned_idents([format!("name{i}")])
}

#[test]
fn a_thousand_maps_keep_the_heap_flat() {
    let root = sample();
    let cache = tempfile::tempdir().unwrap();
    let mut config = Config::new(&root);
    config.cache = CacheLocation::Dir(cache.path().to_owned());
    config.refresh = Refresh::Auto; // the key holds the mentions: every request is new
    let files = list_files(&root, None);
    let mut session = RepoMap::new(config);
    let live = || LIVE.load(Ordering::Relaxed);
    for i in 0..100 {
        let _ = session.map(&request(&files, i));
    }
    let warm = live();
    for i in 100..1_000 {
        let _ = session.map(&request(&files, i));
    }
    let grown = live() - warm;
    eprintln!("live heap after 100 maps: {warm} bytes; 900 maps later: {grown:+} bytes");
    assert!(
        grown < 256 * 1024,
        "the live heap grew by {grown} bytes over 900 maps (from {warm})"
    );
}
