//! The client address used for rate limits. By default the socket peer is the client;
//! `X-Forwarded-For` is believed only when the peer is one of `TRUSTED_PROXIES`, and
//! then the rightmost address that is not itself a trusted proxy is the client (the
//! leftmost entries are whatever the client chose to send).

use actix_web::HttpRequest;
use std::net::IpAddr;

pub fn client_addr(req: &HttpRequest, trusted: &[IpAddr]) -> Option<IpAddr> {
    let peer = req.peer_addr()?.ip();
    if !trusted.contains(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    Some(forwarded.into_iter().rev().find(|ip| !trusted.contains(ip)).unwrap_or(peer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn req(peer: &str, xff: Option<&str>) -> HttpRequest {
        let mut r = TestRequest::default().peer_addr(format!("{peer}:1234").parse().unwrap());
        if let Some(x) = xff {
            r = r.insert_header(("x-forwarded-for", x));
        }
        r.to_http_request()
    }

    #[test]
    fn ignores_forwarded_for_from_untrusted_peers() {
        let ip = client_addr(&req("10.0.0.9", Some("1.2.3.4")), &[]).unwrap();
        assert_eq!(ip.to_string(), "10.0.0.9");
    }

    #[test]
    fn takes_rightmost_untrusted_hop_behind_a_trusted_proxy() {
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let ip = client_addr(&req("10.0.0.1", Some("6.6.6.6, 1.2.3.4, 10.0.0.1")), &[proxy]).unwrap();
        assert_eq!(ip.to_string(), "1.2.3.4");
        let ip = client_addr(&req("10.0.0.1", None), &[proxy]).unwrap();
        assert_eq!(ip.to_string(), "10.0.0.1");
    }
}
