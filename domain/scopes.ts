/**
 * What an organization access token may do, as Polar names it: `<resource>:read` and
 * `<resource>:write`, where write also grants read.
 */
export const scopeResources = [
  'organizations',
  'organization_access_tokens',
  'products',
  'files',
  'custom_fields',
  'discounts',
  'checkout_links',
  'checkouts',
  'customers',
  'customer_sessions',
  'customer_meters',
  'benefits',
  'meters',
  'events',
  'orders',
  'subscriptions',
  'refunds',
  'payments',
  'license_keys',
  'webhooks',
  'metrics',
] as const;
export type ScopeResource = (typeof scopeResources)[number];

export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export const allScopes: Scope[] = scopeResources.flatMap((resource) => [
  `${resource}:read` as const,
  `${resource}:write` as const,
]);

export function isScope(value: string): value is Scope {
  return (allScopes as string[]).includes(value);
}

/** True when `granted` allows `wanted`; a write scope covers the read of the same resource. */
export function grants(granted: ReadonlySet<string>, wanted: Scope): boolean {
  if (granted.has(wanted)) return true;
  const [resource, action] = wanted.split(':');
  return action === 'read' && granted.has(`${resource}:write`);
}
