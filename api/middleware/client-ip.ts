import { BlockList, isIP } from 'node:net';
import type { Middleware } from 'koa';
import type { TrustedProxies } from '../../config/env.ts';

/** `::ffff:192.0.2.1` (an IPv4 peer on a dual-stack socket) as `192.0.2.1`. */
const unmapped = (address: string) =>
  // Most peers are plain IPv4 or IPv6: no regular expression for them, per request.
  address.charCodeAt(0) === 58 // ':'
    ? address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1')
    : address;

/** One X-Forwarded-For entry as an address, or null: ports and brackets some proxies add go. */
function forwardedAddress(entry: string): string | null {
  const trimmed = entry.trim();
  const address =
    /^\[([^\]]+)\](?::\d+)?$/.exec(trimmed)?.[1] ??
    /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(trimmed)?.[1] ??
    trimmed;
  return isIP(address) ? unmapped(address) : null;
}

/**
 * The client's address: the connection's peer, unless the peer is a trusted proxy, which may
 * name the address it got the request from in X-Forwarded-For (appended on the right). Walking
 * from the right, each trusted hop's word is taken for the next; the first untrusted address,
 * or the last one a trusted hop named, is the client. Without trusted proxies the header is
 * ignored: any client can write it.
 */
export function clientAddress(
  trusted: TrustedProxies | undefined,
  peer: string,
  forwardedFor: string,
): string {
  let client = unmapped(peer);
  if (!trusted || !forwardedFor) return client;
  const isProxy = proxyTest(trusted);
  // Nearest first: what the peer named, then what that hop named, and so on.
  const named = forwardedFor.split(',').map(forwardedAddress).reverse();
  for (const [hop, address] of named.entries()) {
    // A trusted hop that named no valid address leaves nothing further to believe.
    if (!isProxy(client, hop) || !address) break;
    client = address;
  }
  return client;
}

/** Whether `address`, `hop` steps away (0: the peer), is a proxy whose header is believed. */
function proxyTest(trusted: TrustedProxies): (address: string, hop: number) => boolean {
  if ('hops' in trusted) return (_address, hop) => hop < trusted.hops;
  const proxies = new BlockList();
  for (const { address, prefix, family } of trusted.networks) {
    proxies.addSubnet(address, prefix, family);
  }
  return (address) => proxies.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Sets `ctx.ip` (what rate limits and sessions record) per TOLLGATE_TRUSTED_PROXIES; Koa's own
 * `proxy` option stays off, so nothing else reads X-Forwarded-* headers either.
 */
export function resolveClientIp(trusted: TrustedProxies | undefined): Middleware {
  return (ctx, next) => {
    const peer = ctx.req.socket.remoteAddress ?? '';
    ctx.request.ip = clientAddress(trusted, peer, ctx.get('x-forwarded-for'));
    return next();
  };
}
