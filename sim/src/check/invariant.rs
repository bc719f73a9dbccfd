//! An invariant's identity: open, so a model defines the invariants it judges beside its
//! checker and the engine needs no list of every protocol's rules.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Serialize, Serializer};

/// A stable invariant id, as used in scenario files, JSON output and reports, with what it
/// means. Two invariants are the same when their ids are: the id is what files and reports
/// carry, so equality, order and hashing look at it alone.
#[derive(Copy, Clone, Debug)]
pub struct Invariant {
    id: &'static str,
    meaning: &'static str,
}

impl Invariant {
    /// `id` in snake_case (e.g. `mutual_exclusion`); `meaning`: when it holds, in one line.
    pub const fn new(id: &'static str, meaning: &'static str) -> Self {
        Invariant { id, meaning }
    }

    pub fn id(self) -> &'static str {
        self.id
    }

    /// When it holds, in one line (for `locksim list`).
    pub fn meaning(self) -> &'static str {
        self.meaning
    }
}

impl PartialEq for Invariant {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Invariant {}

impl Hash for Invariant {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl PartialOrd for Invariant {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Invariant {
    fn cmp(&self, other: &Self) -> Ordering {
        self.id.cmp(other.id)
    }
}

impl Serialize for Invariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id)
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Invariant = Invariant::new("a_rule", "a holds");
    const B: Invariant = Invariant::new("b_rule", "b holds");

    #[test]
    fn an_invariant_is_its_id_in_equality_order_display_and_json() {
        let same_id = Invariant::new("a_rule", "worded otherwise");
        assert_eq!(A, same_id);
        assert_ne!(A, B);
        assert!(A < B);
        assert_eq!((A.id(), A.meaning()), ("a_rule", "a holds"));
        assert_eq!(A.to_string(), "a_rule");
        assert_eq!(serde_json::to_string(&[A, B]).unwrap(), r#"["a_rule","b_rule"]"#);
    }
}
