//! A forward proxy on loopback, as a company's egress proxy would be: `CONNECT host:port`
//! tunnels (for `HTTPS_PROXY`) and absolute-form requests (for `HTTP_PROXY`). It resolves
//! the names it is given itself, so a test can use a host name (`registry.test`) that only
//! the proxy can reach. Every request line it receives is recorded.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

pub struct Proxy {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    /// Starts the proxy; `names` maps `host:port` as clients ask for it to where it is.
    pub fn start(names: &[(&str, SocketAddr)]) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let addr = listener.local_addr().expect("proxy address");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let names: Arc<BTreeMap<String, SocketAddr>> = Arc::new(
            names
                .iter()
                .map(|(name, addr)| (name.to_string(), *addr))
                .collect(),
        );
        let log = seen.clone();
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (names, log) = (names.clone(), log.clone());
                thread::spawn(move || {
                    let _ = serve(client, &names, &log);
                });
            }
        });
        Proxy { addr, seen }
    }

    /// `http://127.0.0.1:PORT`, for `HTTPS_PROXY` and `HTTP_PROXY`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The request lines received so far (`CONNECT registry.test:443 HTTP/1.1`, …).
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("proxy log").clone()
    }
}

fn serve(
    client: TcpStream,
    names: &BTreeMap<String, SocketAddr>,
    log: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let end = line == "\r\n";
        head.push_str(&line);
        if end {
            break;
        }
    }
    let request_line = head.lines().next().unwrap_or_default().to_string();
    log.lock().expect("proxy log").push(request_line.clone());
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let authority = match method {
        "CONNECT" => target.to_string(),
        _ => target
            .strip_prefix("http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default()
            .to_string(),
    };
    let Some(upstream_addr) = names.get(&authority) else {
        let mut client = client;
        return client.write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n");
    };
    let mut upstream = TcpStream::connect(upstream_addr)?;
    let mut client_write = client.try_clone()?;
    if method == "CONNECT" {
        client_write.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?;
    } else {
        // The origin server takes the absolute-form request as it is.
        upstream.write_all(head.as_bytes())?;
    }
    // Whatever the client already sent past the head, then both directions.
    let buffered = reader.buffer().to_vec();
    upstream.write_all(&buffered)?;
    let mut upstream_read = upstream.try_clone()?;
    let mut client_read = reader.into_inner();
    let forward = thread::spawn(move || {
        let _ = std::io::copy(&mut client_read, &mut upstream);
        let _ = upstream.shutdown(std::net::Shutdown::Write);
    });
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = upstream_read.read(&mut buf)?;
        if n == 0 {
            break;
        }
        client_write.write_all(&buf[..n])?;
    }
    let _ = client_write.shutdown(std::net::Shutdown::Write);
    let _ = forward.join();
    Ok(())
}
