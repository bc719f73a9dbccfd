//! An observation's members written into its trace line in key order straight from serde:
//! each field's value is serialized by `serde_json` alone and the fields are sorted by their
//! names, so the observation's object is never written whole and then parsed back to be
//! sorted. An observation that does not serialize as a struct (a map, a newtype...) answers
//! [`NotAStruct`] and goes the general way, through [`super::sorted::write_sorted`].

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible, SerializeStruct};

use super::sorted::write_sorted;
use crate::escape::push_escaped;

/// Appends `o`'s members to `line`, each as `,"key":value`, keys sorted (a repeated key keeps
/// its last value, as a map does) and every nested object's keys sorted too — the bytes the
/// general path writes. `scratch` holds the values meanwhile.
pub(super) fn write_fields<O: Serialize>(o: &O, line: &mut String, scratch: &mut Vec<u8>) -> Result<(), NotAStruct> {
    scratch.clear();
    let mut fields = Fields {
        scratch,
        members: [("", 0, 0); MEMBERS],
        n: 0,
    };
    o.serialize(&mut fields)?;
    let Fields { scratch, members, n } = fields;
    let values = std::str::from_utf8(scratch).expect("serde_json writes UTF-8");
    let mut members = members;
    let members = &mut members[..n];
    // Stable: of equal keys, the last one written is the last one kept.
    members.sort_by(|x, y| x.0.cmp(y.0));
    for (i, &(key, start, end)) in members.iter().enumerate() {
        if members.get(i + 1).is_some_and(|next| next.0 == key) {
            continue;
        }
        line.push_str(",\"");
        push_escaped(line, key);
        line.push_str("\":");
        let value = &values[start..end];
        if value.starts_with(['{', '[']) {
            write_sorted(value, 0, line);
        } else {
            line.push_str(value);
        }
    }
    Ok(())
}

/// Fields a struct may have on this path; one with more goes the general way.
const MEMBERS: usize = 24;

/// Collects a struct's fields: each name, and where its value lies in `scratch`.
struct Fields<'a> {
    scratch: &'a mut Vec<u8>,
    /// Each field's name, and the start and end of its value.
    members: [(&'static str, usize, usize); MEMBERS],
    n: usize,
}

/// The observation is not a struct of at most [`MEMBERS`] fields.
#[derive(Debug)]
pub(super) struct NotAStruct;

impl fmt::Display for NotAStruct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a struct")
    }
}

impl std::error::Error for NotAStruct {}

impl ser::Error for NotAStruct {
    fn custom<T: fmt::Display>(_: T) -> Self {
        NotAStruct
    }
}

impl SerializeStruct for &mut Fields<'_> {
    type Ok = ();
    type Error = NotAStruct;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), NotAStruct> {
        if self.n == MEMBERS {
            return Err(NotAStruct);
        }
        let start = self.scratch.len();
        value
            .serialize(&mut serde_json::Serializer::new(&mut *self.scratch))
            .map_err(|_| NotAStruct)?;
        self.members[self.n] = (key, start, self.scratch.len());
        self.n += 1;
        Ok(())
    }

    fn end(self) -> Result<(), NotAStruct> {
        Ok(())
    }
}

/// Every form but a struct is refused.
macro_rules! refuse {
    ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ret, NotAStruct> {
            Err(NotAStruct)
        })*
    };
}

impl<'a, 'b> ser::Serializer for &'a mut Fields<'b> {
    type Ok = ();
    type Error = NotAStruct;
    type SerializeSeq = Impossible<(), NotAStruct>;
    type SerializeTuple = Impossible<(), NotAStruct>;
    type SerializeTupleStruct = Impossible<(), NotAStruct>;
    type SerializeTupleVariant = Impossible<(), NotAStruct>;
    type SerializeMap = Impossible<(), NotAStruct>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), NotAStruct>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, NotAStruct> {
        Ok(self)
    }

    refuse! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), NotAStruct> {
        Err(NotAStruct)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<(), NotAStruct> {
        Err(NotAStruct)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotAStruct> {
        Err(NotAStruct)
    }
}
