//! Time, memory and cancellation limits shared by the solvers, and the progress channel
//! through which a caller sees the bounds and may stop the search.

use crate::Status;
use std::time::{Duration, Instant};

/// Limits on a search. `None` means unlimited.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Wall-clock limit.
    pub time_limit: Option<Duration>,
    /// Bytes the subproblem store may hold.
    pub memory_limit: Option<usize>,
    /// Threads the search may use (0 and 1: the calling thread only). The answer does
    /// not depend on it; only the depth-two kernel on numeric columns uses a second one.
    pub threads: usize,
}

/// A snapshot of a running search, in objective units.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Seconds since the search started.
    pub elapsed: f64,
    /// Proven lower bound on the optimal objective.
    pub lower_bound: f64,
    /// Objective of the best tree found so far.
    pub objective: f64,
    /// Subproblems stored so far.
    pub subproblems: u64,
}

/// Receives progress about every [`Monitor::INTERVAL`]; returning `false` stops the
/// search with [`Status::Interrupted`]. A search that stopped early reports once more
/// at the end, with the tree it returns (work finishing after the stop may improve it).
pub trait Monitor {
    /// How often `report` is called while the search runs.
    const INTERVAL: Duration = Duration::from_millis(100);
    /// Called with the current state; `false` asks the search to stop.
    fn report(&mut self, progress: &Progress) -> bool;
}

/// A monitor that never stops the search and shows nothing.
pub struct NoMonitor;

impl Monitor for NoMonitor {
    fn report(&mut self, _: &Progress) -> bool {
        true
    }
}

/// Clock and limits of one running search.
pub(crate) struct Budget<'m, M: Monitor> {
    start: Instant,
    deadline: Option<Instant>,
    next_report: Instant,
    monitor: &'m mut M,
    /// Set once the monitor asked to stop: every later poll says so too, so a stop
    /// request seen by a caller that cannot act on it is not lost.
    interrupted: bool,
}

impl<'m, M: Monitor> Budget<'m, M> {
    pub fn new(limits: &Limits, monitor: &'m mut M) -> Self {
        let start = Instant::now();
        Budget {
            start,
            // A deadline past what the clock can represent is no deadline at all.
            deadline: limits.time_limit.and_then(|t| start.checked_add(t)),
            next_report: start + M::INTERVAL,
            monitor,
            interrupted: false,
        }
    }

    /// Seconds left before the time limit (`None` without one).
    pub fn time_left(&self) -> Option<f64> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64())
    }

    /// Seconds since the start.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// The last report of a search that stopped early: the figures of the returned tree.
    pub fn report_final(&mut self, progress: &Progress) {
        let _ = self.monitor.report(progress);
    }

    /// Checks the clock and reports progress when due; `Some(status)` means stop.
    /// `progress` is only evaluated when a report is due.
    #[inline]
    pub fn poll(&mut self, progress: impl FnOnce(f64) -> Progress) -> Option<Status> {
        let now = Instant::now();
        if let Some(d) = self.deadline {
            if now >= d {
                return Some(Status::TimeLimit);
            }
        }
        if self.interrupted {
            return Some(Status::Interrupted);
        }
        if now >= self.next_report {
            self.next_report = now + M::INTERVAL;
            let p = progress((now - self.start).as_secs_f64());
            if !self.monitor.report(&p) {
                self.interrupted = true;
                return Some(Status::Interrupted);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asks to stop once (as Ctrl-C is seen once), then would let the search go on.
    struct StopOnce(bool);

    impl Monitor for StopOnce {
        const INTERVAL: Duration = Duration::ZERO;
        fn report(&mut self, _: &Progress) -> bool {
            std::mem::replace(&mut self.0, true)
        }
    }

    #[test]
    fn a_stop_request_is_repeated_to_every_later_poll() {
        let mut monitor = StopOnce(false);
        let mut budget = Budget::new(&Limits::default(), &mut monitor);
        let progress = |elapsed| Progress { elapsed, lower_bound: 0.0, objective: 1.0, subproblems: 0 };
        assert_eq!(budget.poll(progress), Some(Status::Interrupted));
        // A caller that dropped the first answer still sees the request.
        assert_eq!(budget.poll(progress), Some(Status::Interrupted));
    }
}
