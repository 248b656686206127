import { writeFileSync } from 'node:fs';
import { demoAccount, demoDataAllowed, seedDemoData } from '../accounts/demo-account.ts';
import type { Config } from '../config/env.ts';
import { Member, Organization, User } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { allScopes } from '../domain/scopes.ts';
import { createAccessToken } from './access-tokens/service.ts';
import { productCreateInput } from './products/schemas.ts';
import { createProduct } from './products/service.ts';

export const demoOrganizationSlug = 'demo-shop';

/**
 * The demo user's shop, made once on a fresh database: an organization with a monthly plan and
 * a one-time product, and an access token with every scope written to `tokenFile`, so that
 * Polar's SDK can be pointed at the commerce API right away.
 */
export async function seedDemoShop(
  orm: Orm,
  { tokenFile, publicUrl }: { tokenFile: string; publicUrl: string },
) {
  const em = orm.em.fork();
  if (await em.count(Organization, { slug: demoOrganizationSlug })) return;
  const owner = await em.findOneOrFail(User, { email: demoAccount.email });
  const organization = em.create(Organization, { name: 'Demo Shop', slug: demoOrganizationSlug });
  em.create(Member, { organization, user: owner, role: 'owner' });
  await em.flush();
  for (const product of [
    {
      name: 'Pro plan',
      description: 'Everything, billed monthly.',
      recurring_interval: 'month',
      prices: [{ amount_type: 'fixed', price_amount: 1900, price_currency: 'usd' }],
    },
    {
      name: 'Lifetime license',
      prices: [{ amount_type: 'fixed', price_amount: 14900, price_currency: 'usd' }],
    },
  ]) {
    await createProduct(em, organization.id, productCreateInput.parse(product), publicUrl);
  }
  const { token } = await createAccessToken(em, {
    organizationId: organization.id,
    comment: 'Demo token (npm start)',
    scopes: allScopes,
    createdByUserId: owner.id,
  });
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
}

/**
 * What `npm start` does about demo data: in development, the demo user and shop (once);
 * otherwise nothing, reporting whether a demo user an earlier start made is still there.
 */
export async function setUpDemo(
  orm: Orm,
  options: { env: Config['env']; tokenFile: string; publicUrl: string },
): Promise<{ seeded: true } | { seeded: false; leftoverDemoUser: boolean }> {
  if (!demoDataAllowed(options.env)) {
    const leftovers = await orm.em.fork().count(User, { email: demoAccount.email });
    return { seeded: false, leftoverDemoUser: leftovers > 0 };
  }
  await seedDemoData(orm);
  await seedDemoShop(orm, options);
  return { seeded: true };
}
