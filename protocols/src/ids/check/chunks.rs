//! A list that grows by adding chunks, never by moving what it holds.

/// The largest chunk: past it a list grows by chunks of this many (at 24 bytes an issue,
/// 96 KiB), so its unused room stays under one chunk.
const MAX_CHUNK: usize = 4096;

/// A list of `T` in chunks, each new one as long as the list so far (at least 16, at most
/// [`MAX_CHUNK`]): as little unused room as a `Vec` doubling, and nothing copied as it grows.
/// A generator's issued IDs, tens of thousands a run, grew a `Vec` by copying each ~2 times,
/// ~30 instructions per ID as valgrind counts the copy.
pub(super) struct Chunks<T> {
    /// The chunks filled, in order.
    full: Vec<Vec<T>>,
    /// The chunk being filled, after them: kept apart so a push and a look at the last item
    /// find it without a look-up.
    tail: Vec<T>,
    /// How many items `full` holds.
    full_len: usize,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Chunks {
            full: Vec::new(),
            tail: Vec::new(),
            full_len: 0,
        }
    }
}

impl<T: Copy> Chunks<T> {
    #[inline]
    pub(super) fn push(&mut self, item: T) {
        if self.tail.len() == self.tail.capacity() {
            self.next_chunk();
        }
        self.tail.push(item);
    }

    /// Files the full tail and starts the next chunk.
    #[cold]
    fn next_chunk(&mut self) {
        let room = self.len().clamp(16, MAX_CHUNK);
        let full = std::mem::replace(&mut self.tail, Vec::with_capacity(room));
        if !full.is_empty() {
            self.full_len += full.len();
            self.full.push(full);
        }
    }

    #[inline]
    pub(super) fn last(&self) -> Option<&T> {
        self.tail.last()
    }

    pub(super) fn len(&self) -> usize {
        self.full_len + self.tail.len()
    }

    /// The items as slices, in order (an empty one possibly among them): a walk over them
    /// steps within a slice, where a flattened iterator checks for the chunk's end at every
    /// item (twice the instructions per step of `repeat.rs`'s pairwise walk).
    pub(super) fn slices(&self) -> impl Iterator<Item = &[T]> {
        self.full.iter().chain([&self.tail]).map(Vec::as_slice)
    }

    /// The items in one `Vec`, in order.
    pub(super) fn into_vec(mut self) -> Vec<T> {
        self.full.push(self.tail);
        self.full.concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_order_across_chunks() {
        let mut c = Chunks::default();
        assert_eq!((c.len(), c.last()), (0, None));
        for i in 0..10_000u32 {
            c.push(i);
        }
        assert_eq!((c.len(), c.last()), (10_000, Some(&9_999)));
        assert!(c.slices().flatten().copied().eq(0..10_000));
        assert_eq!(c.into_vec(), (0..10_000).collect::<Vec<_>>());
    }
}
