//! A guard between tree-sitter and the grammars' external scanners.
//!
//! After every token an external scanner makes, tree-sitter asks it to serialise its state
//! into a 1,024-byte buffer and *aborts the process* (`ts_assert`, compiled in release too)
//! when the scanner reports more. Not every scanner stays within bounds: Python's writes
//! its indentation stack two bytes at a time and reaches 1,025 bytes in a file nested ~510
//! levels deep with a string open — one hostile file would kill a whole map.
//!
//! [`guard`] gives each grammar a copy of its `TSLanguage` whose `serialize` is a
//! trampoline: the scanner writes into a large per-thread scratch buffer, and a state that
//! does not fit tree-sitter's buffer is dropped (length 0, which every scanner reads as
//! "start from the empty state") instead of aborting. States that fit are passed through
//! unchanged, so parses are byte-for-byte those of the unguarded grammar everywhere else.
//!
//! The copy mirrors tree-sitter 0.25's `struct TSLanguage` (ABI 13 to 15, whose layouts
//! share a prefix). A grammar of any other ABI, or whose copy does not read back the same
//! counts through tree-sitter's own accessors, is left unguarded.

// Wrapping C scanners' serialize functions is FFI.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{c_char, c_uint, c_void};
use std::mem::{MaybeUninit, offset_of, size_of};
use std::sync::atomic::{AtomicPtr, Ordering};

use tree_sitter::ffi;

/// tree-sitter's `TREE_SITTER_SERIALIZATION_BUFFER_SIZE`.
const TS_BUFFER: usize = 1024;

/// Where scanners serialise; far larger than any scanner's state (Python's peaks at 1,025).
const SCRATCH: usize = 64 * 1024;

type Serialize = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_uint;

/// The `external_scanner` member of `struct TSLanguage`.
#[repr(C)]
#[derive(Clone, Copy)]
struct ExternalScanner {
    states: *const bool,
    symbol_map: *const u16,
    create: *const c_void,
    destroy: *const c_void,
    scan: *const c_void,
    serialize: Option<Serialize>,
    deserialize: *const c_void,
}

/// `struct TSLanguage` as far as ABI 14 goes (ABI 13 ends before `primary_state_ids`).
#[repr(C)]
#[derive(Clone, Copy)]
struct LanguageAbi14 {
    abi_version: u32,
    symbol_count: u32,
    alias_count: u32,
    token_count: u32,
    external_token_count: u32,
    state_count: u32,
    large_state_count: u32,
    production_id_count: u32,
    field_count: u32,
    max_alias_sequence_length: u16,
    tables: [*const c_void; 13],
    lex_fn: *const c_void,
    keyword_lex_fn: *const c_void,
    keyword_capture_token: u16,
    external_scanner: ExternalScanner,
    primary_state_ids: *const u16,
}

/// `struct TSLanguage` of ABI 15: ABI 14's fields, then these.
#[repr(C)]
#[derive(Clone, Copy)]
struct LanguageAbi15 {
    base: LanguageAbi14,
    name: *const c_char,
    reserved_words: *const u16,
    max_reserved_word_set_size: u16,
    supertype_count: u32,
    supertype_tables: [*const c_void; 3],
    metadata: [u8; 3],
}

/// The original `serialize` of each guarded grammar, by slot.
static ORIGINAL: [AtomicPtr<c_void>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

thread_local! {
    static BUFFER: RefCell<Box<[u8]>> = RefCell::new(vec![0; SCRATCH].into_boxed_slice());
}

/// Runs slot `slot`'s original `serialize` into the scratch buffer; copies the state to
/// tree-sitter's `buffer` when it fits, else reports an empty state.
///
/// # Safety
/// `payload` is the scanner's own and `buffer` holds [`TS_BUFFER`] bytes, as tree-sitter
/// guarantees when it calls `serialize`.
unsafe fn serialize_guarded(slot: usize, payload: *mut c_void, buffer: *mut c_char) -> c_uint {
    let original = ORIGINAL[slot].load(Ordering::Acquire);
    // SAFETY: only non-null `Serialize` pointers are stored, before the trampoline is used.
    let original: Serialize = unsafe { std::mem::transmute::<*mut c_void, Serialize>(original) };
    BUFFER.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        // SAFETY: the scanner writes its state into a buffer of SCRATCH bytes.
        let length = unsafe { original(payload, scratch.as_mut_ptr().cast()) } as usize;
        if length > TS_BUFFER {
            return 0;
        }
        // SAFETY: `length` ≤ TS_BUFFER, the size of tree-sitter's buffer.
        unsafe { std::ptr::copy_nonoverlapping(scratch.as_ptr(), buffer.cast(), length) };
        length as c_uint
    })
}

macro_rules! trampolines {
    ($($slot:literal)*) => {
        const SLOTS: usize = [$($slot),*].len();
        /// One `serialize` per slot: the C callback carries no context but the payload.
        static TRAMPOLINES: [Serialize; SLOTS] = [$({
            unsafe extern "C" fn trampoline(payload: *mut c_void, buffer: *mut c_char) -> c_uint {
                // SAFETY: tree-sitter calls `serialize` with the payload and its buffer.
                unsafe { serialize_guarded($slot, payload, buffer) }
            }
            trampoline
        }),*];
    };
}

trampolines!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
             30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47);

const _: () = assert!(
    crate::Language::ALL.len() <= SLOTS,
    "one trampoline per language"
);

/// `language` with its scanner's `serialize` guarded (see the module doc), using slot
/// `slot` (one per grammar, below the number of languages); `language` itself when it has
/// no scanner state to guard or a layout this module does not know.
pub(crate) fn guard(language: tree_sitter::Language, slot: usize) -> tree_sitter::Language {
    let raw = language.into_raw();
    // SAFETY: `raw` is a live grammar; `copy_of` reads no more than its ABI's struct.
    let Some(copy) = (unsafe { copy_of(raw) }) else {
        // SAFETY: `raw` came from `into_raw` just above.
        return unsafe { tree_sitter::Language::from_raw(raw) };
    };
    let copy = Box::leak(copy);
    let scanner = &mut copy.base.external_scanner;
    let Some(original) = scanner.serialize else {
        // SAFETY: as above.
        return unsafe { tree_sitter::Language::from_raw(raw) };
    };
    ORIGINAL[slot].store(original as *mut c_void, Ordering::Release);
    scanner.serialize = Some(TRAMPOLINES[slot]);
    // SAFETY: the copy is a complete, leaked (so 'static) language of the same ABI.
    unsafe { tree_sitter::Language::from_raw(std::ptr::from_ref(copy).cast()) }
}

/// A bytewise copy of `raw` (ABI 13 to 15) whose counts read back as the original's, or
/// `None`.
///
/// # Safety
/// `raw` points to a live `TSLanguage`.
unsafe fn copy_of(raw: *const ffi::TSLanguage) -> Option<Box<LanguageAbi15>> {
    // SAFETY: the caller's promise.
    let abi = unsafe { ffi::ts_language_abi_version(raw) };
    let size = match abi {
        13 => offset_of!(LanguageAbi14, primary_state_ids),
        14 => size_of::<LanguageAbi14>(),
        15 => size_of::<LanguageAbi15>(),
        _ => return None,
    };
    let mut copy = Box::new(MaybeUninit::<LanguageAbi15>::zeroed());
    // SAFETY: a language of this ABI is at least `size` bytes; the copy is larger.
    unsafe { std::ptr::copy_nonoverlapping(raw.cast::<u8>(), copy.as_mut_ptr().cast(), size) };
    // SAFETY: every field is an integer or a pointer, for which zero is a valid value.
    let copy = unsafe { copy.assume_init() };
    let mirrored: *const ffi::TSLanguage = std::ptr::from_ref(&*copy).cast();
    // SAFETY: both are languages tree-sitter can read these counts from.
    let same = unsafe {
        ffi::ts_language_abi_version(mirrored) == abi
            && ffi::ts_language_symbol_count(mirrored) == ffi::ts_language_symbol_count(raw)
            && ffi::ts_language_state_count(mirrored) == ffi::ts_language_state_count(raw)
            && ffi::ts_language_field_count(mirrored) == ffi::ts_language_field_count(raw)
    };
    same.then_some(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;

    #[test]
    fn every_grammar_with_a_scanner_state_is_guarded() {
        for (slot, lang) in Language::ALL.into_iter().enumerate() {
            let raw = crate::registry::unguarded_grammar(lang).into_raw();
            // SAFETY: a live grammar.
            let Some(copy) = (unsafe { copy_of(raw) }) else {
                panic!("{lang}: ABI {} not mirrored", unsafe {
                    ffi::ts_language_abi_version(raw)
                });
            };
            let guarded = crate::registry::grammar(lang).into_raw();
            let has_scanner = copy.base.external_scanner.serialize.is_some();
            assert_eq!(guarded != raw, has_scanner, "{lang} (slot {slot})");
        }
    }
}
