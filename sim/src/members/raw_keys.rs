//! The keys of members written whole ([`super::Members::raw`]), read back by a JSON parser:
//! the debug builds' check that a model's constant text holds the members it says it does.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

/// The keys of `text`, members each `,"key":value`, in order; `None` if it is not such members.
pub(super) fn of(text: &str) -> Option<Vec<String>> {
    let object = format!("{{{}}}", text.strip_prefix(',')?);
    let mut parser = serde_json::Deserializer::from_str(&object);
    let keys = (&mut parser).deserialize_map(Keys).ok()?;
    parser.end().ok()?;
    Some(keys)
}

/// Collects a map's keys, its values parsed and ignored.
struct Keys;

impl<'de> Visitor<'de> for Keys {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
        let mut keys = Vec::new();
        while let Some((key, IgnoredAny)) = map.next_entry()? {
            keys.push(key);
        }
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Members, Recurring};
    use super::*;

    #[test]
    fn members_read_back_in_order() {
        assert_eq!(of(r#","a":1,"b":{"c":[2]}"#), Some(vec!["a".into(), "b".into()]));
        assert_eq!(of(r#""a":1"#), None, "no leading comma");
        assert_eq!(of(r#","a":1}"#), None, "not members alone");
        assert_eq!(of(","), Some(vec![]));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "members")]
    fn raw_members_whose_keys_are_not_those_said_fail() {
        let (mut line, mut recurring) = (String::new(), Recurring::default());
        Members::new(&mut line, 0..0, &mut recurring).raw(&["a", "b"], r#","b":1,"a":2"#);
    }
}
