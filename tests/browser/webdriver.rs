//! A small WebDriver client (W3C WebDriver over HTTP/1.1 and JSON) for `tests/browser.rs`:
//! it starts `chromedriver` on a free loopback port, opens one headless Chromium session, and
//! offers the handful of commands the test needs — navigate, run a script, press keys, click,
//! take a screenshot. Written by hand rather than with `fantoccini` because that crate brings an
//! async runtime and an HTTP stack (tokio, hyper, rustls) into the build for ten requests; the
//! protocol the test uses is a few JSON bodies over `Connection: close` requests.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// WebDriver's key codes for the keys the viewer takes.
pub const ARROW_LEFT: &str = "\u{E012}";
pub const ARROW_RIGHT: &str = "\u{E014}";
pub const HOME: &str = "\u{E011}";
pub const END: &str = "\u{E010}";

/// The Chromium binary and its driver, if both are installed.
pub fn find() -> Option<(PathBuf, PathBuf)> {
    let on_path = |names: &[&str]| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/lib/chromium")])
            .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
            .find(|p| p.is_file())
    };
    Some((on_path(&["chromium", "chromium-browser"])?, on_path(&["chromedriver"])?))
}

/// One headless Chromium session, ended (and its driver stopped) on drop.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

impl Browser {
    /// Starts the driver and a headless session with a window `width` x `height` px.
    pub fn start(chromium: &Path, chromedriver: &Path, width: u32, height: u32) -> Result<Self, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", chromedriver.display()))?;
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while browser.request("GET", "/status", None).is_err() {
            if Instant::now() > deadline {
                return Err("chromedriver did not answer within 20 s".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let args = [
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-background-networking".into(),
            "--hide-scrollbars".into(),
            format!("--window-size={width},{height}"),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args},
        }}});
        let created = browser.request("POST", "/session", Some(&caps))?;
        browser.session = created["value"]["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no session id in {created}"))?
            .to_string();
        Ok(browser)
    }

    /// Opens `url` and waits for the page's load event (WebDriver's default page load strategy).
    pub fn open(&mut self, url: &str) -> Result<(), String> {
        self.command("POST", "url", &json!({"url": url})).map(|_| ())
    }

    /// Runs `script` (a function body; `return` gives the value) in the page.
    pub fn eval(&mut self, script: &str) -> Result<Value, String> {
        self.command("POST", "execute/sync", &json!({"script": script, "args": []}))
    }

    /// Presses and releases each key in turn, as a keyboard would.
    pub fn press(&mut self, keys: &[&str]) -> Result<(), String> {
        let actions: Vec<Value> = keys
            .iter()
            .flat_map(|k| {
                [
                    json!({"type": "keyDown", "value": k}),
                    json!({"type": "keyUp", "value": k}),
                ]
            })
            .collect();
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]});
        self.command("POST", "actions", &body).map(|_| ())
    }

    /// Clicks the first element `css` selects.
    pub fn click(&mut self, css: &str) -> Result<(), String> {
        let found = self.command("POST", "element", &json!({"using": "css selector", "value": css}))?;
        let id = found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .ok_or_else(|| format!("no element for {css}: {found}"))?
            .to_string();
        self.command("POST", &format!("element/{id}/click"), &json!({}))
            .map(|_| ())
    }

    /// A PNG of the window, or of the whole page (`full`: Chromium's DevTools capture beyond the
    /// viewport, through chromedriver's `goog/cdp/execute`).
    pub fn screenshot(&mut self, full: bool) -> Result<Vec<u8>, String> {
        let encoded = if full {
            let params =
                json!({"cmd": "Page.captureScreenshot", "params": {"format": "png", "captureBeyondViewport": true}});
            self.command("POST", "goog/cdp/execute", &params)?["data"].clone()
        } else {
            self.command("GET", "screenshot", &Value::Null)?
        };
        base64(encoded.as_str().ok_or("a screenshot is a base64 string")?)
    }

    fn command(&mut self, method: &str, what: &str, body: &Value) -> Result<Value, String> {
        let path = format!("/session/{}/{what}", self.session);
        let body = (method == "POST").then_some(body);
        Ok(self.request(method, &path, body)?["value"].clone())
    }

    /// One request; the answer's JSON, or the driver's error.
    fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .map_err(|e| e.to_string())?;
        let (head, payload) = read_response(&mut stream)?;
        let value: Value = serde_json::from_str(&payload).map_err(|e| format!("{method} {path}: {e}: {payload}"))?;
        let status_ok = head.split(' ').nth(1) == Some("200");
        if !status_ok {
            return Err(format!("{method} {path}: {}", value["value"]));
        }
        Ok(value)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.request("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// One HTTP response: its header and its body. chromedriver keeps the connection open after
/// answering, whatever the request's `Connection: close` says, so the body is read by its
/// `Content-Length` (or up to a chunked body's last chunk), not to the end of the stream.
fn read_response(stream: &mut TcpStream) -> Result<(String, String), String> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let mut head: Option<(usize, String)> = None;
    loop {
        let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
        raw.extend_from_slice(&buf[..n]);
        if head.is_none()
            && let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n")
        {
            head = Some((end + 4, String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase()));
        }
        if let Some((start, header)) = &head {
            let body = &raw[*start..];
            let length = header
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            let done = match length {
                Some(len) => body.len() >= len,
                None => body.ends_with(b"0\r\n\r\n") || n == 0,
            };
            if done {
                let body = String::from_utf8_lossy(body);
                let body = if header.contains("transfer-encoding: chunked") {
                    unchunk(&body)
                } else {
                    body.into_owned()
                };
                return Ok((header.clone(), body));
            }
        }
        if n == 0 {
            return Err("the connection closed mid-answer".into());
        }
    }
}

/// A chunked HTTP body joined.
fn unchunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

/// Standard base64 (with padding) decoded.
fn base64(text: &str) -> Result<Vec<u8>, String> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|c| *c != b'=' && !c.is_ascii_whitespace()) {
        acc = ((acc << 6) | u32::from(value(c).ok_or("not base64")?)) & 0xFFFF;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}
