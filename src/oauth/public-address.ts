import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a client metadata document may be fetched from when this server is not on loopback:
 * only public unicast ones. A client names any URL it likes as its client_id, so without this rule it
 * could have the server read its own cloud's metadata service (169.254.169.254), an admin port on
 * 127.0.0.1, or a neighbour on the private network, and learn from the refusal what answered.
 */

/** IPv4 ranges of IANA's special-purpose registry that reach no public host (RFC 6890 and its updates). */
const SPECIAL_IPV4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT, the provider's own network
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, where cloud metadata services answer
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

/**
 * IPv6 is allowed only in global unicast (2000::/3), less the parts of it that reach no public host or
 * carry an IPv4 address of any kind inside (Teredo, 6to4): everything else (loopback, unspecified,
 * IPv4-compatible, NAT64's 64:ff9b::/96, unique-local fc00::/7, link-local fe80::/10, multicast) is outside 2000::/3.
 */
const GLOBAL_IPV6: Array<[string, number]> = [['2000::', 3]];
const SPECIAL_IPV6: Array<[string, number]> = [
  ['2001::', 23], // protocol assignments, Teredo among them
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['3fff::', 20], // documentation
];

function blockList(ranges: Array<[string, number]>, type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, type);
  return list;
}

const special4 = blockList(SPECIAL_IPV4, 'ipv4');
const global6 = blockList(GLOBAL_IPV6, 'ipv6');
const special6 = blockList(SPECIAL_IPV6, 'ipv6');

/** An IPv6 address in its one canonical spelling (the URL standard's), without a zone: `::ffff:127.0.0.1` is `::ffff:7f00:1`. */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address.split('%')[0]}]`).hostname.slice(1, -1);
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, however written) stands for, else undefined. */
function mappedIpv4(canonical: string): string | undefined {
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!match) return undefined;
  const [high, low] = [Number.parseInt(match[1], 16), Number.parseInt(match[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether `address` (an IP address as DNS or a URL gives it) is a public unicast address. Anything unreadable is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.split('%')[0]);
  if (family === 4) return !special4.check(address, 'ipv4');
  if (family !== 6) return false;
  const canonical = canonicalIpv6(address);
  const ipv4 = mappedIpv4(canonical);
  if (ipv4 !== undefined) return isPublicAddress(ipv4);
  return global6.check(canonical, 'ipv6') && !special6.check(canonical, 'ipv6');
}
