//! The client address used for rate limits. By default the socket peer is the client;
//! `X-Forwarded-For` is believed only when the peer is one of `TRUSTED_PROXIES`, and
//! then the rightmost address that is not itself a trusted proxy is the client (the
//! leftmost entries are whatever the client chose to send).
//!
//! Addresses are compared in canonical form on both sides (`IpAddr::to_canonical`): an
//! IPv4 peer seen through a dual-stack listener arrives as `::ffff:a.b.c.d` and must
//! still match an IPv4 entry of `TRUSTED_PROXIES`, or every client would share the
//! proxy's bucket. The address a limit counts under ([`client_addr`]) is the IPv4
//! address, or for IPv6 the /64 network the address lies in (its first address): a
//! subscriber is usually given a whole /64, so keying by the full address would hand one
//! client 2^64 fresh buckets.

use actix_web::HttpRequest;
use std::net::{IpAddr, Ipv6Addr};

/// The address the request's per-address limits count under (see the module doc).
pub fn client_addr(req: &HttpRequest, trusted: &[IpAddr]) -> Option<IpAddr> {
    client_ip(req, trusted).map(limit_key)
}

/// An IPv4 address as it is; an IPv6 address reduced to its /64 network.
pub fn limit_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !((1u128 << 64) - 1))),
    }
}

/// The request's client address, canonical.
pub fn client_ip(req: &HttpRequest, trusted: &[IpAddr]) -> Option<IpAddr> {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|t| t.to_canonical() == *ip);
    let peer = req.peer_addr()?.ip().to_canonical();
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|s| s.trim().parse::<IpAddr>().ok())
        .map(|ip| ip.to_canonical())
        .collect();
    Some(forwarded.into_iter().rev().find(|ip| !is_trusted(ip)).unwrap_or(peer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn req(peer: &str, xff: Option<&str>) -> HttpRequest {
        let peer: IpAddr = peer.parse().unwrap();
        let mut r = TestRequest::default().peer_addr(std::net::SocketAddr::new(peer, 1234));
        if let Some(x) = xff {
            r = r.insert_header(("x-forwarded-for", x));
        }
        r.to_http_request()
    }

    fn ips(list: &[&str]) -> Vec<IpAddr> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    fn key(peer: &str, xff: Option<&str>, trusted: &[&str]) -> String {
        client_addr(&req(peer, xff), &ips(trusted)).unwrap().to_string()
    }

    #[test]
    fn ignores_forwarded_for_from_untrusted_peers() {
        assert_eq!(key("10.0.0.9", Some("1.2.3.4"), &[]), "10.0.0.9");
    }

    #[test]
    fn takes_rightmost_untrusted_hop_behind_a_trusted_proxy() {
        assert_eq!(key("10.0.0.1", Some("6.6.6.6, 1.2.3.4, 10.0.0.1"), &["10.0.0.1"]), "1.2.3.4");
        assert_eq!(key("10.0.0.1", None, &["10.0.0.1"]), "10.0.0.1");
    }

    #[test]
    fn an_ipv4_proxy_seen_through_a_dual_stack_listener_is_still_trusted() {
        // The peer arrives as ::ffff:10.0.0.1; TRUSTED_PROXIES says 10.0.0.1.
        assert_eq!(key("::ffff:10.0.0.1", Some("1.2.3.4"), &["10.0.0.1"]), "1.2.3.4");
        // And the other way round: the list names the mapped form, the peer is plain IPv4.
        assert_eq!(key("10.0.0.1", Some("1.2.3.4"), &["::ffff:10.0.0.1"]), "1.2.3.4");
        // A mapped client address, in the header or as the peer, is keyed as IPv4.
        assert_eq!(key("10.0.0.1", Some("::ffff:1.2.3.4"), &["10.0.0.1"]), "1.2.3.4");
        assert_eq!(key("::ffff:1.2.3.4", None, &[]), "1.2.3.4");
        // A mapped hop that is itself the trusted proxy is skipped like the plain one.
        assert_eq!(key("10.0.0.1", Some("1.2.3.4, ::ffff:10.0.0.1"), &["10.0.0.1"]), "1.2.3.4");
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_slash_64() {
        let a = key("2001:db8:1:2::a", None, &[]);
        let b = key("2001:db8:1:2:ffff:ffff:ffff:ffff", None, &[]);
        let other = key("2001:db8:1:3::a", None, &[]);
        assert_eq!(a, "2001:db8:1:2::");
        assert_eq!(a, b);
        assert_ne!(a, other);
        // Through a trusted proxy too.
        assert_eq!(key("10.0.0.1", Some("2001:db8:1:2::beef"), &["10.0.0.1"]), a);
    }
}
