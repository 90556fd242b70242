//! Typed settings from the environment (SPEC §2). Policy: production refuses to start
//! with anything that would make it unsafe — the local identity stand-in, a missing or
//! short secret, a non-https origin — and says which setting is wrong, never its value.

use std::net::IpAddr;

/// Secrets are at least this long after decoding.
pub const MIN_KEY_BYTES: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppEnv {
    Development,
    Production,
}

#[derive(Clone)]
pub struct Settings {
    pub database_url: String,
    pub bind_addr: String,
    pub app_env: AppEnv,
    pub app_origins: Vec<String>,
    /// The server-wide HMAC key (`SIGNUP_BINDING_KEY`): request-key bindings of signups
    /// and owner actions, and rate-limit subjects.
    pub hmac_key: Vec<u8>,
    pub csrf_key: Vec<u8>,
    pub clerk_secret_key: String,
    pub clerk_api_url: String,
    pub clerk_jwt_key: Option<String>,
    pub clerk_authorized_parties: Vec<String>,
    pub clerk_publishable_key: Option<String>,
    pub identity_dev_url: Option<String>,
    /// A directory to serve the SPA from instead of the copy inside the binary.
    pub static_dir: Option<String>,
    pub signup_rate_per_minute: u32,
    pub redeem_failures_per_15min: u32,
    pub trusted_proxies: Vec<IpAddr>,
    /// Largest number of pooled database connections.
    pub db_pool_size: usize,
    /// Optional separate address for `/metrics`.
    pub metrics_addr: Option<String>,
    /// Webhook delivery and the outbox worker.
    pub integrations: IntegrationSettings,
    /// `SECRETS_KEYS`: the keyring that seals webhook and admission-hook secrets
    /// (`crate::secrets`). Required in production; empty in development seals the old way.
    pub secrets_keys: crate::secrets::SecretsKeys,
}

/// How the outbox worker delivers. Production uses the defaults; the development-only
/// knobs exist for tests (a loopback receiver, a compressed retry schedule).
#[derive(Debug, Clone)]
pub struct IntegrationSettings {
    /// `WEBHOOK_ALLOW_LOOPBACK` (development only): webhook URLs may be `http` and point
    /// at loopback addresses. Private and link-local targets stay refused.
    pub allow_loopback: bool,
    /// `OUTBOX_POLL_MS`: how often an idle worker looks for due deliveries.
    pub poll: std::time::Duration,
    /// `OUTBOX_BACKOFF_SCALE` (development only): multiplies the retry schedule.
    pub backoff_scale: f64,
    /// `OUTBOX_LEASE_SECS`: how long a claimed delivery is held before another worker may
    /// take it (a process killed mid-delivery). At least 30 in production, above the
    /// delivery timeouts, so a live worker never loses its lease.
    pub lease_secs: u32,
    /// `API_KEY_RATE_PER_MINUTE`: requests one API key may make per minute (default 600).
    pub api_key_rate_per_minute: u32,
    /// `CLERK_SYNC_ROLES`: the organization roles a program's "On grant, in Clerk" setting
    /// may give (comma-separated, default `org:member`); never an admin role.
    pub clerk_sync_roles: Vec<String>,
}

impl Default for IntegrationSettings {
    fn default() -> Self {
        IntegrationSettings {
            allow_loopback: false,
            poll: std::time::Duration::from_secs(1),
            backoff_scale: 1.0,
            lease_secs: 60,
            api_key_rate_per_minute: 600,
            clerk_sync_roles: vec!["org:member".to_owned()],
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("bind_addr", &self.bind_addr)
            .field("app_env", &self.app_env)
            .field("app_origins", &self.app_origins)
            .field("clerk_api_url", &self.clerk_api_url)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

fn err(msg: impl Into<String>) -> ConfigError {
    ConfigError(msg.into())
}

/// Reads a variable; empty counts as unset.
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

fn list(name: &str) -> Vec<String> {
    var(name).map(|v| v.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()).unwrap_or_default()
}

fn number<T: std::str::FromStr>(name: &str, default: T) -> Result<T, ConfigError> {
    match var(name) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| err(format!("{name} must be a whole number"))),
    }
}

/// Decodes a key given as hex or base64 (standard or url-safe, padded or not).
pub fn decode_key(name: &str, value: &str) -> Result<Vec<u8>, ConfigError> {
    use base64::Engine as _;
    let engines = [
        &base64::engine::general_purpose::STANDARD,
        &base64::engine::general_purpose::STANDARD_NO_PAD,
        &base64::engine::general_purpose::URL_SAFE,
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let bytes = if value.len().is_multiple_of(2) && value.bytes().all(|b| b.is_ascii_hexdigit()) {
        hex::decode(value).ok()
    } else {
        engines.iter().find_map(|e| e.decode(value).ok())
    }
    .ok_or_else(|| err(format!("{name} must be hex or base64")))?;
    if bytes.len() < MIN_KEY_BYTES {
        return Err(err(format!("{name} must decode to at least {MIN_KEY_BYTES} bytes")));
    }
    Ok(bytes)
}

impl Settings {
    pub fn from_env() -> Result<Self, ConfigError> {
        let app_env = match var("APP_ENV").as_deref() {
            None | Some("development") => AppEnv::Development,
            Some("production") => AppEnv::Production,
            Some(_) => return Err(err("APP_ENV must be development or production")),
        };
        let key = |name: &str| -> Result<Vec<u8>, ConfigError> {
            match var(name) {
                Some(v) => decode_key(name, &v),
                None => Err(err(format!("{name} is required"))),
            }
        };
        let trusted_proxies = list("TRUSTED_PROXIES")
            .iter()
            .map(|p| {
                p.parse::<IpAddr>()
                    .map(|ip| ip.to_canonical())
                    .map_err(|_| err("TRUSTED_PROXIES must list IP addresses"))
            })
            .collect::<Result<_, _>>()?;
        let settings = Settings {
            database_url: var("DATABASE_URL").ok_or_else(|| err("DATABASE_URL is required"))?,
            bind_addr: var("BIND_ADDR").unwrap_or_else(|| "127.0.0.1:8080".into()),
            app_env,
            app_origins: list("APP_ORIGINS"),
            hmac_key: key("SIGNUP_BINDING_KEY")?,
            csrf_key: key("CSRF_KEY")?,
            clerk_secret_key: var("CLERK_SECRET_KEY").ok_or_else(|| err("CLERK_SECRET_KEY is required"))?,
            clerk_api_url: var("CLERK_API_URL").unwrap_or_else(|| "https://api.clerk.com".into()),
            clerk_jwt_key: var("CLERK_JWT_KEY"),
            clerk_authorized_parties: list("CLERK_AUTHORIZED_PARTIES"),
            clerk_publishable_key: var("CLERK_PUBLISHABLE_KEY"),
            identity_dev_url: var("IDENTITY_DEV_URL"),
            static_dir: var("STATIC_DIR"),
            signup_rate_per_minute: number("SIGNUP_RATE_PER_MINUTE", 30)?,
            redeem_failures_per_15min: number("REDEEM_FAILURES_PER_15MIN", 10)?,
            trusted_proxies,
            db_pool_size: number("DB_POOL_SIZE", 16)?,
            metrics_addr: var("METRICS_ADDR"),
            integrations: IntegrationSettings {
                allow_loopback: matches!(var("WEBHOOK_ALLOW_LOOPBACK").as_deref(), Some("true" | "1")),
                poll: std::time::Duration::from_millis(number("OUTBOX_POLL_MS", 1000)?),
                backoff_scale: var("OUTBOX_BACKOFF_SCALE")
                    .map(|v| v.parse::<f64>().ok().filter(|f| *f > 0.0 && *f <= 1.0))
                    .unwrap_or(Some(1.0))
                    .ok_or_else(|| err("OUTBOX_BACKOFF_SCALE must be a number in (0, 1]"))?,
                lease_secs: number("OUTBOX_LEASE_SECS", 60)?,
                api_key_rate_per_minute: number("API_KEY_RATE_PER_MINUTE", 600)?,
                clerk_sync_roles: match list("CLERK_SYNC_ROLES") {
                    roles if roles.is_empty() => IntegrationSettings::default().clerk_sync_roles,
                    roles => roles,
                },
            },
            secrets_keys: match var("SECRETS_KEYS") {
                Some(v) => crate::secrets::SecretsKeys::parse(&v).map_err(|e| err(e.to_string()))?,
                None => crate::secrets::SecretsKeys::default(),
            },
        };
        settings.validate()?;
        Ok(settings)
    }

    /// The checks that hold in every environment, plus production's refusals.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.hmac_key.len() < MIN_KEY_BYTES || self.csrf_key.len() < MIN_KEY_BYTES {
            return Err(err("SIGNUP_BINDING_KEY and CSRF_KEY must be at least 32 bytes"));
        }
        if self.hmac_key == self.csrf_key {
            return Err(err("SIGNUP_BINDING_KEY and CSRF_KEY must differ"));
        }
        if self.secrets_keys.holds_key(&self.hmac_key) || self.secrets_keys.holds_key(&self.csrf_key) {
            return Err(err("SECRETS_KEYS must differ from SIGNUP_BINDING_KEY and CSRF_KEY"));
        }
        if self.app_origins.is_empty() {
            return Err(err("APP_ORIGINS must name at least one origin"));
        }
        if self.integrations.lease_secs < 2 {
            return Err(err("OUTBOX_LEASE_SECS must be at least 2"));
        }
        if self.db_pool_size == 0 {
            return Err(err("DB_POOL_SIZE must be positive"));
        }
        if let Some(r) = self.integrations.clerk_sync_roles.iter().find(|r| !shared::clerk_sync::role_ok(r)) {
            return Err(err(format!("CLERK_SYNC_ROLES: {r} is not a non-admin org:<key> role")));
        }
        if self.app_env == AppEnv::Production {
            if let Some(o) = self.app_origins.iter().find(|o| !o.starts_with("https://")) {
                return Err(err(format!("APP_ORIGINS: production needs https origins, got {o}")));
            }
            if !self.clerk_api_url.starts_with("https://") || is_loopback_url(&self.clerk_api_url) {
                return Err(err("CLERK_API_URL: production refuses the local identity stand-in"));
            }
            if self.identity_dev_url.is_some() {
                return Err(err("IDENTITY_DEV_URL: production refuses the local sign-in"));
            }
            if !self.clerk_secret_key.starts_with("sk_") || self.clerk_secret_key.len() < MIN_KEY_BYTES {
                return Err(err("CLERK_SECRET_KEY: production needs a real sk_ key"));
            }
            if self.clerk_authorized_parties.is_empty() {
                return Err(err("CLERK_AUTHORIZED_PARTIES: production must name the app's origins"));
            }
            if self.integrations.allow_loopback {
                return Err(err("WEBHOOK_ALLOW_LOOPBACK: production refuses loopback webhook targets"));
            }
            if self.integrations.lease_secs < 30 {
                return Err(err("OUTBOX_LEASE_SECS: production needs at least 30"));
            }
            if self.integrations.backoff_scale != 1.0 {
                return Err(err("OUTBOX_BACKOFF_SCALE: production keeps the full retry schedule"));
            }
            if self.secrets_keys.is_empty() {
                return Err(err("SECRETS_KEYS: production needs the keyring that seals webhook and hook secrets"));
            }
        }
        Ok(())
    }

    pub fn is_local_identity(&self) -> bool {
        self.identity_dev_url.is_some()
    }
}

/// True for URLs whose host is a loopback name or address.
pub fn is_loopback_url(url: &str) -> bool {
    let rest = url.split("://").nth(1).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host.to_ascii_lowercase().ends_with(".localhost")
        || host.parse::<IpAddr>().map(|ip| ip.is_loopback() || ip.is_unspecified()).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls() {
        for u in
            ["http://127.0.0.1:3000", "https://localhost", "http://[::1]:9", "https://127.8.0.1/v1", "http://0.0.0.0"]
        {
            assert!(is_loopback_url(u), "{u}");
        }
        for u in ["https://api.clerk.com", "https://example.com:443/x"] {
            assert!(!is_loopback_url(u), "{u}");
        }
    }

    #[test]
    fn keys_decode_from_hex_and_base64_and_need_32_bytes() {
        assert_eq!(decode_key("K", &"ab".repeat(32)).unwrap().len(), 32);
        assert_eq!(decode_key("K", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").unwrap().len(), 32);
        assert!(decode_key("K", &"ab".repeat(31)).is_err());
        assert!(decode_key("K", "not a key!").is_err());
        let e = decode_key("CSRF_KEY", "short").unwrap_err().to_string();
        assert!(e.contains("CSRF_KEY") && !e.contains("short"));
    }
}

#[cfg(test)]
mod production_tests {
    use super::*;

    fn production() -> Settings {
        Settings {
            database_url: "postgres://app@db/vestibule".into(),
            bind_addr: "0.0.0.0:8080".into(),
            app_env: AppEnv::Production,
            app_origins: vec!["https://waitlist.example.com".into()],
            hmac_key: vec![1; 32],
            csrf_key: vec![2; 32],
            clerk_secret_key: format!("sk_live_{}", "x".repeat(40)),
            clerk_api_url: "https://api.clerk.com".into(),
            clerk_jwt_key: None,
            clerk_authorized_parties: vec!["https://waitlist.example.com".into()],
            clerk_publishable_key: Some("pk_live_x".into()),
            identity_dev_url: None,
            static_dir: None,
            signup_rate_per_minute: 30,
            redeem_failures_per_15min: 10,
            trusted_proxies: vec![],
            db_pool_size: 16,
            metrics_addr: None,
            integrations: IntegrationSettings::default(),
            secrets_keys: crate::secrets::SecretsKeys::parse("k1:AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM=")
                .unwrap(),
        }
    }

    fn refused(change: impl FnOnce(&mut Settings), mentions: &str) {
        let mut s = production();
        change(&mut s);
        let e = s.validate().expect_err("production must refuse this").to_string();
        assert!(e.contains(mentions), "{e}");
    }

    #[test]
    fn a_sound_production_configuration_starts() {
        production().validate().unwrap();
    }

    #[test]
    fn production_refuses_the_local_identity_stand_in() {
        refused(|s| s.clerk_api_url = "http://127.0.0.1:8081".into(), "CLERK_API_URL");
        refused(|s| s.clerk_api_url = "https://localhost:8081".into(), "CLERK_API_URL");
        refused(|s| s.identity_dev_url = Some("https://id.example.com".into()), "IDENTITY_DEV_URL");
        refused(|s| s.clerk_secret_key = "sk_test_short".into(), "CLERK_SECRET_KEY");
    }

    #[test]
    fn production_refuses_plain_http_origins() {
        refused(|s| s.app_origins.push("http://waitlist.example.com".into()), "APP_ORIGINS");
    }

    #[test]
    fn every_environment_refuses_short_or_shared_keys() {
        refused(|s| s.csrf_key = vec![2; 31], "32 bytes");
        refused(|s| s.csrf_key = s.hmac_key.clone(), "differ");
        let mut dev = production();
        dev.app_env = AppEnv::Development;
        dev.hmac_key = vec![1; 8];
        assert!(dev.validate().is_err());
    }

    #[test]
    fn production_refuses_loopback_webhooks_and_a_short_retry_schedule() {
        refused(|s| s.integrations.allow_loopback = true, "WEBHOOK_ALLOW_LOOPBACK");
        refused(|s| s.integrations.backoff_scale = 0.01, "OUTBOX_BACKOFF_SCALE");
    }

    #[test]
    fn production_needs_the_secrets_keyring_and_no_key_doubles_as_another() {
        refused(|s| s.secrets_keys = crate::secrets::SecretsKeys::default(), "SECRETS_KEYS");
        let binding = crate::secrets::SecretsKeys::parse("k1:AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=").unwrap();
        refused(|s| s.secrets_keys = binding, "SECRETS_KEYS must differ");
        let mut dev = production();
        dev.app_env = AppEnv::Development;
        dev.secrets_keys = crate::secrets::SecretsKeys::default();
        dev.validate().expect("development may seal the old way");
    }

    #[test]
    fn production_needs_authorized_parties() {
        refused(|s| s.clerk_authorized_parties.clear(), "CLERK_AUTHORIZED_PARTIES");
    }
}
