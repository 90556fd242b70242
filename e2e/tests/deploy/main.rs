//! The production path (issue 17), with real parts and the files in `deploy/`: the
//! binary alone serving the whole app, SIGTERM in the middle of signup load, two
//! instances behind Debian's nginx with TLS, and a PostgreSQL primary with a synchronous
//! standby failing over under load. These start several processes each and watch them
//! under load, so they are slower than the API tests: the nextest group `deploy`
//! (`.config/nextest.toml`) runs them one at a time.

// The API tests' harness (a fresh database, clerk-dev, owners through the API): this
// binary uses a part of it.
#[allow(dead_code, unused_imports)]
#[path = "../common/mod.rs"]
mod common;
#[allow(dead_code, unused_imports)]
#[path = "../api/support/mod.rs"]
mod support;

mod harness;

mod failover;
mod files;
mod proxy;
mod shutdown;
