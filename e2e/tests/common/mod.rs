//! Harness pieces shared by the test binaries (`api`, `browser`): a fresh PostgreSQL
//! database per test and a real `clerk-dev` process. Each binary includes this module
//! with `#[path = "../common/mod.rs"]`, since one test binary cannot import another's.

pub mod clerk;
pub mod db;
pub mod drand;

/// The browser origin the API tests present; it is in `APP_ORIGINS` of every API test
/// server. (Browser tests use the server's real `http://127.0.0.1:PORT` instead.)
pub const ORIGIN: &str = "http://vestibule.test";

/// The settings of a test server on `db_url`, with `clerk` as its identity provider and
/// `origin` as the one browser origin it accepts (and the one authorized party), keys of
/// repeated bytes and generous signup limits; each binary adjusts what it needs.
pub fn settings(db_url: &str, clerk: &clerk::ClerkDev, origin: &str) -> api::config::Settings {
    api::config::Settings {
        database_url: db_url.to_owned(),
        bind_addr: "127.0.0.1:0".into(),
        app_env: api::config::AppEnv::Development,
        app_origins: vec![origin.to_owned()],
        hmac_key: vec![1; 32],
        csrf_key: vec![2; 32],
        clerk_secret_key: clerk.secret.clone(),
        clerk_api_url: clerk.url.clone(),
        clerk_jwt_key: None,
        clerk_authorized_parties: vec![origin.to_owned()],
        clerk_publishable_key: None,
        identity_dev_url: Some(clerk.url.clone()),
        static_dir: None,
        signup_rate_per_minute: 1000,
        redeem_failures_per_15min: 10,
        trusted_proxies: vec![],
        db_pool_size: 8,
        metrics_addr: None,
        integrations: Default::default(),
        secrets_keys: secrets_keys(),
        // Lottery draws on the tests' local drand chain (no relay unless a test adds one).
        draws: drand::LocalChain::default_for_tests().config(None),
    }
}

/// The `SECRETS_KEYS` of every test server (one key, `test1`, of 32 bytes 0x05), as
/// production sets one; a test of the keyring itself sets its own.
pub const SECRETS_KEYS: &str = "test1:BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=";

/// [`SECRETS_KEYS`] as the server's settings hold it.
pub fn secrets_keys() -> api::secrets::SecretsKeys {
    api::secrets::SecretsKeys::parse(SECRETS_KEYS).expect("the test keyring parses")
}
