//! The environment manager: who holds which instance, for how long, on which worker.
//!
//! The control plane (`Manager`) grants leases (TTL plus heartbeats), reclaims expired ones,
//! tracks workers and their liveness, and spreads warm-pool targets over them. The data plane
//! (`Worker`) hosts instances and runs reset / observe / step / evaluate under deadlines, with
//! idempotent steps; a missed deadline or a backend error quarantines the instance. Both speak
//! HTTP (`api`), and `EnvClient` implements `Env` over it, so the rollout path runs against a
//! remote manager exactly as against an embedded backend.
//!
//! Who may call what is in `auth` (clients, the fleet, operators; lease ids are the data
//! plane's capability), and `net` is the bounded server loop both run.
//!
//! Invariants: the manager holds no per-step data (observations and actions go between the
//! client and the worker); the clients' token never reaches a worker.

pub mod api;
pub mod auth;
pub mod client;
pub mod control;
pub mod metrics;
pub mod net;
pub mod plan;
pub mod spec;
pub mod worker;

pub use client::{EnvClient, ManagerProvider};
pub use control::{Manager, ManagerConfig};
pub use spec::{Backends, EnvSpec};
pub use worker::{Worker, WorkerConfig};
