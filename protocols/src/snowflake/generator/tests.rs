//! The generator driven step by step, without a world: what it records and which timers it
//! sets, to the nanosecond.

use locksim_sim::rng::stream;
use locksim_sim::{Ctx, Effect};

use super::*;
use crate::snowflake::msg::Msg;

fn cfg() -> GeneratorConfig {
    GeneratorConfig {
        rate_per_ms: 0,
        burst: 5000,
        burst_at_ns: 0,
        epoch_ns: 0,
        rollback: Rollback::Reject,
        overflow: Overflow::Wait,
        persist_last_ms: false,
        start_stagger_ns: 0,
    }
}

/// Runs one step of `g` at wall (= monotonic) time `now_ns`; returns what it asked for.
fn step(g: &mut Generator, now_ns: u64, f: impl FnOnce(&mut Generator, &mut IdCtx<'_>)) -> Vec<Effect<Msg, IdObs>> {
    let mut rng = stream(0, "test");
    let mut out = Vec::new();
    let mut ctx = Ctx::new(NodeId(3), now_ns as i64, now_ns, &mut rng, &mut out);
    f(g, &mut ctx);
    out
}

fn ids(effects: &[Effect<Msg, IdObs>]) -> Vec<SnowflakeId> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Record(IdObs::IdIssued { id, .. }) => Some(SnowflakeId::decode(*id)),
            _ => None,
        })
        .collect()
}

/// The layout through the generator itself: a burst of 5000 in the middle of ms 10 gets
/// 4096 IDs in ms 10, then a wait timer to the very start of ms 11, where the rest go.
#[test]
fn a_burst_fills_its_millisecond_then_waits_exactly_until_the_next() {
    let mut g = Generator::new(cfg(), 3, NodeIds::Static);
    let now_ns = 10 * NS_PER_MS + 250_000;
    let effects = step(&mut g, now_ns, |g, ctx| g.on_timer(ctx, START));
    let first = ids(&effects);
    assert_eq!(first.len(), 4096);
    assert!(first.iter().all(|i| i.ms == 10 && i.node == 3));
    assert!(first.windows(2).all(|w| w[0].encode() < w[1].encode()));
    let waits: Vec<&Effect<Msg, IdObs>> = effects
        .iter()
        .filter(|e| {
            matches!(
                e,
                Effect::Record(IdObs::IdWaiting { .. }) | Effect::SetTimer { tag: WAIT, .. }
            )
        })
        .collect();
    assert!(matches!(
        waits[..],
        [
            Effect::Record(IdObs::IdWaiting {
                why: Blocked::SequenceExhausted { ms: 10 },
                wait_ns: 750_000,
                requests: 904
            }),
            Effect::SetTimer {
                tag: WAIT,
                after_ns: 750_000
            }
        ]
    ));
    // A tick still inside ms 10 issues nothing.
    assert!(ids(&step(&mut g, 10 * NS_PER_MS + 900_000, |g, ctx| g.on_timer(ctx, TICK))).is_empty());
    let rest = ids(&step(&mut g, 11 * NS_PER_MS, |g, ctx| g.on_timer(ctx, WAIT)));
    assert_eq!(rest.len(), 904);
    assert_eq!(
        rest[0],
        SnowflakeId {
            ms: 11,
            node: 3,
            seq: 0
        }
    );
}

#[test]
fn a_crash_keeps_the_last_ms_only_when_persisted() {
    for persist_last_ms in [false, true] {
        let mut g = Generator::new(
            GeneratorConfig {
                persist_last_ms,
                rollback: Rollback::Reject,
                ..cfg()
            },
            0,
            NodeIds::Static,
        );
        step(&mut g, 0, |g, ctx| g.on_start(ctx));
        step(&mut g, 500 * NS_PER_MS, |g, ctx| g.on_timer(ctx, START));
        g.on_crash();
        step(&mut g, 600 * NS_PER_MS, |g, ctx| g.on_start(ctx));
        g.backlog = 1;
        let effects = step(&mut g, 400 * NS_PER_MS, |g, ctx| g.on_timer(ctx, START));
        let refused = effects
            .iter()
            .any(|e| matches!(e, Effect::Record(IdObs::IdRefused { .. })));
        assert_eq!(refused, persist_last_ms, "persist_last_ms = {persist_last_ms}");
        assert_eq!(ids(&effects).len(), usize::from(!persist_last_ms));
    }
}

/// `epoch_ms` moves millisecond 0: with the epoch at wall 4 ms, wall 10.25 ms is ID ms 6, the
/// exhausted ms waits until wall 11 ms (ID ms 7), and a wall clock before the epoch is refused.
#[test]
fn the_epoch_is_subtracted_from_the_wall_clock() {
    let epoched = GeneratorConfig {
        epoch_ns: 4 * NS_PER_MS as i64,
        ..cfg()
    };
    let mut g = Generator::new(epoched, 3, NodeIds::Static);
    let effects = step(&mut g, 10 * NS_PER_MS + 250_000, |g, ctx| g.on_timer(ctx, START));
    let first = ids(&effects);
    assert_eq!(first.len(), 4096);
    assert!(first.iter().all(|i| i.ms == 6 && i.node == 3));
    assert_eq!(first[0].encode() >> 22, 6, "the 41-bit field holds ms since the epoch");
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Record(IdObs::IdWaiting {
            why: Blocked::SequenceExhausted { ms: 6 },
            wait_ns: 750_000,
            ..
        })
    )));
    let rest = ids(&step(&mut g, 11 * NS_PER_MS, |g, ctx| g.on_timer(ctx, WAIT)));
    assert_eq!(rest.len(), 904);
    assert!(rest.iter().all(|i| i.ms == 7));

    let mut early = Generator::new(epoched, 0, NodeIds::Static);
    let effects = step(&mut early, 3 * NS_PER_MS, |g, ctx| g.on_timer(ctx, START));
    assert!(ids(&effects).is_empty());
    assert!(effects.iter().any(|e| matches!(
        e,
        Effect::Record(IdObs::IdRefused {
            why: Blocked::BeforeEpoch { wall_ms: -1 },
            requests: 5000
        })
    )));
}
