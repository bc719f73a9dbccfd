//! The key-value semantics the lock recipe relies on: revisions, transactions, leases.

use super::*;

fn cmp_create(key: &str, rev: i64) -> Compare {
    Compare {
        key: key.into(),
        op: CmpOp::Equal,
        target: Target::CreateRevision(rev),
    }
}

#[test]
fn revisions_count_writes_and_keys_remember_their_creation() {
    let mut kv = Kv::default();
    assert_eq!(kv.revision(), 1);
    assert_eq!(kv.put("a", "1", 0), Ok(2));
    assert_eq!(kv.put("b", "1", 0), Ok(3));
    assert_eq!(kv.put("a", "2", 0), Ok(4));
    let a = kv.get("a").unwrap();
    assert_eq!((a.create_revision, a.mod_revision, a.version), (2, 4, 2));
    assert_eq!(kv.delete("missing"), (0, 4), "deleting nothing is no write");
    assert_eq!(kv.delete("a"), (1, 5));
    assert_eq!(kv.put("a", "3", 0), Ok(6));
    assert_eq!(
        kv.get("a").unwrap().create_revision,
        6,
        "a new life, a new create revision"
    );
}

#[test]
fn a_transaction_is_one_revision_and_a_read_only_one_none() {
    let mut kv = Kv::default();
    let put = |k: &str| Op::Put {
        key: k.into(),
        value: String::new(),
        lease: 0,
    };
    let r = kv.txn(&[cmp_create("x", 0)], &[put("x"), put("y")], &[]).unwrap();
    assert!(r.succeeded);
    assert_eq!(r.revision, 2);
    assert_eq!(kv.get("y").unwrap().create_revision, 2);
    let r = kv
        .txn(&[cmp_create("x", 0)], &[put("x")], &[Op::Range(Range::key("x"))])
        .unwrap();
    assert!(!r.succeeded);
    assert_eq!(r.revision, 2);
    assert!(matches!(&r.results[0], OpResult::Range(kvs) if kvs[0].create_revision == 2));
}

#[test]
fn the_lock_recipe_orders_contenders_by_create_revision() {
    let mut kv = Kv::default();
    for (i, id) in [7, 3, 5].into_iter().enumerate() {
        kv.lease_grant(id, 10_000).unwrap();
        kv.put(&format!("/lock/l/{id}"), "", id).unwrap();
        assert_eq!(kv.get(&format!("/lock/l/{id}")).unwrap().create_revision, 2 + i as i64);
    }
    let owner = kv.range(&Range::prefix("/lock/l/", Order::FirstCreate, 0, 1));
    assert_eq!(owner[0].key, "/lock/l/7");
    let before_5 = kv.range(&Range::prefix("/lock/l/", Order::LastCreate, 3, 1));
    assert_eq!(before_5[0].key, "/lock/l/3", "the predecessor of the key created at 4");
}

#[test]
fn revoking_a_lease_deletes_its_keys_in_one_revision() {
    let mut kv = Kv::default();
    kv.lease_grant(9, 2000).unwrap();
    kv.put("k1", "", 9).unwrap();
    kv.put("k2", "", 9).unwrap();
    kv.put("k3", "", 0).unwrap();
    assert_eq!(kv.lease_grant(9, 1), Err(KvError::LeaseExists));
    assert_eq!(kv.lease_revoke(9), Ok((vec!["k1".into(), "k2".into()], 5)));
    assert!(kv.get("k1").is_none() && kv.get("k3").is_some());
    assert_eq!(kv.lease_revoke(9), Err(KvError::LeaseNotFound));
    assert_eq!(kv.put("k4", "", 9), Err(KvError::LeaseNotFound));
    assert_eq!(kv.revision(), 5, "a refused put is no write");
}

#[test]
fn a_branch_writing_one_key_twice_is_refused_whichever_branch_runs() {
    let mut kv = Kv::default();
    kv.put("a", "1", 0).unwrap();
    let put = |v: &str| Op::Put {
        key: "a".into(),
        value: v.into(),
        lease: 0,
    };
    let del = || Op::Delete { key: "a".into() };
    assert_eq!(kv.txn(&[], &[put("x"), put("y")], &[]), Err(KvError::DuplicateKey));
    assert_eq!(kv.txn(&[], &[put("x"), del()], &[]), Err(KvError::DuplicateKey));
    let holds = cmp_create("a", 2);
    assert_eq!(
        kv.txn(&[holds], &[put("x")], &[del(), put("y")]),
        Err(KvError::DuplicateKey)
    );
    assert_eq!(kv.revision(), 2, "a refused txn is no write");
    let twice = kv.txn(&[], &[del(), del()], &[]).unwrap();
    assert_eq!(twice.results, [OpResult::Delete(1), OpResult::Delete(0)]);
    assert_eq!(twice.revision, 3);
}
