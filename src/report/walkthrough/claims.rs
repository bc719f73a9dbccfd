//! The Redlock debate, claim by claim, in the order of the two posts: what each author said
//! (summarised, with at most a short phrase quoted), the catalogue scenarios that put it to the
//! test, and who the runs prove right under which assumption. The verdicts are not written
//! here: the generator runs the scenarios and prints what they give, and refuses a pair whose
//! runs do not show the difference the claim is about.

/// One of the two posts.
pub struct Post {
    pub author: &'static str,
    pub title: &'static str,
    pub date: &'static str,
    pub url: &'static str,
    /// A one-word handle for styling the author's quotes apart.
    pub handle: &'static str,
}

pub const KLEPPMANN: Post = Post {
    author: "Martin Kleppmann",
    title: "How to do distributed locking",
    date: "2016-02-08",
    url: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html",
    handle: "kleppmann",
};

pub const ANTIREZ: Post = Post {
    author: "Salvatore Sanfilippo (antirez)",
    title: "Is Redlock safe?",
    date: "2016-02-09",
    url: "http://antirez.com/news/101",
    handle: "antirez",
};

/// The algorithm both posts argue about.
pub const REDIS_DOCS: &str = "https://redis.io/docs/latest/develop/clients/patterns/distributed-locks/";

/// Two catalogue scenarios (paths under `scenarios/`, without `.toml`): `breaks` violates an
/// invariant that `holds` keeps, and `differs` says what changed between them. A story the
/// catalogue has no remedy for has no `holds`.
pub struct Pair {
    pub breaks: &'static str,
    pub holds: Option<&'static str>,
    pub differs: &'static str,
}

/// One claim of the debate.
pub struct Claim {
    pub title: &'static str,
    pub post: &'static Post,
    /// Where in the post: a section name, or what part of the argument.
    pub part: &'static str,
    pub claim: &'static str,
    pub pairs: &'static [Pair],
    /// Who was right about what, and under which assumption.
    pub judgement: &'static str,
}

pub const CLAIMS: &[Claim] = &[
    Claim {
        title: "A process pause outlives the lease",
        post: &KLEPPMANN,
        part: "section \"Protecting a resource with a lock\"",
        claim: "A lock with a lease cannot by itself protect a resource: a stop-the-world GC pause (or a page \
                fault, or SIGSTOP) can last longer than the lease. The holder wakes still believing it holds \
                the lock and writes after another client has taken it. His remedy is at the storage: a fencing \
                token that the storage checks.",
        pairs: &[Pair {
            breaks: "single-redis/kleppmann-gc-pause",
            holds: Some("single-redis/kleppmann-gc-pause-fenced"),
            differs: "INCR fencing tokens, checked by the resource",
        }],
        judgement: "Kleppmann is right, and antirez does not dispute it: no lock whose lease expires on its own \
                    can stop a client that pauses after its last look at the clock. The client's own check \
                    cannot see a pause that comes after it; only the resource, which sees the late write \
                    arrive, can refuse it. The assumption is the realistic one: pauses have no upper bound \
                    (GC, page faults, a VM descheduled). Where the two differ is the remedy (see the fencing \
                    and check-and-set claims below), not the failure.",
    },
    Claim {
        title: "A delayed packet is a pause by another name",
        post: &KLEPPMANN,
        part: "section \"Protecting a resource with a lock\"",
        claim: "The same failure needs no pause at all: the write can sit in the network for a long time \
                (he cites a GitHub incident in which packets were delayed by about 90 seconds) and reach the \
                storage after the lease is gone and another client has written.",
        pairs: &[Pair {
            breaks: "redlock/delayed-packet",
            holds: Some("redlock/delayed-packet-fenced"),
            differs: "counter tokens and a strictly fenced resource",
        }],
        judgement: "Kleppmann is right. A delay between the client and the resource happens after every timing \
                    check the client can make, so Redlock's elapsed-time check (which covers the trip to the \
                    lock servers) cannot see it. antirez's reply treats it like a pause after acquisition: a \
                    problem of every auto-releasing lock. The runs agree with both on the facts; only a check \
                    at the resource closes the window.",
    },
    Claim {
        title: "Fencing tokens, which Redlock does not issue",
        post: &KLEPPMANN,
        part: "section \"Making the lock safe with fencing\"",
        claim: "The lock service should hand out a number that grows with every grant, and the storage should \
                reject a write carrying a number lower than one it has already accepted. Redlock has no such \
                counter, and its random lock value is unique but not ordered.",
        pairs: &[
            Pair {
                breaks: "redlock/pause-after-acquisition",
                holds: Some("redlock/pause-after-acquisition-fenced"),
                differs: "tokens from a separate counter, checked by the resource",
            },
            Pair {
                breaks: "redlock/pause-after-acquisition-unchecked",
                holds: Some("redlock/pause-after-acquisition-fenced"),
                differs: "the resource compares the tokens it is sent",
            },
        ],
        judgement: "Kleppmann is right about the mechanism: with tokens from a counter and a resource that \
                    checks them, the late write is rejected; with the same tokens unchecked, it is accepted. \
                    Note where the catalogue's tokens come from: a separate counter node that persists every \
                    write, because the five Redlock servers cannot produce one number that only grows. That \
                    counter is itself a single service whose correctness must not depend on timing, which is \
                    Kleppmann's wider point: if you need it, a consensus system is the place to get it.",
    },
    Claim {
        title: "A clock jump on one Redlock server",
        post: &KLEPPMANN,
        part: "section \"Breaking Redlock with bad timings\"",
        claim: "Redlock's safety rests on clocks: client 1 takes the lock on three of five servers (two are \
                unreachable); one of the three has its clock jump forward and expires the key at once; client \
                2 then takes that server and the two it could reach. Both hold a majority.",
        pairs: &[Pair {
            breaks: "redlock/clock-jump",
            holds: Some("redlock/clock-jump-monotonic"),
            differs: "key expiry on the server's monotonic clock instead of its wall clock",
        }],
        judgement: "Kleppmann's execution is real: Redis expires keys by the wall clock, so a step on one server \
                    is enough to give one vote twice. The assumption he attacks is that clocks never step. A \
                    server that expired keys by a monotonic clock would not be moved by the step, as the twin \
                    shows; antirez's answer for the deployed system is operational (see \"Bounded drift, no \
                    jumps\" below).",
    },
    Claim {
        title: "A pause while the grants are in flight",
        post: &KLEPPMANN,
        part: "section \"Breaking Redlock with bad timings\"; answered in antirez's reply",
        claim: "Kleppmann: the client asks all five servers and pauses (GC) while their answers wait in its \
                network buffers; the keys expire and another client takes them; the first one then reads \
                the old answers and believes it holds the lock. antirez: the algorithm already covers this, \
                because after the last reply the client computes the time elapsed since it started and \
                subtracts it from the lease (step 3 of the Redis page), so a pause before that point shows \
                up as a lease already spent.",
        pairs: &[
            Pair {
                breaks: "redlock/pause-after-acquisition",
                holds: Some("redlock/pause-during-acquisition"),
                differs: "the same 12 s pause, placed before the validity computation instead of after the deadline check",
            },
            Pair {
                breaks: "redlock/elapsed-wall-clock-jump",
                holds: Some("redlock/elapsed-monotonic-clock-jump"),
                differs: "the elapsed time measured on the client's monotonic clock instead of its wall clock",
            },
        ],
        judgement: "antirez is right about this example: a pause before the validity computation is counted and \
                    the client gives up. It holds under one more assumption than the post states: the elapsed \
                    time must be measured on a clock that does not step. Clients that take both timestamps \
                    from the wall clock (redlock-py does) gain the step as extra validity and write after their \
                    keys expired. antirez's reply counts a slow network to the lock servers the same way, and \
                    rightly: to the elapsed-time computation a delayed grant and a paused client are both time \
                    gone by (the catalogue tests it with the pause). Kleppmann's underlying point survives: \
                    move the pause past the check and no computation sees it.",
    },
    Claim {
        title: "The random value as a check-and-set",
        post: &ANTIREZ,
        part: "his reply on fencing tokens",
        claim: "A resource able to check tokens hardly needs a lock that guarantees safety; and Redlock's random \
                value can do the job of a token: mark the resource with it when work starts, and apply the \
                read-modify-write only if the mark is still yours. He argues that the order of tokens is not \
                needed for this.",
        pairs: &[
            Pair {
                breaks: "etcd/holder-pause",
                holds: Some("etcd/holder-pause-txn"),
                differs: "the write is a transaction that compares the holder's lock key in the same store",
            },
            Pair {
                breaks: "single-redis/fencing-is-ordering",
                holds: None,
                differs: "no catalogue setting closes it: the resource has not yet heard of the new holder",
            },
        ],
        judgement: "A compare at the resource, atomic with the write, does protect it: the etcd pair shows a \
                    compare on the holder's identity rejecting the late write. But the catalogue has no Redlock \
                    resource that stores the random value, and the argument for order stands: equality can say \
                    \"this is not the current mark\", never \"this mark is older\". A delayed mark from the old \
                    holder overwrites the new holder's, and until the new holder has marked, the old holder's \
                    write passes. The second scenario shows that gap even with ordered tokens: the resource \
                    accepts a late write because it has not heard of the next holder. Kleppmann is right that \
                    a random value cannot order writes; antirez is right that some resources can be protected \
                    without order, when the ownership check and the write are one step where the data lives.",
    },
    Claim {
        title: "Bounded drift, no jumps",
        post: &ANTIREZ,
        part: "his reply on the timing assumptions",
        claim: "Redlock does not need synchronised clocks, only clocks that run at about the same rate: the \
                drift allowance in the validity formula covers a bounded error. Large jumps are an operations \
                error to forbid: no manual setting of the time, and NTP configured to slew rather than step.",
        pairs: &[Pair {
            breaks: "redlock/unbounded-drift",
            holds: Some("redlock/bounded-drift"),
            differs: "server-2's clock runs 0.5 % fast, within the 1 % + 2 ms allowance, instead of 20 %",
        }],
        judgement: "Within his assumption antirez is right: a clock that drifts within the allowance (a slew is \
                    such a drift) never hands the lock out twice, and one that drifts beyond it, or steps (the \
                    clock-jump claim above), does. ntpd slews a clock by at most 500 ppm, a tenth of the drift \
                    bounded-drift survives. Kleppmann's objection is to the assumption itself: safety \
                    that depends on operators never stepping a clock is safety under a synchronous model, and \
                    a lock used for correctness should not need it. Both are right about different models; \
                    the runs show exactly where the line is.",
    },
    Claim {
        title: "Persistence and delayed restarts",
        post: &ANTIREZ,
        part: "the Redis page he wrote, section \"Performance, crash recovery and fsync\" (the algorithm as his reply defends it)",
        claim: "A Redlock server that restarts without the key it granted can give its vote a second time. The \
                remedies are persistence with fsync on every write, or, without it, a delayed restart: keep \
                the restarted server out for longer than the longest lease, so every lock it forgot has \
                expired. The Redis page adds that Redis's default, fsync once a second, can lose the key \
                in a power loss.",
        pairs: &[
            Pair {
                breaks: "redlock/crash-restart-empty",
                holds: Some("redlock/crash-delayed-restart"),
                differs: "the restarted server stays unavailable for 15 s, more than the 10 s TTL",
            },
            Pair {
                breaks: "redlock/crash-persistence-everysec",
                holds: Some("redlock/crash-persistence-always"),
                differs: "appendfsync always instead of everysec",
            },
        ],
        judgement: "antirez and the Redis page are right, and the catalogue shows it: both remedies keep a second \
                    majority from forming, and the default policy loses the key written just before a power \
                    loss. The delayed restart, though, is one more timing assumption (the restart delay is \
                    measured by a clock and must exceed every lease), which is the kind of dependency Kleppmann \
                    objects to; fsync on every write has none, at the cost of a disk write per grant.",
    },
];
