//! The SHA-256 that pins a run, taken line by line as the trace passes: equal hashes,
//! byte-identical traces.

use sha2::{Digest, Sha256};

use super::page::Page;
use super::sink::{Passing, TraceSink};

/// Bytes [`TraceHash::update`] gathers before the hasher sees them (a trace line is ~360 bytes).
/// `sha2` handed one line at a time fills its partial block (a copy), compresses it (one call),
/// compresses the line's whole blocks (a second call, each call dispatching on the CPU's
/// features and setting up) and keeps the tail (another copy): ~120 instructions a line besides
/// the compression. Handed a chunk, it runs over 128 blocks per call; a line costs one copy.
const CHUNK: usize = 8 * 1024;

/// The SHA-256 of a trace's lines, each followed by a newline, computed as they pass: equal
/// hashes, byte-identical traces.
pub struct TraceHash {
    sha: Sha256,
    /// Lines handed to [`TraceHash::update`] not hashed yet, never more than [`CHUNK`] bytes.
    chunk: Vec<u8>,
}

impl Default for TraceHash {
    fn default() -> Self {
        TraceHash {
            sha: Sha256::default(),
            chunk: Vec::with_capacity(CHUNK),
        }
    }
}

impl TraceHash {
    pub fn update(&mut self, line: &str) {
        self.take_bytes(line.as_bytes());
        self.take_bytes(b"\n");
    }

    /// Appends `bytes` to the chunk, hashing the chunk first if they do not fit; bytes longer
    /// than a chunk (a rendered page hashed whole) go to the hasher as they are.
    fn take_bytes(&mut self, bytes: &[u8]) {
        if self.chunk.len() + bytes.len() > CHUNK {
            self.sha.update(&self.chunk);
            self.chunk.clear();
            if bytes.len() > CHUNK {
                self.sha.update(bytes);
                return;
            }
        }
        self.chunk.extend_from_slice(bytes);
    }

    /// The hash in lowercase hex. Digits from a table, not a `format!` per byte: every run
    /// that states its hash pays this once, and 32 formatter calls cost more than a short run
    /// of the engine.
    pub fn hex(mut self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        self.sha.update(&self.chunk);
        let mut hex = String::with_capacity(64);
        for b in self.sha.finalize() {
            hex.push(char::from(DIGITS[usize::from(b >> 4)]));
            hex.push(char::from(DIGITS[usize::from(b & 0xf)]));
        }
        hex
    }
}

/// A run's lines reach the hash in the line writer's pages, hashed where they lie: copying
/// each line into the chunk cost ~90 instructions an event.
impl TraceSink for TraceHash {
    fn take(&mut self, _: &Passing<'_>) {}

    fn take_page(&mut self, page: &Page<'_>) {
        if !self.chunk.is_empty() {
            self.sha.update(&self.chunk);
            self.chunk.clear();
        }
        self.sha.update(page.bytes());
    }

    fn takes_each(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunked, the hash is SHA-256's of the same bytes handed over at once: for lines that
    /// fill a chunk exactly, cross its end, and exceed a chunk alone; handed in pages, or in
    /// lines and pages mixed, too.
    #[test]
    fn chunked_hashing_agrees_with_hashing_whole() {
        let long = "x".repeat(CHUNK + 100);
        let exact = "y".repeat(CHUNK - 1);
        let mut lines: Vec<String> = (0..100).map(|i| format!("{{\"i\":{i}}}").repeat(i % 37)).collect();
        lines.insert(10, exact.clone());
        lines.insert(11, exact);
        lines.insert(30, long.clone());
        lines.push(long);
        let mut hash = TraceHash::default();
        let mut paged = TraceHash::default();
        let mut mixed = TraceHash::default();
        let mut whole = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            hash.update(line);
            let (text, ends) = (format!("{line}\n"), [line.len()]);
            let page = Page::new(&text, &ends);
            paged.take_page(&page);
            if i % 3 == 0 {
                mixed.take_page(&page);
            } else {
                mixed.update(line);
            }
            whole.extend_from_slice(line.as_bytes());
            whole.push(b'\n');
        }
        assert!(whole.len() > 4 * CHUNK);
        let want: String = Sha256::digest(&whole).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hash.hex(), want);
        assert_eq!(paged.hex(), want);
        assert_eq!(mixed.hex(), want);
    }
}
