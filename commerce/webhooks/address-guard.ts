import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a production server must never post to on a seller's behalf (SSRF): loopback,
 * private networks, link-local (cloud metadata services), carrier-grade NAT, multicast and the
 * reserved ranges.
 */
const internalAddresses = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  internalAddresses.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  internalAddresses.addSubnet(network, prefix, 'ipv6');
}

/** True for an address a production delivery refuses (IPv4-mapped IPv6 judged as its IPv4). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return internalAddresses.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return internalAddresses.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
