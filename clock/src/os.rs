//! The operating system's clocks, for production.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::{Clock, nanos};

/// `SystemTime` and `Instant`. Its sleep parks a thread of its own, so it needs no async
/// runtime (this crate depends on nothing); a tokio user may as well write a `Clock` whose
/// sleep is `tokio::time::sleep`.
#[derive(Copy, Clone, Debug)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    pub fn new() -> Self {
        SystemClock { origin: Instant::now() }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn wall_ns(&self) -> i64 {
        match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => nanos(d) as i64,
            Err(before) => -(nanos(before.duration()) as i64),
        }
    }

    fn mono_ns(&self) -> u64 {
        nanos(self.origin.elapsed())
    }

    fn sleep(&self, d: Duration) -> impl Future<Output = ()> + Send {
        ThreadSleep::new(d)
    }
}

/// Whether the sleep ended, and who to wake when it does.
#[derive(Default)]
struct SleepState {
    done: bool,
    waker: Option<Waker>,
}

/// A sleep on a thread of its own.
struct ThreadSleep {
    state: Arc<Mutex<SleepState>>,
}

impl ThreadSleep {
    fn new(d: Duration) -> Self {
        let state = Arc::new(Mutex::new(SleepState::default()));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            std::thread::sleep(d);
            let mut s = shared.lock().unwrap_or_else(PoisonError::into_inner);
            s.done = true;
            if let Some(w) = s.waker.take() {
                w.wake();
            }
        });
        ThreadSleep { state }
    }
}

impl Future for ThreadSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.done {
            return Poll::Ready(());
        }
        s.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny executor: polls on the current thread, parking until woken.
    fn block_on<F: Future>(f: F) -> F::Output {
        struct Unpark(std::thread::Thread);
        impl std::task::Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut f = std::pin::pin!(f);
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
            std::thread::park();
        }
    }

    #[test]
    fn the_system_clock_sleeps_at_least_the_duration_on_its_monotonic_clock() {
        let clock = SystemClock::new();
        let before = clock.mono_ns();
        block_on(clock.sleep(Duration::from_millis(20)));
        assert!(clock.mono_ns() - before >= 20_000_000);
        // The wall clock is the Unix epoch's: after 2020.
        assert!(clock.wall_ns() > 1_577_836_800 * 1_000_000_000);
    }
}
