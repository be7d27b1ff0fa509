import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * Who sent a request, for every limit counted per client address: key checks, request bodies,
 * OAuth registrations and sign-in attempts. The socket's address, unless the socket is one of the
 * proxies SVC_TRUST_PROXY lists: then `X-Forwarded-For` is read from its right end, each hop a
 * trusted proxy appended, until the first address no trusted proxy stands for. A header sent by
 * anyone else is not read at all, so no client can name itself another address to pass a limit.
 */
export class ClientAddresses {
  private readonly proxies = new BlockList();
  private readonly any: boolean;

  constructor(trustProxy: readonly string[]) {
    for (const entry of trustProxy) {
      const [address, prefix] = entry.split('/');
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.proxies.addAddress(address, type);
      else this.proxies.addSubnet(address, Number(prefix), type);
    }
    this.any = trustProxy.length > 0;
  }

  /** Whether `address` is a proxy whose X-Forwarded-For is believed. */
  trusted(address: string): boolean {
    if (!this.any) return false;
    const plain = plainAddress(address);
    const family = isIP(plain);
    return family !== 0 && this.proxies.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** The client's address: the socket's, or the one trusted proxies forwarded for. */
  of(req: IncomingMessage): string {
    let address = plainAddress(req.socket.remoteAddress ?? '');
    if (!this.trusted(address)) return address;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((hop) => plainAddress(hop.trim()));
    for (let index = hops.length - 1; index >= 0 && this.trusted(address); index--) {
      if (!isIP(hops[index])) break;
      address = hops[index];
    }
    return address;
  }

  /** What the per-address limits count `req` under: its client's address (`of`), as `share` groups it. */
  shareOf(req: IncomingMessage): string {
    return ClientAddresses.share(this.of(req));
  }

  /**
   * What a per-address limit counts `address` under: an IPv4 address, or the /56 an IPv6 address is
   * in (one subscriber's prefix: its addresses are as many as it likes), as express-rate-limit counts.
   */
  static share(address: string): string {
    if (isIP(address) !== 6) return address;
    const groups = expandIpv6(address);
    return `${groups.slice(0, 3).join(':')}:${groups[3].slice(0, 2)}00::/56`;
  }
}

/** An IPv4 address a dual-stack socket shows as `::ffff:1.2.3.4`, as itself; any other address unchanged. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/** The eight groups of an IPv6 address, four hex digits each (an embedded IPv4 tail as its two). */
function expandIpv6(written: string): string[] {
  const address = written.split('%')[0].replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.map((group) => group.padStart(4, '0').toLowerCase());
}
