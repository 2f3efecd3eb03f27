//! Child processes that cannot outlive the test process.
//!
//! A test process ends without dropping its statics (the harness calls `exit`), a test may
//! abort, and the process may be killed; none of these may leave etcd or kube-apiserver
//! running. Two independent mechanisms see to it:
//!
//! - **Parent-death signal.** Every control-plane process is forked by one thread that lives
//!   as long as the test process and has `PR_SET_PDEATHSIG` set to `SIGKILL`, so the kernel
//!   kills it the moment that thread, hence the process, is gone, however it ends. (The signal
//!   follows the forking *thread*: forked from a test's runtime thread, the control plane
//!   would die with the first test.) Linux only.
//! - **Supervisor.** A small `sh` process in its own process group (so a terminal's Ctrl-C
//!   does not stop it before it has cleaned up) reads the control plane's PIDs from a pipe
//!   whose only writer is the test process. When the pipe closes, which the kernel does when
//!   the process ends, for any reason, it kills those PIDs and removes the control plane's
//!   directory (certificates, etcd data, logs). Dropping the [`Supervisor`] early (a start
//!   that failed) does the same at once.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

/// The supervisor: reads PIDs to kill (`-PID` forgets one that was reaped, so that its number
/// can be reused safely), and on EOF kills them and removes `$1`. It waits (up to 5 s) for
/// the processes to be gone before removing the directory, so that no dying process writes
/// into it afterwards.
const SUPERVISOR_SCRIPT: &str = r#"trap '' INT HUP
pids=
while read -r line; do
  case $line in
    -*) kept=; for p in $pids; do [ "$p" = "${line#-}" ] || kept="$kept $p"; done; pids=$kept ;;
    *) pids="$pids $line" ;;
  esac
done
if [ -n "$pids" ]; then
  kill -KILL $pids 2>/dev/null
  i=0
  while [ $i -lt 50 ]; do
    alive=
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && break
    sleep 0.1
    i=$((i + 1))
  done
fi
rm -rf "$1" 2>/dev/null || { sleep 0.2; rm -rf "$1"; }
"#;

/// Kills the processes of one control plane and removes its directory when dropped, or when
/// the test process ends.
pub struct Supervisor {
    /// The pipe's write end: closing it is the supervisor's signal.
    stdin: Mutex<Option<ChildStdin>>,
    process: Child,
}

impl Supervisor {
    /// Starts the supervisor of the control plane living in `dir`.
    pub fn start(dir: &Path) -> std::io::Result<Supervisor> {
        let mut process = Command::new("sh")
            .arg("-c")
            .arg(SUPERVISOR_SCRIPT)
            .arg("kubeforge-testenv-supervisor")
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let stdin = process.stdin.take().expect("stdin is piped");
        Ok(Supervisor {
            stdin: Mutex::new(Some(stdin)),
            process,
        })
    }

    /// Adds `pid` to the processes killed when the test process ends.
    pub fn watch(&self, pid: u32) -> std::io::Result<()> {
        self.send(&pid.to_string())
    }

    /// Removes `pid` (a process that has been reaped) from the processes to kill.
    pub fn forget(&self, pid: u32) {
        let _ = self.send(&format!("-{pid}"));
    }

    fn send(&self, line: &str) -> std::io::Result<()> {
        let mut stdin = self
            .stdin
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let stdin = stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the supervisor was stopped"))?;
        writeln!(stdin, "{line}")?;
        stdin.flush()
    }
}

impl Drop for Supervisor {
    /// Stops the control plane now (a start that failed) and waits until it is cleaned up.
    fn drop(&mut self) {
        drop(
            self.stdin
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
        let _ = self.process.wait();
    }
}

/// A request to the forking thread, answered with the spawned child.
struct SpawnRequest {
    command: Command,
    reply: mpsc::Sender<std::io::Result<Child>>,
}

/// The channel to the thread that forks every control-plane process.
fn spawner() -> &'static Mutex<mpsc::Sender<SpawnRequest>> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("testenv-control-plane".into())
            .spawn(move || {
                // The sender lives in a static, so `recv` never fails and this thread lives as
                // long as the process: the children's parent-death signal fires only then.
                while let Ok(SpawnRequest { mut command, reply }) = rx.recv() {
                    let _ = reply.send(spawn_here(&mut command));
                }
            })
            .expect("spawning a thread");
        Mutex::new(tx)
    })
}

#[cfg(target_os = "linux")]
fn spawn_here(command: &mut Command) -> std::io::Result<Child> {
    let parent = std::process::id();
    // SAFETY: the closure runs in the forked child before exec and only makes two system
    // calls (async-signal-safe), touching no memory shared with the parent.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the signal was armed.
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::other("the test process is gone"));
            }
            Ok(())
        });
    }
    command.spawn()
}

#[cfg(not(target_os = "linux"))]
fn spawn_here(command: &mut Command) -> std::io::Result<Child> {
    // No parent-death signal outside Linux: the supervisor alone stops the process.
    command.spawn()
}

/// Spawns `command` from the long-lived forking thread and has `supervisor` watch it.
pub fn spawn(command: Command, supervisor: &Supervisor) -> std::io::Result<Child> {
    let (reply, answer) = mpsc::channel();
    spawner()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .send(SpawnRequest { command, reply })
        .map_err(|_| std::io::Error::other("the control-plane spawner thread is gone"))?;
    let mut child = answer
        .recv()
        .map_err(|_| std::io::Error::other("the control-plane spawner thread is gone"))??;
    if let Err(e) = supervisor.watch(child.id()) {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    Ok(child)
}
