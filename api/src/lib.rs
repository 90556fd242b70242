//! Vestibule's server library: the HTTP API, its database layer, identity, and the
//! maintenance CLI. The `vestibule` binary only parses arguments and calls in here.

pub mod assets;
pub mod cli;
pub mod config;
pub mod crypto;
pub mod db;
pub mod domain;
pub mod error;
pub mod http;
pub mod identity;
pub mod metrics;
pub mod openapi;
pub mod routes;
pub mod shutdown;
pub mod startup;
pub mod telemetry;
