//! The hosted servers' network side: each listens on its node's address over madsim TCP,
//! serves one connection per client, one request at a time, and hands each request to its
//! native model through the world ([`crate::world::World::deliver`]).
//!
//! The resource's protocol is a line of text each way:
//!
//! | request | reply |
//! |---|---|
//! | `READ` | `VALUE <n>` |
//! | `WRITE <value> <based_on> <token or -> <lease>` | `ACCEPTED` or `REJECTED <max token>` |
//!
//! `value` is the counter the client computed from the `based_on` it read; `lease` is the lock
//! value it holds (for the checkers, which match a write with an acquisition); anything else
//! is answered `ERR <why>`.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use locksim_protocols::lock::LockObs;
use locksim_protocols::lock::resource::{ResourceOp, ResourceReply};
use locksim_protocols::redis::cmd::{Cmd, Value};
use locksim_protocols::redis::msg::Msg;
use locksim_sim::NodeId;
use madsim::net::{TcpListener, TcpStream};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::gate::gate;
use crate::resp::{encode_reply, lease_id, read_request, to_cmd};
use crate::world::{Shared, World, lock};

/// Which node each address belongs to.
pub type Addresses = Arc<BTreeMap<IpAddr, NodeId>>;

/// Which wire a hosted node speaks.
#[derive(Copy, Clone, Debug)]
pub enum Wire {
    Resp,
    Lines,
}

/// A hosted node's process: start its model, then serve every connection.
pub async fn serve(shared: Shared, node: NodeId, addr: SocketAddr, who: Addresses, wire: Wire) {
    lock(&shared).started(node);
    let listener = TcpListener::bind(addr)
        .await
        .expect("a hosted server binds its own address");
    while let Ok((stream, peer)) = listener.accept().await {
        let Some(&from) = who.get(&peer.ip()) else { continue };
        let conn = Conn {
            shared: shared.clone(),
            node,
            from,
        };
        madsim::task::spawn(conn.run(stream, wire));
    }
}

/// One client's connection to a hosted node.
struct Conn {
    shared: Shared,
    node: NodeId,
    from: NodeId,
}

impl Conn {
    async fn run(self, stream: TcpStream, wire: Wire) {
        let mut stream = BufReader::new(stream);
        loop {
            let answer = match wire {
                Wire::Resp => match read_request(&mut stream).await {
                    Ok(Some(args)) => self.redis(&args),
                    _ => return,
                },
                Wire::Lines => {
                    let mut line = String::new();
                    match stream.read_line(&mut line).await {
                        Ok(n) if n > 0 => self.resource(line.trim_end()),
                        _ => return,
                    }
                }
            };
            // A pause that struck during the step holds its reply until it ends.
            gate(&self.shared, self.node).await;
            let Some(bytes) = answer else { continue };
            let s = stream.get_mut();
            if s.write_all(&bytes).await.is_err() || s.flush().await.is_err() {
                return;
            }
        }
    }

    /// The native model's reply to request `req`, if it answered (a server kept unavailable
    /// after a restart answers nothing: the client times out, as with a refused connection).
    fn reply_to(&self, sends: Vec<(NodeId, Msg)>, req: u64) -> Option<Msg> {
        sends.into_iter().find_map(|(to, m)| match m {
            Msg::RedisReply { req: r, .. } | Msg::ResourceReply { req: r, .. } if to == self.from && r == req => {
                Some(m)
            }
            _ => None,
        })
    }

    fn redis(&self, args: &[Vec<u8>]) -> Option<Vec<u8>> {
        let mut w = lock(&self.shared);
        let hosted = w.hosted_mut(self.node)?;
        let req = hosted.next_req();
        let cmd = match to_cmd(args, &mut hosted.leases) {
            Ok(cmd) => cmd,
            Err(e) => return Some(format!("-{e}\r\n").into_bytes()),
        };
        if let Cmd::SetNxPx { value, .. } | Cmd::SetNx { value, .. } = cmd {
            acquire_started(&mut w, self.from, value);
        }
        let sends = w.deliver(self.node, self.from, Msg::Redis { req, cmd });
        match self.reply_to(sends, req)? {
            Msg::RedisReply { reply, .. } => Some(encode_reply(&reply, &w.hosted_mut(self.node)?.leases)),
            _ => None,
        }
    }

    fn resource(&self, line: &str) -> Option<Vec<u8>> {
        let op = match parse_resource(line) {
            Ok(op) => op,
            Err(e) => return Some(format!("ERR {e}\n").into_bytes()),
        };
        let mut w = lock(&self.shared);
        let req = w.hosted_mut(self.node)?.next_req();
        let sends = w.deliver(self.node, self.from, Msg::Resource { req, op });
        let text = match self.reply_to(sends, req)? {
            Msg::ResourceReply { reply, .. } => match reply {
                ResourceReply::Value(v) => format!("VALUE {v}\n"),
                ResourceReply::Accepted => "ACCEPTED\n".to_string(),
                ResourceReply::Rejected { max } => format!("REJECTED {max}\n"),
            },
            _ => return None,
        };
        Some(text.into_bytes())
    }
}

/// The client's attempt, as the native client records it before sending its `SET`: the
/// harness sees the attempt when the `SET` arrives, which is also what ties the lease to
/// its client for the checkers.
fn acquire_started(w: &mut World, client: NodeId, value: Value) {
    if let Value::Lease(lease) = value {
        let attempt = w.next_attempt(client, lease);
        w.record(client, LockObs::AcquireStarted { lease, attempt });
    }
}

/// A request line of the resource's protocol.
fn parse_resource(line: &str) -> Result<ResourceOp, String> {
    let words: Vec<&str> = line.split(' ').collect();
    let num = |s: &str, what: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("{what} must be an integer, got {s:?}"))
    };
    match words.as_slice() {
        ["READ"] => Ok(ResourceOp::Read),
        ["WRITE", value, based_on, token, lease] => Ok(ResourceOp::Write {
            value: num(value, "value")?,
            based_on: num(based_on, "based_on")?,
            token: match *token {
                "-" => None,
                t => Some(num(t, "token")?),
            },
            lease: lease_id(lease.as_bytes()),
        }),
        _ => Err(format!(
            "expected READ or WRITE <value> <based_on> <token|-> <lease>, got {line:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_lines_parse_or_say_what_is_wrong() {
        assert_eq!(parse_resource("READ"), Ok(ResourceOp::Read));
        assert_eq!(
            parse_resource("WRITE 4 3 - ab"),
            Ok(ResourceOp::Write {
                value: 4,
                based_on: 3,
                token: None,
                lease: lease_id(b"ab")
            })
        );
        assert!(parse_resource("WRITE x 3 - ab").unwrap_err().contains("value"));
        assert!(parse_resource("DROP").is_err());
    }
}
