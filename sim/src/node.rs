//! The protocol-facing API: a node is a pure state machine that reacts to start, a message or
//! a timer through a [`Ctx`] that offers only what a real process has — its *local* clocks,
//! `send`, timers, its own random stream and `record` (an observation for the history).
//! Everything it does is returned as data ([`Effect`]s) and applied by the engine afterwards,
//! which is what lets a fault land *between* two effects of one step (DESIGN section 3).

use std::fmt;

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::ids::{Names, NodeId};
use crate::members::Members;

/// A node's timer name. Setting a timer with a tag replaces any pending timer with that tag.
pub type TimerTag = u32;

/// Messages are plain values; `Display` is what the trace and timeline show as the payload.
pub trait Message: Clone + fmt::Debug + fmt::Display {}
impl<T: Clone + fmt::Debug + fmt::Display> Message for T {}

/// What a node records about itself for the history: the events faults trigger `after`, the
/// facts checkers read (each family of checkers through a trait of its own, beside them) and
/// the lines the timeline prints.
pub trait Observation: Clone + fmt::Debug + Serialize {
    /// The event name a fault's `after` refers to, e.g. `acquired`.
    fn kind(&self) -> &'static str;
    /// One line for the timeline.
    fn describe(&self, names: &Names) -> String;
    /// Appends [`Observation::describe`]'s line to `out`. A model with many facts may write it
    /// in place, without a `String` per fact, for its trace lines; it must write the same text.
    fn describe_into(&self, names: &Names, out: &mut String) {
        out.push_str(&self.describe(names));
    }
    /// Writes this fact's members into its trace line through `m`, as the line has them from
    /// its `Serialize` (keys sorted, nested ones too; each value as `serde_json` writes it),
    /// and says it did; `false` (the default, having written nothing) leaves them to serde. A
    /// model with many facts writes them by hand: serde's way costs several times more.
    fn write_members(&self, _: &mut Members<'_>) -> bool {
        false
    }
    /// Whether this fact's [`Observation::kind`] and [`Observation::describe`] line hold no
    /// character a JSON string escapes (`"`, `\`, a control character) whenever the node names
    /// in them hold none: true of a fact made of its model's own literals, numbers and node
    /// names. A trace line then copies the kind and writes the line as they are, where it
    /// would scan both for escapes (~150 instructions a fact, a third of many runs' lines).
    /// `false` (the default) has them scanned; a fact carrying a text from elsewhere says
    /// `false`. Debug builds (tests) check a `true`.
    fn plain_text(&self) -> bool {
        false
    }
    /// Writes this fact's trace line past its stamp into `out` and returns the fact's
    /// [`Observation::salience`], which the line holds: `,"kind":…`,
    /// its members, `"salience":…` and `"text":"` with the text, escaped, up to (not
    /// including) the text's closing quote — what the line writer would write from
    /// [`Observation::kind`], [`Observation::write_members`], [`Observation::salience`] and
    /// [`Observation::describe_into`], byte for byte. `None` (the default, having written
    /// nothing) leaves the line to the writer. For a fact so frequent that its line's pieces
    /// are worth fusing (an ID generator's issued ID, half such a run's lines): each piece the
    /// writer adds on its own is a capacity check and a copy. Debug builds (tests) write the
    /// line the writer's way too and check the two agree.
    fn write_line_after_stamp(&self, _: &Names, _: &mut String) -> Option<Salience> {
        None
    }
    /// How much a reader of the timeline needs it.
    fn salience(&self) -> Salience {
        Salience::Routine
    }
}

/// How much a timeline reader needs an event. A long run shows every salient event, the
/// routine ones around them, and folds the rest; chatter (messages, timers, retries) shows only
/// in the full listing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Salience {
    Chatter,
    Routine,
    /// Faults, violations, rejections, losses, expiries: the story.
    Salient,
}

/// A protocol role. All nodes of one world share a message and observation type.
pub trait Node {
    type Msg: Message;
    type Obs: Observation;

    /// The process starts, at time 0 or when it restarts after a crash.
    fn on_start(&mut self, ctx: &mut Ctx<'_, Self::Msg, Self::Obs>);
    fn on_msg(&mut self, ctx: &mut Ctx<'_, Self::Msg, Self::Obs>, from: NodeId, msg: Self::Msg);
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self::Msg, Self::Obs>, tag: TimerTag);
    /// The process died: drop whatever its persistence policy does not keep. Only `record`s
    /// made here reach the history (a dead process sends nothing); `on_start` follows on
    /// restart.
    fn on_crash(&mut self, ctx: &mut Ctx<'_, Self::Msg, Self::Obs>);
    /// The wall clock was stepped. Servers whose expiry follows the wall clock react here.
    fn on_clock_jump(&mut self, _ctx: &mut Ctx<'_, Self::Msg, Self::Obs>) {}
    /// The operator's failover tool replaces `primary` by its replica. Every running node hears
    /// it; the replica promotes itself and tells the others through the network, so a node that
    /// cannot be reached keeps its old view.
    fn on_failover(&mut self, _ctx: &mut Ctx<'_, Self::Msg, Self::Obs>, _primary: NodeId) {}
}

/// One thing a node asked for in a step, applied by the engine in order.
#[derive(Clone, Debug)]
pub enum Effect<M, O> {
    Send { to: NodeId, msg: M },
    SetTimer { tag: TimerTag, after_ns: u64 },
    CancelTimer { tag: TimerTag },
    Record(O),
}

/// A node's view of the world during one step.
pub struct Ctx<'a, M, O> {
    me: NodeId,
    wall_ns: i64,
    mono_ns: u64,
    rng: &'a mut ChaCha8Rng,
    out: &'a mut Vec<Effect<M, O>>,
}

impl<'a, M, O> Ctx<'a, M, O> {
    /// Used by drivers (the engine, or a second front-end that produces the same history).
    pub fn new(
        me: NodeId,
        wall_ns: i64,
        mono_ns: u64,
        rng: &'a mut ChaCha8Rng,
        out: &'a mut Vec<Effect<M, O>>,
    ) -> Self {
        Ctx {
            me,
            wall_ns,
            mono_ns,
            rng,
            out,
        }
    }

    pub fn me(&self) -> NodeId {
        self.me
    }

    /// The local wall clock (what `gettimeofday` says).
    pub fn wall_ns(&self) -> i64 {
        self.wall_ns
    }

    /// The local monotonic clock (`CLOCK_MONOTONIC`).
    pub fn mono_ns(&self) -> u64 {
        self.mono_ns
    }

    /// This node's own random stream.
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        self.rng
    }

    pub fn send(&mut self, to: NodeId, msg: M) {
        self.out.push(Effect::Send { to, msg });
    }

    /// Fires `tag` after `after_ns` of this node's monotonic time. Tags index a small table,
    /// so a node uses a handful of fixed tags, not one per request.
    pub fn set_timer(&mut self, tag: TimerTag, after_ns: u64) {
        self.out.push(Effect::SetTimer { tag, after_ns });
    }

    pub fn cancel_timer(&mut self, tag: TimerTag) {
        self.out.push(Effect::CancelTimer { tag });
    }

    pub fn record(&mut self, obs: O) {
        self.out.push(Effect::Record(obs));
    }
}
