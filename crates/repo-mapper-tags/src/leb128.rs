//! LEB128 numbers: seven bits a byte, low bits first, the high bit set on every byte but
//! the last. The one encoding of counts and deltas in what is kept on disk: the store's
//! entries and the renderer's scopes.

/// Appends `n`.
pub fn push(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Takes a number from the front of `bytes`; `None` at their end, or past 64 bits.
pub fn take(bytes: &mut &[u8]) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        n |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_come_back() {
        for n in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            push(&mut out, n);
            let mut bytes = &out[..];
            assert_eq!(take(&mut bytes), Some(n));
            assert!(bytes.is_empty());
        }
        assert_eq!(take(&mut &[0x80][..]), None, "cut short");
        assert_eq!(take(&mut &[0xff; 11][..]), None, "past 64 bits");
    }
}
