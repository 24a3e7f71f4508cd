//! The prefix-cache model: an inference engine that keeps each trajectory's last request
//! can serve the longest common token prefix of the next request from cache.

/// Cached tokens of each request of one trajectory.
#[derive(Debug, Default, Clone)]
pub struct PrefixCache {
    last: Vec<u64>,
}

impl PrefixCache {
    /// Records a request's token keys; returns how many of them the cache held.
    pub fn request(&mut self, keys: &[u64]) -> usize {
        let hit = common_prefix(&self.last, keys);
        self.last = keys.to_vec();
        hit
    }
}

pub fn common_prefix(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_the_common_prefix_with_the_previous_request() {
        let mut c = PrefixCache::default();
        assert_eq!(c.request(&[1, 2, 3]), 0);
        assert_eq!(c.request(&[1, 2, 3, 4, 5]), 3);
        assert_eq!(c.request(&[1, 9, 3, 4, 5, 6]), 1);
    }
}
