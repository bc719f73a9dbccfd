//! How many serving lock servers hold a client's lease, over true time: the strip drawn under a
//! client's belief. Where the belief goes on and the strip drops below a quorum, the client
//! acts on a lock the servers no longer give it.

use serde::Serialize;

use super::spans::Held;

/// `servers` serving servers hold one of `node`'s leases from `from_t` to `to_t`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(super) struct Support {
    pub node: String,
    pub from_t: u64,
    pub to_t: u64,
    pub servers: u32,
}

/// The support of each client that owns a held key, piecewise constant, zero spans left out.
/// A key counts until it ends or its expiry passes on the server's clock, whichever is first
/// (a server may notice an expiry only later).
pub(super) fn support(held: &[Held]) -> Vec<Support> {
    let mut clients: Vec<&str> = Vec::new();
    for h in held.iter().filter(|h| h.serving) {
        if let Some(owner) = h.owner.as_deref().filter(|o| !clients.contains(o)) {
            clients.push(owner);
        }
    }
    let mut out = Vec::new();
    for client in clients {
        // (true time, change): ends sort before starts at the same instant.
        let mut steps: Vec<(u64, i64)> = Vec::new();
        for h in held.iter().filter(|h| h.serving && h.owner.as_deref() == Some(client)) {
            let end = h.expiry_t.map_or(h.end_t, |x| x.min(h.end_t)).max(h.from_t);
            steps.push((h.from_t, 1));
            steps.push((end, -1));
        }
        steps.sort_unstable();
        let mut count: i64 = 0;
        let mut since = 0;
        for (t, change) in steps {
            if count > 0 && t > since {
                out.push(Support {
                    node: client.to_string(),
                    from_t: since,
                    to_t: t,
                    servers: u32::try_from(count).unwrap_or(u32::MAX),
                });
            }
            count += change;
            since = t;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(node: &str, owner: &str, from_t: u64, end_t: u64, expiry_t: Option<u64>) -> Held {
        Held {
            node: node.into(),
            lease: "caa5".into(),
            owner: Some(owner.into()),
            from_i: 0,
            from_t,
            expiry: None,
            expiry_t,
            end_t,
            end: "released",
            serving: true,
        }
    }

    #[test]
    fn counts_overlapping_keys_and_stops_at_expiry() {
        let held = [
            key("server-0", "client-0", 10, 100, None),
            key("server-1", "client-0", 20, 100, Some(50)),
        ];
        let got: Vec<(u64, u64, u32)> = support(&held).iter().map(|s| (s.from_t, s.to_t, s.servers)).collect();
        assert_eq!(got, [(10, 20, 1), (20, 50, 2), (50, 100, 1)]);
    }

    #[test]
    fn a_replica_copy_does_not_count() {
        let mut copy = key("replica-0", "client-0", 10, 100, None);
        copy.serving = false;
        assert!(support(&[copy]).is_empty());
    }
}
