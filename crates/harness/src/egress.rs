//! Where a model that someone else names may be reached from a server of ours. A server that
//! plays attempts against a caller's model (`POST /v1/rollouts`) would otherwise be a tool for
//! reaching what only it can reach: the manager's own routes, a trajectory buffer on
//! loopback, a cloud's metadata service. So: the operator lists the model endpoints callers may
//! name; without a list, a caller may name only hosts whose every address is public (no
//! loopback, private, link-local, shared, multicast or reserved range), checked where the
//! name is resolved, at each connection, so a name that changes its address later is caught
//! too. Redirects are never followed, by any model client (see `openai`).

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

/// The model endpoints callers may name, as the operator set them.
#[derive(Debug, Clone, Default)]
pub struct Egress {
    allowed: Vec<Url>,
}

/// A base URL as it is compared: scheme, host, port and path without a trailing `/`.
pub(crate) fn normal(url: &Url) -> String {
    let port = url.port_or_known_default().map(|p| format!(":{p}")).unwrap_or_default();
    format!("{}://{}{port}{}", url.scheme(), url.host_str().unwrap_or(""), url.path().trim_end_matches('/'))
}

/// Parses a model base URL: http or https, a host, no credentials, query or fragment.
pub fn parse_endpoint(text: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("{text:?}: only http and https model endpoints are taken"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("{text:?} has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text:?}: a model endpoint carries no credentials, query or fragment"));
    }
    Ok(url)
}

/// Whether an address is one anybody on the internet could reach: not this machine, not a
/// private network, not link-local (cloud metadata), not shared, multicast, documentation or
/// reserved space. IPv4 inside IPv6 (mapped, compatible, NAT64, 6to4) is judged as IPv4.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let s = v6.segments();
            // ::a.b.c.d (compatible), 64:ff9b::/96 (NAT64), 2002::/16 (6to4).
            if s[..6] == [0; 6] && !v6.is_loopback() && !v6.is_unspecified() {
                return is_public_v4(Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8));
            }
            // ::ffff:0:a.b.c.d (IPv4-translated) and 64:ff9b::/96 (NAT64) carry the IPv4 last.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || s[..6] == [0, 0, 0, 0, 0xffff, 0] {
                return is_public_v4(Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8));
            }
            // 64:ff9b:1::/48, local-use NAT64: a gateway of this network's, to any IPv4 of it.
            if s[..3] == [0x64, 0xff9b, 1] {
                return false;
            }
            if s[0] == 0x2002 {
                return is_public_v4(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                // fc00::/7 unique local, fe80::/10 link-local, fec0::/10 site-local (old)
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] & 0xffc0) == 0xfec0
                // 2001:db8::/32 documentation, 100::/64 discard
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || s[..4] == [0x100, 0, 0, 0])
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let o = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || o[0] == 0
        // 100.64.0.0/10 shared (carrier NAT), 192.0.0.0/24 protocol assignments,
        // 198.18.0.0/15 benchmarking, 240.0.0.0/4 reserved
        || (o[0] == 100 && (o[1] & 0xc0) == 64)
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)
        || (o[0] == 198 && (o[1] & 0xfe) == 18)
        || o[0] >= 240)
}

impl Egress {
    /// The endpoints the operator allows (base URLs, as callers name them).
    pub fn new(allowed: &[String]) -> Result<Egress, String> {
        Ok(Egress { allowed: allowed.iter().map(|a| parse_endpoint(a)).collect::<Result<_, _>>()? })
    }

    pub fn is_listed(&self, url: &Url) -> bool {
        let n = normal(url);
        self.allowed.iter().any(|a| normal(a) == n)
    }

    /// Whether a caller may name `base_url`: one the operator listed, or (when the operator
    /// listed none) a host that is not an address outside the public internet. A host name is
    /// judged again when it is resolved (`resolver`).
    pub fn check(&self, base_url: &str) -> Result<Url, String> {
        let url = parse_endpoint(base_url)?;
        if self.is_listed(&url) {
            return Ok(url);
        }
        if !self.allowed.is_empty() {
            return Err(format!("model endpoint {base_url} is not one this server allows (the operator lists them with --model-endpoint)"));
        }
        // The URL parser writes every IP literal (octal, decimal, IPv6) in its usual form.
        let host = url.host_str().unwrap_or("");
        let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok();
        if literal.is_some_and(|ip| !is_public(ip)) || url.host_str().is_some_and(|h| h.eq_ignore_ascii_case("localhost") || h.ends_with(".localhost")) {
            return Err(format!("model endpoint {base_url} is not on the public internet: the operator may allow it with --model-endpoint"));
        }
        Ok(url)
    }

    /// A resolver that gives the listed hosts any address and every other host only public
    /// ones (a name with none is refused), for the client that calls these endpoints.
    pub fn resolver(&self) -> Arc<PublicOnly> {
        let listed = self.allowed.iter().filter_map(|u| u.host_str().map(str::to_ascii_lowercase)).collect();
        Arc::new(PublicOnly { listed })
    }
}

/// Resolves names to their public addresses only, except the hosts the operator listed.
pub struct PublicOnly {
    listed: BTreeSet<String>,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let listed = self.listed.contains(&host);
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found.iter().copied().filter(|a| listed || is_public(a.ip())).collect();
            if kept.is_empty() {
                let why = format!("{host} has no public address (the operator may allow it with --model-endpoint)");
                return Err(Box::new(std::io::Error::new(std::io::ErrorKind::PermissionDenied, why)) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "::ffff:0:7f00:1",
            "::ffff:0:a9fe:a9fe",
            "64:ff9b:1::7f00:1",
            "64:ff9b:1::808:808",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "::ffff:0:808:808", "64:ff9b::808:808"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn callers_name_listed_endpoints_or_public_hosts() {
        let open = Egress::default();
        assert!(open.check("https://api.example.com/v1").is_ok());
        for refused in [
            "http://127.0.0.1:8080/v1",
            "http://[::1]:8000/v1",
            "http://169.254.169.254/latest",
            "http://localhost:9000/v1",
            "http://10.0.0.5/v1",
            "file:///etc/passwd",
            "http://user:pw@api.example.com/v1",
            "http://api.example.com/v1?x=1",
        ] {
            assert!(open.check(refused).is_err(), "{refused}");
        }
        let listed = Egress::new(&["http://127.0.0.1:8000/v1/".into()]).unwrap();
        assert!(listed.check("http://127.0.0.1:8000/v1").is_ok(), "listed, trailing slash or not");
        assert!(listed.check("http://127.0.0.1:8001/v1").is_err(), "another port");
        assert!(listed.check("http://127.0.0.1:8000/v1/batch").is_err(), "another path");
        assert!(listed.check("https://api.example.com/v1").is_err(), "with a list, only what it names");
    }

    #[tokio::test]
    async fn names_that_resolve_to_private_addresses_are_refused_unless_listed() {
        let open = Egress::default().resolver();
        let name: Name = "localhost".parse().unwrap();
        assert!(open.resolve(name).await.is_err());
        let listed = Egress::new(&["http://localhost:8000/v1".into()]).unwrap().resolver();
        assert!(listed.resolve("localhost".parse().unwrap()).await.is_ok());
    }
}
