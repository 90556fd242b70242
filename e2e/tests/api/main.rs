//! Black-box tests of the API: each test gets a fresh PostgreSQL database, a real
//! `clerk-dev` process and the real server on port 0, and talks to them over HTTP.
//! One test binary with a module per area keeps link time down.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod admission_hook;
mod applicant;
mod audit;
mod audit_chain;
mod bulk;
mod clerk_sync;
mod clerk_sync_serial;
mod cli;
mod cohorts;
mod content;
mod control_chars;
mod draws;
mod early_access;
mod edge;
mod embed;
mod erasure;
mod export;
mod faults;
mod foundation;
mod group_admission;
mod history;
mod http_methods;
mod invitations;
mod log_scan;
mod metrics;
mod openapi;
mod ops;
mod pool;
mod pow;
mod programs;
mod questions;
mod queue;
mod rate_limit_fields;
mod redeem;
mod secrets_keyring;
mod security_headers;
mod server_api;
mod signup;
mod spa;
mod webhook_fairness;
mod webhook_libraries;
mod webhook_standards;
mod webhooks;
