//! Pure scheduling logic, kept apart from IO so it can be unit-tested: which worker gets a
//! new lease, and how a warm-pool target is spread over workers.

/// What the scheduler knows about a worker.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerLoad {
    pub alive: bool,
    pub capacity: usize,
    /// Instances that exist on it (leased, ready or being provisioned).
    pub instances: usize,
    /// Ready instances of the spec being asked for.
    pub ready: usize,
}

/// The worker to place one lease on: a ready instance first (no provisioning on the hot path),
/// then the most free capacity; ties go to the lower index. `None` when nothing is free.
pub fn place(workers: &[WorkerLoad]) -> Option<usize> {
    let alive = || workers.iter().enumerate().filter(|(_, w)| w.alive);
    if let Some((i, _)) = alive().filter(|(_, w)| w.ready > 0).max_by_key(|(i, w)| (w.ready, std::cmp::Reverse(*i))) {
        return Some(i);
    }
    alive()
        .filter(|(_, w)| w.instances < w.capacity)
        .max_by_key(|(i, w)| (w.capacity - w.instances, std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

/// Splits a warm target over live workers in proportion to their capacity (largest
/// remainders first), never above a worker's capacity.
pub fn spread_warm(target: usize, workers: &[WorkerLoad]) -> Vec<usize> {
    let total: usize = workers.iter().filter(|w| w.alive).map(|w| w.capacity).sum();
    let mut out = vec![0; workers.len()];
    if total == 0 {
        return out;
    }
    let target = target.min(total);
    let mut rema: Vec<(usize, usize)> = Vec::new();
    let mut given = 0;
    for (i, w) in workers.iter().enumerate().filter(|(_, w)| w.alive) {
        let share = target * w.capacity;
        out[i] = share / total;
        given += out[i];
        rema.push((share % total, i));
    }
    rema.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i) in rema.into_iter().take(target - given) {
        out[i] += 1;
    }
    out
}

/// How many ready instances a worker should create (positive) or retire (negative) to meet
/// its warm target, given what it has and what it may hold.
pub fn reconcile(target: usize, ready: usize, instances: usize, capacity: usize) -> i64 {
    if ready < target {
        (target - ready).min(capacity.saturating_sub(instances)) as i64
    } else {
        -((ready - target) as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(alive: bool, capacity: usize, instances: usize, ready: usize) -> WorkerLoad {
        WorkerLoad { alive, capacity, instances, ready }
    }

    #[test]
    fn placement_prefers_ready_instances_then_free_capacity() {
        assert_eq!(place(&[w(true, 10, 5, 0), w(true, 10, 9, 1)]), Some(1));
        assert_eq!(place(&[w(true, 10, 5, 0), w(true, 10, 2, 0)]), Some(1));
        assert_eq!(place(&[w(false, 10, 0, 3), w(true, 10, 10, 0)]), None, "dead and full workers get nothing");
        assert_eq!(place(&[]), None);
        assert_eq!(place(&[w(true, 4, 1, 0), w(true, 4, 1, 0)]), Some(0), "ties go to the first");
    }

    #[test]
    fn warm_targets_follow_capacity_and_skip_dead_workers() {
        assert_eq!(spread_warm(10, &[w(true, 100, 0, 0), w(true, 300, 0, 0)]), vec![3, 7]);
        assert_eq!(spread_warm(10, &[w(true, 100, 0, 0), w(false, 300, 0, 0)]), vec![10, 0]);
        assert_eq!(spread_warm(5, &[w(true, 1, 0, 0), w(true, 1, 0, 0)]), vec![1, 1], "never above capacity");
        assert_eq!(spread_warm(3, &[w(true, 10, 0, 0), w(true, 10, 0, 0), w(true, 10, 0, 0)]).iter().sum::<usize>(), 3);
        assert_eq!(spread_warm(7, &[]), Vec::<usize>::new());
    }

    #[test]
    fn reconcile_creates_up_to_capacity_and_retires_extras() {
        assert_eq!(reconcile(8, 2, 5, 100), 6);
        assert_eq!(reconcile(8, 2, 98, 100), 2);
        assert_eq!(reconcile(2, 5, 5, 100), -3);
        assert_eq!(reconcile(3, 3, 3, 3), 0);
    }
}
