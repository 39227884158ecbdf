//! Which thread a call runs on, for the parts of a call that care.
//!
//! Client connections are served by threads that each run their own event loop
//! (`toolgate-server`'s serving threads); background jobs run on the process's main
//! runtime. Two things follow. A socket is polled by the event loop it was registered
//! with, so a cleartext upstream connection opened on a serving thread is lent only to
//! calls on that thread ([`thread_index`]). And work that outlives a call (a learner, a
//! reloaded gateway's jobs) belongs on the main runtime ([`spawn_background`]): started
//! from a call, it would otherwise stay on that call's serving thread, slowing its
//! connections and stopping with it.

use std::cell::RefCell;
use std::future::Future;

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// What a serving thread knows about itself.
struct Serving {
    index: usize,
    main: Handle,
}

thread_local! {
    static SERVING: RefCell<Option<Serving>> = const { RefCell::new(None) };
}

/// Marks the current thread as serving thread `index`, whose background work goes to
/// `main`. Called once, by the thread itself, before it serves anything.
pub fn enter_serving_thread(index: usize, main: Handle) {
    SERVING.with(|cell| *cell.borrow_mut() = Some(Serving { index, main }));
}

/// The serving thread this is, or `None` on the main runtime (and in tests).
pub fn thread_index() -> Option<usize> {
    SERVING.with(|cell| cell.borrow().as_ref().map(|s| s.index))
}

/// Spawns `task` on the main runtime (on the current one when this is not a serving
/// thread). Must be called from within a runtime, as `tokio::spawn` is.
pub fn spawn_background<F>(task: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match SERVING.with(|cell| cell.borrow().as_ref().map(|s| s.main.clone())) {
        Some(main) => main.spawn(task),
        None => tokio::spawn(task),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_serving_thread_sends_background_work_to_the_main_runtime() {
        let main = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("main-runtime")
            .enable_all()
            .build()
            .unwrap();
        let handle = main.handle().clone();
        let seen = std::thread::spawn(move || {
            enter_serving_thread(3, handle);
            let local = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            local.block_on(async {
                let index = thread_index();
                let ran_on =
                    spawn_background(async { std::thread::current().name().map(str::to_owned) })
                        .await
                        .unwrap();
                (index, ran_on)
            })
        })
        .join()
        .unwrap();
        assert_eq!(seen, (Some(3), Some("main-runtime".to_owned())));
        // Elsewhere nothing is marked, and work stays where it is spawned.
        assert_eq!(thread_index(), None);
    }
}
