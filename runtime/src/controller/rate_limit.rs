//! Retry delays after failed reconciles: per-object exponential backoff under an overall token
//! bucket, the maximum of the two (controller-runtime's default rate limiter).

use std::{
    collections::HashMap,
    hash::Hash,
    sync::Mutex,
    time::{Duration, Instant},
};

/// Retry policy of a controller.
#[derive(Clone, Debug, PartialEq)]
pub struct RateLimit {
    /// Delay after the first failure of an object (default 5 ms).
    pub base_delay: Duration,
    /// Upper bound of the per-object delay (default 1000 s).
    pub max_delay: Duration,
    /// Sustained retries per second over all objects (default 10).
    pub qps: f64,
    /// Retries allowed in a burst before `qps` applies (default 100).
    pub burst: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        Self {
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(1000),
            qps: 10.0,
            burst: 100,
        }
    }
}

struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// Tracks failures per key and hands out retry delays.
pub struct RateLimiter<Key> {
    config: RateLimit,
    failures: Mutex<HashMap<Key, u32>>,
    bucket: Mutex<Bucket>,
}

impl<Key: Hash + Eq + Clone> RateLimiter<Key> {
    /// A limiter with a full bucket.
    pub fn new(config: RateLimit) -> Self {
        Self {
            bucket: Mutex::new(Bucket {
                tokens: f64::from(config.burst),
                updated: Instant::now(),
            }),
            config,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// Records a failure of `key` and returns how long to wait before retrying it.
    pub fn when(&self, key: &Key) -> Duration {
        self.when_at(key, Instant::now())
    }

    /// [`RateLimiter::when`] at a given instant (deterministic tests).
    pub fn when_at(&self, key: &Key, now: Instant) -> Duration {
        let failures = {
            let mut map = self.failures.lock().expect("rate limiter lock");
            let n = map.entry(key.clone()).or_insert(0);
            let current = *n;
            *n = n.saturating_add(1);
            current
        };
        let exponential = self
            .config
            .base_delay
            .checked_mul(2u32.saturating_pow(failures.min(31)))
            .unwrap_or(self.config.max_delay)
            .min(self.config.max_delay);
        exponential.max(self.reserve(now))
    }

    /// Forgets the failures of `key` (after a successful reconcile or a deletion).
    pub fn forget(&self, key: &Key) {
        self.failures.lock().expect("rate limiter lock").remove(key);
    }

    /// How many times `key` has failed since it was last forgotten.
    pub fn failures(&self, key: &Key) -> u32 {
        self.failures
            .lock()
            .expect("rate limiter lock")
            .get(key)
            .copied()
            .unwrap_or(0)
    }

    /// Takes one token; returns how long until that token exists.
    fn reserve(&self, now: Instant) -> Duration {
        if self.config.qps <= 0.0 {
            return Duration::ZERO;
        }
        let mut bucket = self.bucket.lock().expect("rate limiter lock");
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        bucket.tokens =
            (bucket.tokens + elapsed * self.config.qps).min(f64::from(self.config.burst));
        bucket.updated = bucket.updated.max(now);
        bucket.tokens -= 1.0;
        if bucket.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-bucket.tokens / self.config.qps)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_object_backoff_doubles_to_the_cap_and_resets() {
        let limiter = RateLimiter::new(RateLimit {
            qps: 0.0,
            ..RateLimit::default()
        });
        let now = Instant::now();
        let delays: Vec<_> = (0..4).map(|_| limiter.when_at(&"a", now)).collect();
        assert_eq!(delays, [5, 10, 20, 40].map(Duration::from_millis).to_vec());
        assert_eq!(limiter.when_at(&"b", now), Duration::from_millis(5));
        for _ in 0..40 {
            limiter.when_at(&"a", now);
        }
        assert_eq!(limiter.when_at(&"a", now), Duration::from_secs(1000));
        limiter.forget(&"a");
        assert_eq!(limiter.failures(&"a"), 0);
        assert_eq!(limiter.when_at(&"a", now), Duration::from_millis(5));
    }

    #[test]
    fn overall_bucket_limits_bursts() {
        let limiter = RateLimiter::new(RateLimit {
            base_delay: Duration::ZERO,
            qps: 10.0,
            burst: 2,
            ..RateLimit::default()
        });
        let now = Instant::now();
        assert_eq!(limiter.when_at(&1, now), Duration::ZERO);
        assert_eq!(limiter.when_at(&2, now), Duration::ZERO);
        // Third retry in the same instant waits for one token at 10/s.
        let third = limiter.when_at(&3, now);
        assert!((third.as_secs_f64() - 0.1).abs() < 1e-6, "{third:?}");
        let fourth = limiter.when_at(&4, now);
        assert!((fourth.as_secs_f64() - 0.2).abs() < 1e-6, "{fourth:?}");
        // A second later the bucket has refilled (capped at the burst).
        let later = now + Duration::from_secs(1);
        assert_eq!(limiter.when_at(&5, later), Duration::ZERO);
    }
}
