//! From TOML to knob entries: every key and value with the 1-based line it was written on,
//! so that every later error can name the line.

use locksim_protocols::knobs::{KnobEntry, KnobValue};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Byte offsets of line starts, for span -> line.
pub struct Lines(Vec<usize>);

impl Lines {
    pub fn new(text: &str) -> Self {
        Lines(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// The 1-based line holding byte `offset`.
    pub fn of(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset)
    }
}

/// A value TOML could parse but locksim cannot take, with its line.
pub struct BadValue {
    pub line: usize,
    pub key: String,
    pub message: String,
}

pub fn table_entries(table: &DeTable<'_>, lines: &Lines) -> Result<Vec<KnobEntry>, BadValue> {
    table
        .iter()
        .map(|(key, value)| {
            let line = lines.of(key.span().start);
            Ok(KnobEntry {
                key: key.get_ref().to_string(),
                value: convert(value, key.get_ref(), lines)?,
                line,
            })
        })
        .collect()
}

fn convert(value: &Spanned<DeValue<'_>>, key: &str, lines: &Lines) -> Result<KnobValue, BadValue> {
    let line = lines.of(value.span().start);
    Ok(match value.get_ref() {
        DeValue::String(s) => KnobValue::Str(s.to_string()),
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(v) => KnobValue::Int(v),
            Err(_) => {
                return Err(BadValue {
                    line,
                    key: key.to_string(),
                    message: format!("integer {} is out of range (at most {})", i.as_str(), i64::MAX),
                });
            }
        },
        DeValue::Float(f) => KnobValue::Decimal(f.as_str().to_string()),
        DeValue::Boolean(b) => KnobValue::Bool(*b),
        DeValue::Datetime(_) => KnobValue::Other("a datetime"),
        DeValue::Array(items) => KnobValue::List(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    Ok(KnobEntry {
                        key: i.to_string(),
                        value: convert(item, key, lines)?,
                        line: lines.of(item.span().start),
                    })
                })
                .collect::<Result<_, _>>()?,
        ),
        DeValue::Table(t) => KnobValue::Table(table_entries(t, lines)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_based() {
        let l = Lines::new("a\nbc\n\nd");
        assert_eq!([l.of(0), l.of(2), l.of(3), l.of(5), l.of(6)], [1, 2, 2, 3, 4]);
    }
}
