//! Which webhook URLs the server may call (SSRF). Production: `https` only, and the host
//! must resolve to public addresses only — never loopback, private, link-local, shared,
//! unspecified, multicast or documentation ranges. `WEBHOOK_ALLOW_LOOPBACK`
//! (development) also allows `http` and loopback, for a receiver in a test. The rule is
//! checked when an endpoint is saved and again at every delivery, where the resolver
//! ([`PublicOnly`]) refuses a name that resolves to a forbidden address, so a DNS change
//! after saving does not open a way in. Redirects are never followed.

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("not an absolute http(s) URL without credentials")]
    Invalid,
    #[error("a target the server may not call")]
    Refused,
}

/// Checks a webhook URL's shape and, for an address literal or a loopback name, its host.
pub fn check_url(url: &str, allow_loopback: bool) -> Result<Url, UrlError> {
    if !names_its_host(url) {
        return Err(UrlError::Invalid);
    }
    let parsed = Url::parse(url).map_err(|_| UrlError::Invalid)?;
    if !matches!(parsed.scheme(), "https" | "http") || !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlError::Invalid);
    }
    let loopback = match parsed.host() {
        None => return Err(UrlError::Invalid),
        Some(url::Host::Domain(d)) => {
            let d = d.to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => {
            if !allowed(IpAddr::V4(ip), allow_loopback) {
                return Err(UrlError::Refused);
            }
            ip.is_loopback()
        }
        Some(url::Host::Ipv6(ip)) => {
            if !allowed(IpAddr::V6(ip), allow_loopback) {
                return Err(UrlError::Refused);
            }
            ip.is_loopback()
        }
    };
    if loopback && !allow_loopback {
        return Err(UrlError::Refused);
    }
    if parsed.scheme() == "http" && !(allow_loopback && loopback) {
        return Err(UrlError::Refused);
    }
    Ok(parsed)
}

/// The URL as written names its host right after `scheme://`. WHATWG parsing repairs
/// `https:///x`, `https:/x` and `https:\\x` into `https://x/`; an endpoint is saved as
/// the owner wrote it or not at all, never as a guess.
fn names_its_host(url: &str) -> bool {
    url.split_once(':').is_some_and(|(_, rest)| {
        rest.strip_prefix("//").is_some_and(|host| !host.is_empty() && !host.starts_with(['/', '\\']))
    })
}

/// Whether the server may connect to `ip`.
pub fn allowed(ip: IpAddr, allow_loopback: bool) -> bool {
    match ip {
        IpAddr::V4(v4) => v4_allowed(v4, allow_loopback),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4_allowed(v4, allow_loopback),
            None => v6_allowed(v6, allow_loopback),
        },
    }
}

fn v4_allowed(ip: Ipv4Addr, allow_loopback: bool) -> bool {
    if ip.is_loopback() {
        return allow_loopback;
    }
    let [a, b, ..] = ip.octets();
    let shared = a == 100 && (64..128).contains(&b); // 100.64.0.0/10
    let reserved = a >= 240 || a == 0;
    !(ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || shared
        || reserved
        || (a == 192 && b == 0 && ip.octets()[2] == 0)
        || (a == 198 && (b == 18 || b == 19)))
}

fn v6_allowed(ip: Ipv6Addr, allow_loopback: bool) -> bool {
    if ip.is_loopback() {
        return allow_loopback;
    }
    let seg = ip.segments();
    let first = seg[0];
    let unique_local = first & 0xfe00 == 0xfc00;
    let link_local = first & 0xffc0 == 0xfe80;
    // fec0::/10, deprecated site-local: still routed inside some networks.
    let site_local = first & 0xffc0 == 0xfec0;
    let documentation = first == 0x2001 && seg[1] == 0x0db8;
    // 64:ff9b::/96 (well-known NAT64 prefix) and 64:ff9b:1::/48 (local-use NAT64): both
    // reach IPv4 addresses, private ones included, through a translator.
    let nat64 = first == 0x0064 && seg[1] == 0xff9b && (seg[2..6] == [0; 4] || seg[2] == 0x0001);
    // ::/96, the deprecated IPv4-compatible addresses (`::10.0.0.1`).
    let ipv4_compatible = seg[..6] == [0; 6];
    // 100::/64, discard-only.
    let discard = first == 0x0100 && seg[1..4] == [0; 3];
    !(ip.is_unspecified()
        || ip.is_multicast()
        || unique_local
        || link_local
        || site_local
        || documentation
        || nat64
        || ipv4_compatible
        || discard)
}

/// The error a refused resolution carries, so the worker can say `refused_target`.
#[derive(Debug, thiserror::Error)]
#[error("the name resolves to an address the server may not call")]
pub struct RefusedTarget;

/// A resolver that answers only when every address of the name is allowed.
pub struct PublicOnly {
    pub allow_loopback: bool,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_loopback = self.allow_loopback;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            if addrs.is_empty() || addrs.iter().any(|a| !allowed(a.ip(), allow_loopback)) {
                return Err(Box::new(RefusedTarget) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_refuses_internal_targets() {
        for url in [
            "http://example.com/hook",
            "https://127.0.0.1/hook",
            "https://localhost:8443/hook",
            "https://api.localhost/hook",
            "https://10.1.2.3/hook",
            "https://172.16.0.1/hook",
            "https://192.168.1.1/hook",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/hook",
            "https://0.0.0.0/hook",
            "https://[::1]/hook",
            "https://[fd00::1]/hook",
            "https://[fe80::1]/hook",
            "https://[::ffff:10.0.0.1]/hook",
            "https://[::ffff:127.0.0.1]/hook",
        ] {
            assert_eq!(check_url(url, false).err(), Some(UrlError::Refused), "{url}");
        }
        for url in [
            "ftp://example.com/x",
            "https://user:pw@example.com/x",
            "not a url",
            "https:///x",
            "https:/x",
            "https:\\\\x/hook",
        ] {
            assert_eq!(check_url(url, false).err(), Some(UrlError::Invalid), "{url}");
        }
        assert!(check_url("https://hooks.example.com/vestibule?x=1", false).is_ok());
        assert!(check_url("https://93.184.216.34/hook", false).is_ok());
    }

    /// Issue 26 item 8 (failed before: each of these was allowed).
    #[test]
    fn the_special_purpose_v6_ranges_are_refused() {
        for ip in [
            "::a00:1",
            "::10.0.0.1",
            "::8.8.8.8",
            "fec0::1",
            "feff::1",
            "64:ff9b:1::a00:1",
            "64:ff9b:1:ffff::1",
            "64:ff9b::10.0.0.1",
            "100::1",
            "100::ffff:ffff:ffff:ffff",
        ] {
            assert!(!allowed(ip.parse().unwrap(), false), "{ip}");
            assert_eq!(check_url(&format!("https://[{ip}]/hook"), false).err(), Some(UrlError::Refused), "{ip}");
        }
        for ip in ["2606:4700::1111", "64:ff9b:2::1", "100:0:0:1::1"] {
            assert!(allowed(ip.parse().unwrap(), false), "{ip}");
        }
    }

    #[test]
    fn the_development_setting_allows_loopback_only() {
        assert!(check_url("http://127.0.0.1:9000/hook", true).is_ok());
        assert!(check_url("http://localhost:9000/hook", true).is_ok());
        assert_eq!(check_url("https://10.0.0.1/hook", true).err(), Some(UrlError::Refused));
        assert_eq!(check_url("http://example.com/hook", true).err(), Some(UrlError::Refused));
    }
}
