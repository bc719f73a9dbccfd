//! Conformance of the ZooKeeper model's data tree (`locksim_protocols::zookeeper::tree::Tree`)
//! and its session timeout negotiation against a real standalone ZooKeeper 3.8 (issue 14,
//! point 4).
//!
//! Each case is a named list of steps, each by one session. For every case the test starts a
//! fresh, private server (`java` with Debian's jar, a generated `zoo.cfg`: a free loopback
//! port, a temporary `dataDir`, `tickTime` 500 ms, no admin server — a fresh one because zxids
//! and sequence numbers never reset), runs each step against it and against a fresh model
//! `Tree` (epoch 0, as a standalone server's), and compares:
//! - the step's outcome: the created path (with its sequence number) and stat, the error code
//!   (`NoNode`, `NodeExists`, `NotEmpty`, `NoChildrenForEphemerals`), `exists`' stat, the
//!   children, the negotiated session timeout, whether a resumed session is live;
//! - the watch notifications every session received because of the step (type and path), so
//!   an `exists` or `getChildren` watch is seen to fire once and only once;
//! - after every step, every node under `/locks` with its `czxid`, `mzxid`, `pzxid`,
//!   `cversion`, ephemeral owner, child count and data length — so every transaction, a failed
//!   one and a session's creation or expiry too, is seen to take its zxid.
//!
//! Session expiry is compared for real: an `expire` step stops using that session (its socket
//! stays open, it sends no ping), waits until the server has deleted its ephemeral nodes,
//! checks that this took at least the negotiated timeout and at most the timeout plus two
//! ticks (and a second of slack for a loaded machine), then closes it in the model.
//!
//! Without `java` and Debian's `/usr/share/java/zookeeper.jar` the test says it is skipped and
//! passes — unless `LOCKSIM_REQUIRE_ZOOKEEPER` is set (and not `0`), as `.ci/run` does.

mod zk_wire;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use locksim_protocols::zookeeper::server::negotiated_timeout_ns;
use locksim_protocols::zookeeper::tree::{CreateMode, EventType, Fired, Stat, Tree, ZkError};
use zk_wire::{Conn, TICK_MS, ZkServer};

// ---------------------------------------------------------------------------------------------
// The cases.

#[derive(Clone, Debug)]
enum Action {
    /// A new session asking for this timeout.
    Open(i32),
    Create(&'static str, CreateMode),
    Delete(&'static str),
    Exists(&'static str, bool),
    Children(&'static str, bool),
    /// The session stops pinging until the server expires it.
    Expire,
    /// Connect again with the session's id and password.
    Resume,
}

struct Step {
    who: &'static str,
    action: Action,
}

struct Case {
    name: &'static str,
    steps: Vec<Step>,
}

fn by(who: &'static str, action: Action) -> Step {
    Step { who, action }
}

use Action::*;
use CreateMode::{Ephemeral, EphemeralSequential, Persistent, PersistentSequential};

/// The lock path, made by the observer `o` (whose session is the first transaction).
fn setup() -> Vec<Step> {
    vec![
        by("o", Open(10_000)),
        by("o", Create("/locks", Persistent)),
        by("o", Create("/locks/l", Persistent)),
    ]
}

fn cases() -> Vec<Case> {
    let mut numbering = setup();
    numbering.extend([
        by("a", Open(10_000)),
        by("b", Open(10_000)),
        by("a", Create("/locks/l/lock-", EphemeralSequential)),
        by("b", Create("/locks/l/lock-", EphemeralSequential)),
        by("a", Create("/locks/l/lock-", EphemeralSequential)),
        by("o", Create("/locks", Persistent)),
        by("a", Delete("/locks/l/lock-0000000000")),
        by("b", Create("/locks/l/lock-", EphemeralSequential)),
        by("o", Create("/locks/l/x-", PersistentSequential)),
        by("o", Delete("/locks/l")),
        by("o", Delete("/locks/missing")),
        by("a", Create("/locks/l/lock-0000000001/child", Persistent)),
        by("a", Create("/nowhere/x", Persistent)),
        by("o", Children("/locks/l", false)),
        by("o", Exists("/locks/l/lock-0000000001", false)),
        by("o", Exists("/locks/l/lock-0000000000", false)),
    ]);
    let mut watches = setup();
    watches.extend([
        by("a", Open(10_000)),
        by("b", Open(10_000)),
        by("b", Exists("/locks/l/n", true)),
        by("a", Create("/locks/l/n", Ephemeral)),
        by("b", Exists("/locks/l/n", true)),
        by("a", Delete("/locks/l/n")),
        by("a", Create("/locks/l/n", Ephemeral)),
        by("a", Delete("/locks/l/n")),
        by("b", Children("/locks/l", true)),
        by("a", Create("/locks/l/m", Persistent)),
        by("a", Create("/locks/l/k", Persistent)),
        by("b", Exists("/locks/l/m", true)),
        by("b", Children("/locks/l", true)),
        by("o", Children("/locks/l/m", true)),
        by("a", Delete("/locks/l/m")),
        by("a", Delete("/locks/l/k")),
    ]);
    let mut expiry = setup();
    expiry.extend([
        by("a", Open(1_000)),
        by("a", Create("/locks/l/lock-", EphemeralSequential)),
        by("b", Open(10_000)),
        by("b", Create("/locks/l/lock-", EphemeralSequential)),
        by("b", Exists("/locks/l/lock-0000000000", true)),
        by("o", Children("/locks/l", true)),
        by("a", Expire),
        by("a", Resume),
        by("b", Create("/locks/l/lock-", EphemeralSequential)),
        by("d", Open(100_000)),
        by("e", Open(100)),
        by("e", Create("/locks/l/lock-", EphemeralSequential)),
        by("e", Expire),
        by("o", Children("/locks/l", false)),
    ]);
    let mut recipe = setup();
    recipe.extend([
        by("a", Open(10_000)),
        by("b", Open(10_000)),
        by("c", Open(10_000)),
        by("a", Create("/locks/l/lock-", EphemeralSequential)),
        by("b", Create("/locks/l/lock-", EphemeralSequential)),
        by("c", Create("/locks/l/lock-", EphemeralSequential)),
        by("a", Children("/locks/l", false)),
        by("b", Exists("/locks/l/lock-0000000000", true)),
        by("c", Exists("/locks/l/lock-0000000001", true)),
        by("a", Delete("/locks/l/lock-0000000000")),
        by("b", Children("/locks/l", false)),
        by("b", Delete("/locks/l/lock-0000000001")),
        by("c", Children("/locks/l", false)),
        by("c", Delete("/locks/l/lock-0000000002")),
    ]);
    vec![
        Case {
            name: "sequence numbers, errors and zxids",
            steps: numbering,
        },
        Case {
            name: "watches fire once",
            steps: watches,
        },
        Case {
            name: "session expiry deletes ephemeral nodes",
            steps: expiry,
        },
        Case {
            name: "the lock recipe's hand-over",
            steps: recipe,
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// Outcomes, as both sides give them.

/// The stat fields both sides have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fields {
    czxid: i64,
    mzxid: i64,
    pzxid: i64,
    cversion: i32,
    owner: i64,
    children: i32,
    data: i32,
}

fn model_fields(s: Stat) -> Fields {
    Fields {
        czxid: s.czxid as i64,
        mzxid: s.mzxid as i64,
        pzxid: s.pzxid as i64,
        cversion: s.cversion,
        owner: s.ephemeral_owner as i64,
        children: s.num_children,
        data: s.data_length,
    }
}

fn real_fields(s: zk_wire::Stat) -> Fields {
    Fields {
        czxid: s.czxid,
        mzxid: s.mzxid,
        pzxid: s.pzxid,
        cversion: s.cversion,
        owner: s.ephemeral_owner,
        children: s.num_children,
        data: s.data_length,
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Opened { timeout_ms: i32 },
    Created(String, Fields),
    Error(i32),
    Done,
    Stat(Option<Fields>),
    Children(Vec<String>),
    Expired,
    Live(bool),
}

fn code(e: ZkError) -> i32 {
    match e {
        ZkError::NoNode => -101,
        ZkError::NodeExists => -110,
        ZkError::NotEmpty => -111,
        ZkError::NoChildrenForEphemerals => -108,
        ZkError::SessionExpired => -112,
    }
}

fn flags(mode: CreateMode) -> i32 {
    match mode {
        Persistent => 0,
        Ephemeral => 1,
        PersistentSequential => 2,
        EphemeralSequential => 3,
    }
}

fn event_number(kind: EventType) -> i32 {
    match kind {
        EventType::NodeCreated => 1,
        EventType::NodeDeleted => 2,
        EventType::NodeChildrenChanged => 4,
    }
}

/// One session on both sides.
struct Session {
    conn: Option<Conn>,
    id: u64,
    passwd: Vec<u8>,
    timeout_ms: i32,
    last_used: Instant,
}

struct Run {
    server: ZkServer,
    tree: Tree,
    sessions: BTreeMap<&'static str, Session>,
}

impl Run {
    fn conn(&mut self, who: &str) -> Result<&mut Conn, String> {
        let s = self
            .sessions
            .get_mut(who)
            .ok_or_else(|| format!("no session {who:?} opened"))?;
        s.last_used = Instant::now();
        s.conn.as_mut().ok_or_else(|| format!("session {who:?} is closed"))
    }

    fn id(&self, who: &str) -> u64 {
        self.sessions[who].id
    }

    /// Runs a step on both sides: (the model's outcome, the server's, the model's firings).
    fn step(&mut self, step: &Step) -> Result<(Outcome, Outcome, Vec<Fired>), String> {
        let who = step.who;
        Ok(match &step.action {
            Open(asked_ms) => {
                let conn = Conn::open(self.server.port, *asked_ms, None)?;
                let model_ms = negotiated_timeout_ns(*asked_ms as u64 * 1_000_000, TICK_MS * 1_000_000) / 1_000_000;
                let id = conn.session as u64;
                self.tree.create_session(id);
                let real = Outcome::Opened {
                    timeout_ms: conn.timeout_ms,
                };
                let session = Session {
                    id,
                    passwd: conn.passwd.clone(),
                    timeout_ms: conn.timeout_ms,
                    conn: Some(conn),
                    last_used: Instant::now(),
                };
                self.sessions.insert(who, session);
                let model = Outcome::Opened {
                    timeout_ms: model_ms as i32,
                };
                (model, real, Vec::new())
            }
            Create(path, mode) => {
                let id = self.id(who);
                let real = match self.conn(who)?.create(path, b"", flags(*mode))? {
                    Ok((p, s)) => Outcome::Created(p, real_fields(s)),
                    Err(e) => Outcome::Error(e),
                };
                match self.tree.create(path, b"", *mode, id) {
                    Ok((p, s, fired)) => (Outcome::Created(p, model_fields(s)), real, fired),
                    Err(e) => (Outcome::Error(code(e)), real, Vec::new()),
                }
            }
            Delete(path) => {
                let real = match self.conn(who)?.delete(path)? {
                    0 => Outcome::Done,
                    e => Outcome::Error(e),
                };
                match self.tree.delete(path) {
                    Ok(fired) => (Outcome::Done, real, fired),
                    Err(e) => (Outcome::Error(code(e)), real, Vec::new()),
                }
            }
            Exists(path, watch) => {
                let id = self.id(who);
                let real = Outcome::Stat(self.conn(who)?.exists(path, *watch)?.map(real_fields));
                let model = self.tree.exists(path, watch.then_some(id)).map(model_fields);
                (Outcome::Stat(model), real, Vec::new())
            }
            Children(path, watch) => {
                let id = self.id(who);
                let real = match self.conn(who)?.children(path, *watch)? {
                    Ok(names) => Outcome::Children(names),
                    Err(e) => Outcome::Error(e),
                };
                let model = match self.tree.children(path, watch.then_some(id)) {
                    Ok(names) => Outcome::Children(names),
                    Err(e) => Outcome::Error(code(e)),
                };
                (model, real, Vec::new())
            }
            Expire => {
                self.await_expiry(who)?;
                let (_, _, fired) = self.tree.close_session(self.id(who));
                (Outcome::Expired, Outcome::Expired, fired)
            }
            Resume => {
                let s = &self.sessions[who];
                let conn = Conn::open(self.server.port, s.timeout_ms, Some((s.id as i64, &s.passwd)))?;
                let live = conn.timeout_ms > 0;
                (Outcome::Live(self.tree.is_live(s.id)), Outcome::Live(live), Vec::new())
            }
        })
    }

    /// Leaves `who` silent (the others keep pinging) until the server has deleted its
    /// ephemeral nodes, and checks how long that took against its timeout.
    fn await_expiry(&mut self, who: &str) -> Result<(), String> {
        let id = self.id(who);
        let mine: Vec<String> = self
            .tree
            .dump()
            .into_iter()
            .filter(|(_, s)| s.ephemeral_owner == id)
            .map(|(p, _)| p)
            .collect();
        if mine.is_empty() {
            return Err(format!("session {who:?} has no ephemeral node to watch go"));
        }
        let (since, timeout_ms) = (self.sessions[who].last_used, self.sessions[who].timeout_ms);
        let limit = Duration::from_millis(timeout_ms as u64 + 2 * TICK_MS + 1_000);
        loop {
            for (name, s) in self.sessions.iter_mut() {
                if *name != who
                    && let Some(c) = s.conn.as_mut()
                {
                    c.ping()?;
                    s.last_used = Instant::now();
                }
            }
            let observer = self
                .sessions
                .get_mut("o")
                .and_then(|s| s.conn.as_mut())
                .ok_or("no observer")?;
            let mut gone = true;
            for path in &mine {
                gone &= observer.exists(path, false)?.is_none();
            }
            let took = since.elapsed();
            if gone {
                if took < Duration::from_millis(timeout_ms as u64) {
                    return Err(format!("expired after {took:?}, before its {timeout_ms} ms timeout"));
                }
                if let Some(s) = self.sessions.get_mut(who) {
                    s.conn = None;
                }
                return Ok(());
            }
            if took > limit {
                return Err(format!(
                    "not expired {took:?} after its last message (timeout {timeout_ms} ms)"
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The notifications every live session received, as (session, type, path), sorted.
    fn notifications(&mut self) -> Result<Vec<(String, i32, String)>, String> {
        std::thread::sleep(Duration::from_millis(100));
        let mut got = Vec::new();
        for (name, s) in self.sessions.iter_mut() {
            if let Some(c) = s.conn.as_mut() {
                for n in c.drain(Duration::from_millis(10))? {
                    got.push((name.to_string(), n.kind, n.path));
                }
            }
        }
        got.sort();
        Ok(got)
    }

    fn model_notifications(&self, fired: &[Fired]) -> Vec<(String, i32, String)> {
        let mut want: Vec<(String, i32, String)> = fired
            .iter()
            .filter_map(|f| {
                let (name, s) = self.sessions.iter().find(|(_, s)| s.id == f.watcher)?;
                s.conn.as_ref()?;
                Some((name.to_string(), event_number(f.kind), f.path.clone()))
            })
            .collect();
        want.sort();
        want
    }

    /// Every node under `/locks`, with its fields, read through the observer.
    fn real_tree(&mut self) -> Result<Vec<(String, Fields)>, String> {
        let o = self
            .sessions
            .get_mut("o")
            .and_then(|s| s.conn.as_mut())
            .ok_or("no observer")?;
        let mut out = Vec::new();
        let mut todo = vec!["/locks".to_string()];
        while let Some(path) = todo.pop() {
            let Some(stat) = o.exists(&path, false)? else { continue };
            out.push((path.clone(), real_fields(stat)));
            if let Ok(names) = o.children(&path, false)? {
                todo.extend(names.into_iter().map(|n| format!("{path}/{n}")));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn model_tree(&self) -> Vec<(String, Fields)> {
        self.tree
            .dump()
            .into_iter()
            .filter(|(p, _)| p == "/locks" || p.starts_with("/locks/"))
            .map(|(p, s)| (p, model_fields(s)))
            .collect()
    }
}

fn run_case(java: &Path, n: usize, case: &Case) -> Result<(), String> {
    let server = ZkServer::start(java, &n.to_string()).map_err(|e| format!("case {:?}: {e}", case.name))?;
    let mut run = Run {
        server,
        tree: Tree::new(0),
        sessions: BTreeMap::new(),
    };
    let mut transcript = String::new();
    for (i, step) in case.steps.iter().enumerate() {
        let what = format!("{} {:?}", step.who, step.action);
        let fail = |kind: &str, model: String, real: String, transcript: &str| {
            format!(
                "case {:?}\n  {kind} at step {} of {}: {what}\n    model:     {model}\n    zookeeper: {real}\n  the steps before it agreed:\n{transcript}",
                case.name,
                i + 1,
                case.steps.len()
            )
        };
        let (model, real, fired) = run
            .step(step)
            .map_err(|e| format!("case {:?}, step {}: {e}", case.name, i + 1))?;
        if model != real {
            return Err(fail(
                "disagrees",
                format!("{model:?}"),
                format!("{real:?}"),
                &transcript,
            ));
        }
        let got = run.notifications()?;
        let want = run.model_notifications(&fired);
        if got != want {
            return Err(fail(
                "notifications differ",
                format!("{want:?}"),
                format!("{got:?}"),
                &transcript,
            ));
        }
        let (real_tree, model_tree) = (run.real_tree()?, run.model_tree());
        if real_tree != model_tree {
            return Err(fail(
                "the trees differ",
                format!("{model_tree:?}"),
                format!("{real_tree:?}"),
                &transcript,
            ));
        }
        transcript += &format!("    {:>2}. {what:<60} -> {real:?}\n", i + 1);
    }
    Ok(())
}

fn zookeeper_required() -> bool {
    std::env::var("LOCKSIM_REQUIRE_ZOOKEEPER").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Says `line` on the real stderr, past the harness's capture, so a skip shows.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[test]
fn model_tree_agrees_with_real_zookeeper() {
    let Some(java) = zk_wire::find_zookeeper() else {
        assert!(
            !zookeeper_required(),
            "conformance_zookeeper: java or {} not found, and LOCKSIM_REQUIRE_ZOOKEEPER is set (Debian: apt-get install zookeeperd)",
            zk_wire::ZOOKEEPER_JAR
        );
        say("conformance_zookeeper: SKIPPED — ZooKeeper not found (Debian: apt-get install zookeeperd)");
        return;
    };
    let cases = cases();
    let started = Instant::now();
    let failures: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(n, case)| run_case(&java, n, case).err())
        .collect();
    let steps: usize = cases.iter().map(|c| c.steps.len()).sum();
    assert!(
        failures.is_empty(),
        "{} of {} cases: the model disagrees with ZooKeeper\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    say(&format!(
        "conformance_zookeeper: {} cases, {steps} steps agree with ZooKeeper ({:.1} s)",
        cases.len(),
        started.elapsed().as_secs_f64()
    ));
}
