//! Pure scheduling logic, kept apart from IO so it can be unit-tested: which worker gets a
//! new lease, and how a warm-pool target is spread over workers.

/// What the scheduler knows about a worker.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerLoad {
    pub alive: bool,
    pub capacity: usize,
    /// Instances that exist on it (leased, ready or being provisioned).
    pub instances: usize,
    /// Instances leased on it (the manager's own count of the leases it granted there).
    pub leased: usize,
    /// Ready instances of the spec being asked for.
    pub ready: usize,
}

/// The worker to place one lease on: among the live workers that can take it (a ready
/// instance of the spec, or free capacity), the one with the smallest leased share of its
/// capacity, so new and idle workers get load; a ready instance breaks ties (no provisioning on
/// the hot path), then the lower index. `None` when nothing is free.
pub fn place(workers: &[WorkerLoad]) -> Option<usize> {
    workers
        .iter()
        .enumerate()
        .filter(|(_, w)| w.alive && (w.ready > 0 || w.instances < w.capacity))
        .min_by(|(i, a), (j, b)| {
            // a.leased / a.capacity against b.leased / b.capacity, in integers.
            let share = (a.leased * b.capacity.max(1)).cmp(&(b.leased * a.capacity.max(1)));
            share.then((b.ready > 0).cmp(&(a.ready > 0))).then(i.cmp(j))
        })
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
        WorkerLoad { alive, capacity, instances, leased: instances.saturating_sub(ready), ready }
    }

    #[test]
    fn placement_balances_leases_then_prefers_ready_instances() {
        assert_eq!(place(&[w(true, 10, 5, 0), w(true, 10, 9, 1)]), Some(0), "the less loaded worker, ready or not");
        assert_eq!(place(&[w(true, 10, 5, 1), w(true, 10, 4, 0)]), Some(0), "equal load: the one with a ready instance");
        assert_eq!(place(&[w(true, 10, 5, 0), w(true, 10, 2, 0)]), Some(1));
        assert_eq!(place(&[w(true, 100, 50, 0), w(true, 10, 6, 0)]), Some(0), "by share of capacity");
        assert_eq!(place(&[w(false, 10, 0, 3), w(true, 10, 10, 0)]), None, "dead and full workers get nothing");
        assert_eq!(place(&[w(true, 10, 10, 2)]), Some(0), "a full worker with ready instances still serves");
        assert_eq!(place(&[]), None);
        assert_eq!(place(&[w(true, 4, 1, 0), w(true, 4, 1, 0)]), Some(0), "ties go to the first");
    }

    #[test]
    fn a_new_worker_takes_load_until_it_matches_the_old_ones() {
        // An old worker full of ready instances, a new empty one: leases alternate once even.
        let mut loads = vec![w(true, 100, 60, 10), w(true, 100, 0, 0)];
        let mut placed = [0, 0];
        for _ in 0..100 {
            let i = place(&loads).unwrap();
            placed[i] += 1;
            loads[i].leased += 1;
            if loads[i].ready > 0 {
                loads[i].ready -= 1;
            } else {
                loads[i].instances += 1;
            }
        }
        assert_eq!(loads[0].leased, loads[1].leased, "the new worker caught up, then they alternate");
        assert_eq!(placed, [25, 75]);
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
