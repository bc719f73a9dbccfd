//! Text a trace line takes without an escape scan: a fact that says its kind and text are
//! plain ([`crate::Observation::plain_text`]) in a run whose node names are all plain. The scan
//! of a fact's text and the lookup of its kind cost ~150 instructions a fact, a third of many
//! runs' lines.

use crate::escape::push_escaped;
use crate::ids::Names;

/// Whether every node of `names` is named without a character JSON escapes.
pub(super) fn plain_names(names: &Names) -> bool {
    names.iter().all(|(n, name)| names.json(n) == name)
}

/// Debug builds (tests) check that a text said to be plain is.
pub(super) fn debug_assert_plain(text: &str) {
    debug_assert!(
        {
            let mut escaped = String::new();
            push_escaped(&mut escaped, text);
            escaped == text
        },
        "a fact's text said to be plain needs escapes: {text:?}"
    );
}
