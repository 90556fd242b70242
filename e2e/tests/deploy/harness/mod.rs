//! The real parts of a production deployment, started by the tests: the server from
//! `deploy/`'s environment file, Debian's nginx with `deploy/`'s site, a PostgreSQL
//! primary with a synchronous standby, and a signup load that records every answer.

pub mod instance;
pub mod load;
pub mod nginx;
pub mod replication;
