//! A page of trace lines as the line writer hands it on: the lines' bytes, each line followed
//! by a newline (what a hasher takes whole), and where each line ends (what a trace file,
//! which separates its lines with a comma too, needs to write them one by one without
//! searching the bytes for newlines).

/// Lines in order, each followed by a newline.
#[derive(Clone, Copy)]
pub struct Page<'a> {
    text: &'a str,
    /// The offset of each line's newline in `text`, in order.
    ends: &'a [usize],
}

impl<'a> Page<'a> {
    /// The page of `text`, whose lines' newlines are at `ends`.
    pub(super) fn new(text: &'a str, ends: &'a [usize]) -> Self {
        debug_assert!(
            ends.iter().all(|&end| text.as_bytes()[end] == b'\n')
                && ends.last().is_none_or(|&end| end + 1 == text.len()),
            "each line ends at a newline, the last at the page's end"
        );
        Page { text, ends }
    }

    /// The page's bytes: its lines, each followed by its newline.
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Each line, without its newline.
    pub fn lines(&self) -> impl Iterator<Item = &'a [u8]> {
        let bytes = self.bytes();
        let mut begin = 0;
        self.ends.iter().map(move |&end| {
            let line = &bytes[begin..end];
            begin = end + 1;
            line
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pages_lines_are_its_text_split_at_each_newline() {
        let text = "{\"i\":0}\n\n{\"i\":2,\"é\":1}\n";
        let page = Page::new(text, &[7, 8, 23]);
        let lines: Vec<&[u8]> = page.lines().collect();
        let want: Vec<&[u8]> = text.split_terminator('\n').map(str::as_bytes).collect();
        assert_eq!(lines, want);
        assert_eq!(page.bytes(), text.as_bytes());
        assert_eq!(Page::new("", &[]).lines().count(), 0);
    }
}
