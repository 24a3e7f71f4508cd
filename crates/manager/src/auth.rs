//! Who may do what.
//!
//! Three roles, each with its own bearer credential:
//! - **clients** lease instances (`/v1/leases…`) and run rollouts;
//! - **workers** (the fleet) register and heartbeat with the manager, and the manager drives
//!   them with the same credential (`/v1/worker/…`); each registered worker also proves its
//!   identity on every heartbeat with a secret the manager issued to it;
//! - **operators** list the fleet and pools and may put an instance into its solved state
//!   (`/v1/instances/{id}/golden`, for validating tasks).
//!
//! The data plane (`/v1/instances/{id}/…`) takes no bearer token at all: the lease id is the
//! capability (128 random bits, known only to its holder), so the clients' token never
//! travels to a worker. With no credential configured the server is open (the loopback
//! default); once any is configured, a role without its own credential is closed.

use axum::http::{header, HeaderMap, StatusCode};

use crate::api::ApiError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Client,
    Worker,
    Operator,
}

impl Role {
    fn flag(self) -> &'static str {
        match self {
            Role::Client => "--token (GUIGYM_TOKEN)",
            Role::Worker => "--worker-token (GUIGYM_WORKER_TOKEN)",
            Role::Operator => "--operator-token (GUIGYM_OPERATOR_TOKEN)",
        }
    }
}

/// The credentials a server accepts, one per role.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    pub client: Option<String>,
    pub worker: Option<String>,
    pub operator: Option<String>,
}

impl Credentials {
    /// Every role open: for a server on loopback with nobody else on the machine.
    pub fn open() -> Credentials {
        Credentials::default()
    }

    /// The credentials from the flags, with the environment variables as fallback; empty
    /// strings count as unset.
    pub fn from_env(client: Option<String>, worker: Option<String>, operator: Option<String>) -> Credentials {
        let pick = |flag: Option<String>, var: &str| flag.or_else(|| std::env::var(var).ok()).filter(|t| !t.is_empty());
        Credentials { client: pick(client, "GUIGYM_TOKEN"), worker: pick(worker, "GUIGYM_WORKER_TOKEN"), operator: pick(operator, "GUIGYM_OPERATOR_TOKEN") }
    }

    fn of(&self, role: Role) -> Option<&str> {
        match role {
            Role::Client => self.client.as_deref(),
            Role::Worker => self.worker.as_deref(),
            Role::Operator => self.operator.as_deref(),
        }
    }

    fn is_open(&self) -> bool {
        self.client.is_none() && self.worker.is_none() && self.operator.is_none()
    }

    /// Whether a request bearing `given` may act in `role`.
    pub fn check(&self, role: Role, given: Option<&str>) -> Result<(), ApiError> {
        if self.is_open() {
            return Ok(());
        }
        let Some(expected) = self.of(role) else {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                format!("this server has no credential for this route: start it with {}", role.flag()),
            ));
        };
        match given {
            Some(g) if same(g.as_bytes(), expected.as_bytes()) => Ok(()),
            _ => Err(ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "a valid bearer token is required")),
        }
    }
}

/// Compares two secrets in time that depends only on their lengths.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `prefix` and 128 random bits from the operating system, as hex: lease ids and secrets.
pub fn random_id(prefix: &str) -> String {
    random_ids(prefix, 1).pop().unwrap_or_default()
}

/// `n` such ids from one read of the operating system's random source.
pub fn random_ids(prefix: &str, n: usize) -> Vec<String> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut bytes = vec![0u8; 16 * n];
    // Without OS randomness there is no safe capability to hand out.
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    bytes
        .chunks(16)
        .map(|chunk| {
            let mut id = String::with_capacity(prefix.len() + 32);
            id.push_str(prefix);
            for b in chunk {
                id.push(HEX[(b >> 4) as usize] as char);
                id.push(HEX[(b & 15) as usize] as char);
            }
            id
        })
        .collect()
}

/// The bearer token a request carries, if any.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_needs_its_own_credential_once_any_is_set() {
        let open = Credentials::open();
        assert!(open.check(Role::Operator, None).is_ok());
        let c = Credentials { client: Some("c".into()), worker: Some("w".into()), operator: None };
        assert!(c.check(Role::Client, Some("c")).is_ok());
        assert_eq!(c.check(Role::Client, Some("w")).unwrap_err().status, StatusCode::UNAUTHORIZED);
        assert_eq!(c.check(Role::Worker, Some("c")).unwrap_err().status, StatusCode::UNAUTHORIZED);
        assert_eq!(c.check(Role::Operator, Some("c")).unwrap_err().status, StatusCode::FORBIDDEN);
        assert!(same(b"abc", b"abc") && !same(b"abc", b"abd") && !same(b"abc", b"ab"));
        let (a, b) = (random_id("l"), random_id("l"));
        assert!(a != b && a.len() == 33 && a.starts_with('l'));
    }
}
