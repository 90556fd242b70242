//! The two HTTP peers: the Vestibule API (Origin on every request; Bearer token and the
//! session's CSRF token from `GET /api/me` when signed in) and clerk-dev's Backend API
//! (the secret key). One `reqwest::Client` with a large pool serves every task.

use anyhow::{bail, Context};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::net::IpAddr;
use std::time::Duration;

/// True when the URL's host is a loopback name or address.
pub fn is_loopback(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://")) else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.split(':').next().unwrap_or(""),
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

pub fn http_client() -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .pool_max_idle_per_host(2048)
        .pool_idle_timeout(Duration::from_secs(90))
        .timeout(Duration::from_secs(60))
        .redirect(reqwest::redirect::Policy::none())
        .tcp_nodelay(true)
        .build()?)
}

/// A signed-in caller of the API: their bearer token and the session's CSRF token.
#[derive(Debug, Clone)]
pub struct Caller {
    pub token: String,
    pub csrf: String,
}

#[derive(Clone)]
pub struct Api {
    pub http: reqwest::Client,
    pub base: String,
    pub origin: String,
}

impl Api {
    /// A request with the allowed Origin and, when signed in, the token and CSRF token.
    pub fn request(&self, method: Method, path: &str, caller: Option<&Caller>) -> reqwest::RequestBuilder {
        let mut rb = self.http.request(method.clone(), format!("{}{path}", self.base)).header("origin", &self.origin);
        if let Some(c) = caller {
            rb = rb.bearer_auth(&c.token);
            if method != Method::GET {
                rb = rb.header("x-csrf-token", &c.csrf);
            }
        }
        rb
    }

    /// Sends a setup request and insists on `expect`; returns the JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        caller: Option<&Caller>,
        body: Option<&Value>,
        expect: &[u16],
    ) -> anyhow::Result<Value> {
        let mut rb = self.request(method.clone(), path, caller);
        if let Some(b) = body {
            rb = rb.json(b);
        }
        let r = rb.send().await.with_context(|| format!("{method} {path}"))?;
        let status = r.status();
        let value = r.json().await.unwrap_or(Value::Null);
        if !expect.contains(&status.as_u16()) {
            // Error bodies are generic by contract; they carry no personal data.
            bail!("{method} {path} answered {status}: {value}");
        }
        Ok(value)
    }

    /// The CSRF token bound to the caller's session.
    pub async fn csrf(&self, token: &str) -> anyhow::Result<String> {
        let r = self.http.get(format!("{}/api/me", self.base)).bearer_auth(token).send().await?;
        if r.status() != StatusCode::OK {
            bail!("GET /api/me answered {}", r.status());
        }
        let v: Value = r.json().await?;
        v["csrfToken"].as_str().map(str::to_owned).context("csrfToken in /api/me")
    }
}

#[derive(Clone)]
pub struct Identity {
    pub http: reqwest::Client,
    pub base: String,
    pub secret: String,
}

impl Identity {
    async fn backend(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        let r = self.http.post(format!("{}{path}", self.base)).bearer_auth(&self.secret).json(&body).send().await?;
        if r.status() != StatusCode::OK {
            bail!("clerk-dev {path} answered {}", r.status());
        }
        Ok(r.json().await?)
    }

    /// A user whose one email is verified; returns the user id.
    pub async fn create_user(&self, email: &str) -> anyhow::Result<String> {
        let v = self.backend("/v1/users", json!({"email_address": [email], "skip_password_requirement": true})).await?;
        v["id"].as_str().map(str::to_owned).context("user id")
    }

    /// An open session for the user and a token for it (clerk-dev's --token-ttl decides
    /// its lifetime; the benchmark starts clerk-dev with an hour).
    pub async fn session_token(&self, user_id: &str) -> anyhow::Result<String> {
        let session = self.backend("/v1/sessions", json!({"user_id": user_id})).await?;
        let sid = session["id"].as_str().context("session id")?;
        let token = self.backend(&format!("/v1/sessions/{sid}/tokens"), json!({})).await?;
        token["jwt"].as_str().map(str::to_owned).context("jwt")
    }

    /// A new user with a signed-in session, ready to call the API.
    pub async fn caller(&self, api: &Api, email: &str) -> anyhow::Result<Caller> {
        let user_id = self.create_user(email).await?;
        self.caller_for(api, user_id).await
    }

    pub async fn caller_for(&self, api: &Api, user_id: String) -> anyhow::Result<Caller> {
        let token = self.session_token(&user_id).await?;
        let csrf = api.csrf(&token).await?;
        Ok(Caller { token, csrf })
    }
}

#[cfg(test)]
mod tests {
    use super::is_loopback;

    #[test]
    fn only_loopback_hosts_pass() {
        for u in ["http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:9/x", "http://127.3.4.5"] {
            assert!(is_loopback(u), "{u}");
        }
        for u in ["http://10.0.0.1", "https://example.com", "127.0.0.1:80", "http://0.0.0.0:80"] {
            assert!(!is_loopback(u), "{u}");
        }
    }
}
