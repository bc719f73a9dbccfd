use super::*;

const A: SessionId = 0xa;
const B: SessionId = 0xb;

fn lock_tree() -> Tree {
    let mut t = Tree::new(1);
    t.create_session(A);
    t.create_session(B);
    t.create("/l", b"", CreateMode::Persistent, A).unwrap();
    t
}

#[test]
fn sequence_numbers_count_the_parents_child_creations_not_its_deletions() {
    let mut t = lock_tree();
    let (first, ..) = t.create("/l/lock-", b"", CreateMode::EphemeralSequential, A).unwrap();
    assert_eq!(first, "/l/lock-0000000000");
    t.delete(&first).unwrap();
    let (next, stat, _) = t.create("/l/lock-", b"", CreateMode::EphemeralSequential, B).unwrap();
    assert_eq!(next, "/l/lock-0000000001", "a delete takes no number");
    assert_eq!(
        t.exists("/l", None).unwrap().cversion,
        3,
        "but the reported cversion counts it"
    );
    assert_eq!(stat.ephemeral_owner, B);
}

#[test]
fn every_write_takes_a_zxid_a_failed_one_too() {
    let mut t = Tree::new(1);
    assert_eq!(t.create_session(A), (1 << 32) | 1);
    assert_eq!(t.delete("/missing"), Err(ZkError::NoNode));
    let (_, stat, _) = t.create("/x", b"", CreateMode::Persistent, A).unwrap();
    assert_eq!(stat.czxid, (1 << 32) | 3);
}

#[test]
fn an_exists_watch_fires_once() {
    let mut t = lock_tree();
    let (n, ..) = t.create("/l/lock-", b"", CreateMode::EphemeralSequential, A).unwrap();
    assert!(t.exists(&n, Some(B)).is_some());
    let fired = t.delete(&n).unwrap();
    assert_eq!(
        fired,
        vec![Fired {
            watcher: B,
            kind: EventType::NodeDeleted,
            path: n.clone()
        }]
    );
    t.create(&n, b"", CreateMode::Persistent, A).unwrap();
    assert!(t.delete(&n).unwrap().is_empty(), "the watch was used up");
}

#[test]
fn closing_a_session_deletes_its_ephemerals_and_tells_the_watchers() {
    let mut t = lock_tree();
    let (mine, ..) = t.create("/l/lock-", b"", CreateMode::EphemeralSequential, A).unwrap();
    t.children("/l", Some(B)).unwrap();
    let (_, deleted, fired) = t.close_session(A);
    assert_eq!(deleted, vec![mine]);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].kind, EventType::NodeChildrenChanged);
    assert!(!t.is_live(A));
    assert_eq!(
        t.create("/l/lock-", b"", CreateMode::EphemeralSequential, A),
        Err(ZkError::SessionExpired)
    );
}
