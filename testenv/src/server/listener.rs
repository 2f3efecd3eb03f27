//! The HTTPS listener: TLS with the generated certificate, HTTP/2 (the `h2` crate, [`http2`])
//! or HTTP/1.1 (hyper, [`http1`]) as ALPN chose (kube-apiserver prefers `h2`), one task per connection,
//! everything stopped when the [`Server`] is dropped; restarts on the same address.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};
use tokio_rustls::TlsAcceptor;

use super::{http1, http2};
use crate::Error;
use crate::endpoints::Api;
use crate::faults::{FaultState, Faults, ServerControl};
use crate::support::tls;

/// A running API server; dropping it stops the listener and every open connection.
pub struct Server {
    shared: Arc<Shared>,
}

/// What the accept loop, the fault handles and the server share.
struct Shared {
    addr: SocketAddr,
    ca_pem: String,
    acceptor: TlsAcceptor,
    api: Arc<Api>,
    faults: Arc<FaultState>,
    /// The accept loop and its stop signal; stopping (or aborting) it drops the listener and
    /// every connection.
    task: Mutex<Option<(JoinHandle<()>, oneshot::Sender<()>)>>,
    /// Set once the server is dropped: a restart in progress must not start serving again.
    stopped: AtomicBool,
    /// One restart at a time.
    restarting: tokio::sync::Mutex<()>,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0 = random) and starts serving `api` over HTTPS.
    pub async fn start(api: Arc<Api>, port: u16) -> Result<Server, Error> {
        let certs = tls::certs()?;
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|source| Error::Bind { port, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| Error::Bind { port, source })?;
        api.serving(addr);
        let faults = Arc::new(FaultState::default());
        let filter = faults.clone();
        api.lock()
            .store
            .set_event_filter(Arc::new(move |key, object| filter.drop_event(key, object)));
        let shared = Arc::new(Shared {
            addr,
            ca_pem: certs.ca_pem.clone(),
            acceptor: TlsAcceptor::from(certs.server_config.clone()),
            api,
            faults,
            task: Mutex::new(None),
            stopped: AtomicBool::new(false),
            restarting: tokio::sync::Mutex::new(()),
        });
        shared.serve(listener);
        Ok(Server { shared })
    }

    /// `https://127.0.0.1:<port>`
    pub fn url(&self) -> String {
        format!("https://{}", self.shared.addr)
    }

    /// PEM of the CA clients must trust.
    pub fn ca_pem(&self) -> &str {
        &self.shared.ca_pem
    }

    /// A handle to inject faults into this server.
    pub fn faults(&self) -> Faults {
        let control: Arc<dyn ServerControl> = self.shared.clone();
        Faults::new(self.shared.faults.clone(), Arc::downgrade(&control))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        if let Some((task, _)) = self.shared.task().take() {
            task.abort();
        }
    }
}

impl Shared {
    fn task(&self) -> std::sync::MutexGuard<'_, Option<(JoinHandle<()>, oneshot::Sender<()>)>> {
        self.task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts the accept loop on `listener` (unless the server was dropped meanwhile).
    fn serve(self: &Arc<Self>, listener: TcpListener) {
        let mut task = self.task();
        if self.stopped.load(Ordering::SeqCst) {
            return;
        }
        let this = Arc::downgrade(self);
        let (stop, stopped) = oneshot::channel();
        let handle = tokio::spawn(accept_loop(listener, self.acceptor.clone(), this, stopped));
        *task = Some((handle, stop));
    }

    /// Drops the listener and every connection, stays down for `down`, then listens again on
    /// the same address.
    async fn restart(self: &Arc<Self>, down: Duration) -> Result<(), Error> {
        let _one = self.restarting.lock().await;
        let old = self.task().take();
        let Some((old, stop)) = old else {
            return Ok(()); // dropped: nothing to restart
        };
        // The loop closes the listener and ends every connection (and its watches) before the
        // handle resolves.
        let _ = stop.send(());
        let _ = old.await;
        tokio::time::sleep(down).await;
        let port = self.addr.port();
        let mut attempt = 0;
        let listener = loop {
            match TcpListener::bind(self.addr).await {
                Ok(listener) => break listener,
                Err(source) if attempt >= 100 => return Err(Error::Bind { port, source }),
                Err(_) => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        };
        tracing::debug!(addr = %self.addr, "test API server restarted");
        self.serve(listener);
        Ok(())
    }
}

impl ServerControl for Shared {
    fn compact(&self) {
        self.api.lock().store.compact();
    }

    fn restart(self: Arc<Self>, down: Duration) -> BoxFuture<'static, Result<(), Error>> {
        Box::pin(async move { Shared::restart(&self, down).await })
    }
}

async fn accept_loop(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    shared: std::sync::Weak<Shared>,
    mut stop: oneshot::Receiver<()>,
) {
    // Connections live in this set: aborting the loop drops the set, which aborts them all.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stop => {
                drop(listener);
                connections.shutdown().await;
                return;
            }
            accepted = listener.accept() => {
                let Ok((tcp, _)) = accepted else { continue };
                let Some(shared) = shared.upgrade() else { return };
                let _ = tcp.set_nodelay(true);
                let acceptor = acceptor.clone();
                connections.spawn(async move {
                    let Some(tcp) = plaintext_refused(tcp).await else { return };
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    if tls.get_ref().1.alpn_protocol() == Some(tls::H2) {
                        http2::serve(tls, shared.api.clone(), shared.faults.clone()).await;
                        return;
                    }
                    http1::serve(tls, shared.api.clone(), shared.faults.clone()).await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// `tcp` unless what the client sent first is not TLS. Go's server looks at the first record's
/// header: one that reads like an HTTP request (`GET /`, `HEAD `, `POST `, `PUT /`, `OPTIO`) gets
/// a plain-text 400 and the connection closed, anything else that is not a handshake or an
/// alert (an HTTP/2 preface sent without TLS, for instance) is closed without a word.
async fn plaintext_refused(mut tcp: TcpStream) -> Option<TcpStream> {
    let mut header = [0u8; 5];
    let mut seen = 0;
    for _ in 0..200 {
        seen = tcp.peek(&mut header).await.ok()?;
        if seen == 0 || seen == header.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    if seen < header.len() {
        return (seen > 0).then_some(tcp);
    }
    if matches!(
        &header,
        b"GET /" | b"HEAD " | b"POST " | b"PUT /" | b"OPTIO"
    ) {
        let answer =
            b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";
        let _ = tcp.write_all(answer).await;
        let _ = tcp.shutdown().await;
        return None;
    }
    let version = u16::from_be_bytes([header[1], header[2]]);
    // 21: alert, 22: handshake.
    if !matches!(header[0], 21 | 22) || version >= 0x1000 {
        return None;
    }
    Some(tcp)
}
