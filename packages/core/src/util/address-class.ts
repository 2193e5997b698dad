import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * Classifies IP addresses for the SSRF guard with ipaddr.js, which keeps the IANA special-purpose
 * registries (private, loopback, link-local, CGNAT, documentation, benchmarking, AMT, AS112, ORCHID,
 * NAT64, 6to4, Teredo, site-local, discard, …) up to date, rather than a hand-kept list that misses
 * ranges. Only what ipaddr.js calls `unicast` (a public unicast address) is public.
 *
 * An IPv6 address that carries an IPv4 address is judged by that IPv4 address, because that is
 * where the packets end up: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, SIIT
 * `::ffff:0:a.b.c.d`, 6to4 `2002:aabb:ccdd::/48` and the NAT64 well-known prefix `64:ff9b::/96`
 * (DNS64 networks synthesize it for every IPv4-only host, so refusing it would break them).
 * Prefixes that hide or pick the IPv4 address by local policy are refused outright: NAT64
 * local-use `64:ff9b:1::/48` and Teredo `2001::/32`.
 */
type Verdict = 'public' | 'private';

/** The IPv4 address an IPv6 address embeds in its low 32 bits. */
function low32(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(12, 16));
}

function classifyV4(address: ipaddr.IPv4): Verdict {
  return address.range() === 'unicast' ? 'public' : 'private';
}

function classifyV6(address: ipaddr.IPv6): Verdict {
  const bytes = address.toByteArray();
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return classifyV4(low32(bytes));
    case 'rfc6052':
      // The well-known /96 carries the IPv4 address in the low 32 bits; the local-use /48 is refused.
      return address.match(ipaddr.IPv6.parse('64:ff9b::'), 96) ? classifyV4(low32(bytes)) : 'private';
    case '6to4':
      return classifyV4(new ipaddr.IPv4(bytes.slice(2, 6)));
    case 'unicast':
      // IPv4-compatible (deprecated, RFC 4291 2.5.5.1): 96 zero bits, then the IPv4 address.
      if (bytes.slice(0, 12).every((b) => b === 0)) return classifyV4(low32(bytes));
      return 'public';
    default:
      return 'private';
  }
}

/**
 * True only for a public unicast address (IPv4, or IPv6 whose embedded IPv4 address, if any, is
 * public). Anything that is not an IP address in Node's canonical forms answers false (fail closed).
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const parsed = ipaddr.parse(address);
  return (parsed.kind() === 'ipv4' ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6)) === 'public';
}

/**
 * True for every address that is not public: loopback, private, link-local, carrier-grade NAT,
 * multicast, documentation, reserved, and IPv6 addresses embedding such an IPv4 address. See
 * {@link isPublicAddress}.
 */
export function isPrivateAddress(address: string): boolean {
  return !isPublicAddress(address);
}
