/**
 * The hosted customer portal's own paths: where a sign-in link may send its customer after
 * opening the session. Anything else (another site, `//host`, a backslash some browsers read as a
 * slash, control characters) is refused, so a link can never redirect off this site.
 */
const portalPathPattern = /^\/portal(?:[/?#][\x21-\x7e]*)?$/;

/** `path` when it is a path of the portal on this site, else null. */
export function portalPath(path: string): string | null {
  if (!portalPathPattern.test(path) || path.includes('\\') || path.includes('//')) return null;
  // The portal's own paths normalize to themselves: no `..` climbing out of /portal.
  const resolved = new URL(path, 'https://portal.invalid');
  if (resolved.origin !== 'https://portal.invalid') return null;
  if (resolved.pathname !== '/portal' && !resolved.pathname.startsWith('/portal/')) return null;
  return path;
}
