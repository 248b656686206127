import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a production server must never post to on a seller's behalf (SSRF): loopback,
 * private networks, link-local (cloud metadata services), carrier-grade NAT, documentation,
 * multicast and the reserved ranges.
 */
const internalIpv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  internalIpv4.addSubnet(network, prefix, 'ipv4');
}
const internalIpv6 = new BlockList();
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible addresses.
  ['::', 96],
  // NAT64 for local use only (RFC 8215): what it reaches is the operator's business.
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  internalIpv6.addSubnet(network, prefix, 'ipv6');
}

/** An IPv6 address (valid, per isIP) as its eight 16-bit groups. */
function ipv6Groups(address: string): number[] {
  // A dotted IPv4 tail (`::ffff:192.0.2.1`) is the last two groups.
  const hex = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const groupsOf = (part: string | undefined) =>
    part ? part.split(':').map((group) => Number.parseInt(group, 16)) : [];
  const [head, tail] = hex.split('::');
  const left = groupsOf(head);
  const right = groupsOf(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

const ipv4Of = (high: number, low: number) =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 addresses an IPv6 address stands for, which a translator or tunnel would reach:
 * IPv4-mapped (`::ffff:0:0/96`) and IPv4-translated (`::ffff:0:0:0/96`), NAT64's well-known
 * prefix (`64:ff9b::/96`), 6to4 (`2002::/16`, bits 16–47) and Teredo (`2001::/32`: the server
 * in bits 32–63, the client inverted in the last 32).
 */
function embeddedIpv4(groups: number[]): string[] {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const zeros = (...values: number[]) => values.every((value) => value === 0);
  if (zeros(g0, g1, g2, g3, g4) && g5 === 0xffff) return [ipv4Of(g6, g7)];
  if (zeros(g0, g1, g2, g3, g5) && g4 === 0xffff) return [ipv4Of(g6, g7)];
  if (g0 === 0x64 && g1 === 0xff9b && zeros(g2, g3, g4, g5)) return [ipv4Of(g6, g7)];
  if (g0 === 0x2002) return [ipv4Of(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff)];
  return [];
}

/**
 * True for an address a production delivery refuses; an IPv6 address also when an IPv4
 * address it carries is internal. Anything that is not an IP address is refused.
 */
export function isInternalAddress(address: string): boolean {
  // A zone (`fe80::1%eth0`) names an interface, not another address.
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return internalIpv4.check(bare, 'ipv4');
  if (family !== 6) return true;
  return (
    internalIpv6.check(bare, 'ipv6') ||
    embeddedIpv4(ipv6Groups(bare)).some((ipv4) => internalIpv4.check(ipv4, 'ipv4'))
  );
}

export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
}

const refusal = (host: string, address: string) =>
  new RefusedAddressError(`${host} resolves to ${address}, an internal address: refused`);

/** A literal IP host that is internal; `[::1]` style hosts are unwrapped first. */
export function refuseInternalLiteral(hostname: string) {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) && isInternalAddress(host)) throw refusal(hostname, host);
}

/**
 * The DNS lookup of a guarded connection: the host is resolved once and the connection goes to
 * the address checked, so a name cannot resolve to a public address for the check and to an
 * internal one for the connection (DNS rebinding).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find(({ address }) => isInternalAddress(address));
    if (refused) return callback(refusal(hostname, refused.address), '', 0);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
    return callback(null, first.address, first.family);
  });
};
