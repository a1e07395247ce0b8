//! `cargo xtask vendor-ranks [--check]`: tiktoken's rank tables, in the compact layout the
//! facade's token counter reads (`crates/repo-mapper/src/tokens/ranks.rs`, issue 26).
//!
//! Each table is taken from tiktoken-rs itself, the counter the design card names: every
//! rank from 0 up is decoded by its `CoreBPE` until the first rank it does not know. The
//! file is `MAGIC`, the number of tokens (u32, little-endian), then each token in rank
//! order as its length (one byte) and its bytes. `--check` fails when a vendored table is
//! not what this would write (the facade's unit tests check the same, rank by rank).

use std::fs;
use std::path::PathBuf;

use anyhow::{Context, Result, bail, ensure};
use tiktoken_rs::{CoreBPE, Rank};

/// The first bytes of a table (the facade checks them).
const MAGIC: &[u8] = b"RMRANKS1";

/// An encoding's tiktoken-rs constructor.
type Encoder = fn() -> Result<CoreBPE>;

/// The encodings the facade counts with, by file name.
const ENCODINGS: [(&str, Encoder); 2] = [
    ("cl100k_base", tiktoken_rs::cl100k_base),
    ("o200k_base", tiktoken_rs::o200k_base),
];

pub(crate) fn run(args: &[String]) -> Result<()> {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => bail!("usage: cargo xtask vendor-ranks [--check]"),
    };
    for (name, bpe) in ENCODINGS {
        let table = compact(&bpe()?)?;
        let path = assets().join(format!("{name}.ranks"));
        if check {
            let vendored =
                fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            ensure!(
                vendored == table,
                "{} differs from tiktoken-rs's {name}",
                path.display()
            );
            println!("{}: equal to tiktoken-rs's {name}", path.display());
        } else {
            fs::write(&path, &table)?;
            println!("wrote {} ({} bytes)", path.display(), table.len());
        }
    }
    Ok(())
}

/// The facade's assets directory.
fn assets() -> PathBuf {
    crate::workspace_root().join("crates/repo-mapper/assets")
}

/// `bpe`'s ordinary tokens in the compact layout (see the module documentation).
fn compact(bpe: &CoreBPE) -> Result<Vec<u8>> {
    let mut tokens = Vec::new();
    let mut body = Vec::new();
    for rank in 0..Rank::MAX {
        let Ok(bytes) = bpe.decode_bytes(&[rank]) else {
            break;
        };
        let len = u8::try_from(bytes.len()).context("a token longer than 255 bytes")?;
        body.push(len);
        body.extend_from_slice(&bytes);
        tokens.push(rank);
    }
    let count = u32::try_from(tokens.len())?;
    let mut table = MAGIC.to_vec();
    table.extend_from_slice(&count.to_le_bytes());
    table.extend_from_slice(&body);
    Ok(table)
}
