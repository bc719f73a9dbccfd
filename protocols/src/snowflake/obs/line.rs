//! An issued ID's trace line past its stamp, written whole
//! ([`locksim_sim::Observation::write_line_after_stamp`]): half a Snowflake run's lines are an
//! `id_issued`, and written piece by piece by the line writer — its kind, each member, its
//! salience, its text spelled apart and copied in — the line cost more than its ID's share of
//! the run. Here every constant stretch between two values is one piece, from the kind's key
//! through the first value, and from the last member through the text's first words. The
//! bytes are the line writer's: debug builds (every test) write the line its way too and
//! compare.

use locksim_sim::Salience;
use locksim_sim::pieces::{Piece, push_short, push_uint};

use super::IssueNote;
use super::describe::issue_note;
use crate::ids::{SmallUint, Spelled};
use crate::snowflake::id::SnowflakeId;

/// Appends the `id_issued` line past its stamp, up to its text's closing quote.
#[inline(always)]
pub(super) fn issued(out: &mut String, id: u64, ms: u64, node_id: u16, seq: u16, note: IssueNote, salience: Salience) {
    out.push_str(",\"kind\":\"id_issued\",\"event\":\"id_issued\",\"id\":");
    push_short(out, itoa::Buffer::new().format(id));
    out.push_str(",\"ms\":");
    push_uint(out, ms);
    out.push_str(",\"node_id\":");
    SmallUint(node_id).push_to(out);
    // The note's member, key and object, and the next key: a constant each but `Behind`'s.
    macro_rules! unit {
        ($kind:literal) => {
            out.push_str(concat!(",\"note\":{\"kind\":\"", $kind, "\"},\"seq\":"))
        };
    }
    match note {
        IssueNote::Plain => unit!("plain"),
        IssueNote::First => unit!("first"),
        IssueNote::AfterWait => unit!("after_wait"),
        IssueNote::AfterRefusing => unit!("after_refusing"),
        IssueNote::WithNewNodeId => unit!("with_new_node_id"),
        IssueNote::LastOfMs => unit!("last_of_ms"),
        IssueNote::Wrapped => unit!("wrapped"),
        IssueNote::Behind { last_ms } => {
            out.push_str(",\"note\":{\"kind\":\"behind\",\"last_ms\":");
            push_uint(out, last_ms);
            out.push_str("},\"seq\":");
        }
    }
    SmallUint(seq).push_to(out);
    macro_rules! opening {
        ($salience:literal) => {
            out.push_str(concat!(
                ",\"salience\":\"",
                $salience,
                "\",\"text\":\"issues ID 0x"
            ))
        };
    }
    match salience {
        Salience::Chatter => opening!("chatter"),
        Salience::Routine => opening!("routine"),
        Salience::Salient => opening!("salient"),
    }
    let mut text = Spelled::<64>::default();
    SnowflakeId { ms, node: node_id, seq }.spell_after_0x(id, &mut text);
    text.push_to(out);
    if note != IssueNote::Plain {
        // A call, for the one line in thousands that has a note.
        issue_note(out, note, ms, node_id);
    }
}
