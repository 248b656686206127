import type { Config } from '../config/env.ts';
import { Account, User } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { hashPassword } from './passwords.ts';

export const demoAccount = { email: 'demo@tollgate.local', password: 'tollgate-demo' } as const;

/**
 * Demo data is made in development only: an admin with a published password (and the demo
 * shop's full-scope token) must never reach a production database.
 */
export const demoDataAllowed = (env: Config['env']) => env === 'development';

/** Adds the demo user with a password once; running it again changes nothing. */
export async function seedDemoData(orm: Orm): Promise<void> {
  const em = orm.em.fork();
  await em.transactional(async (tx) => {
    if (await tx.count(User, { email: demoAccount.email })) return;
    const user = tx.create(User, {
      email: demoAccount.email,
      name: 'Demo Seller',
      emailVerified: true,
      // An admin, so that the admin API (/api/auth/admin/*) can be tried right away.
      role: 'admin',
    });
    tx.create(Account, {
      user,
      providerId: 'credential',
      accountId: user.id,
      password: await hashPassword(demoAccount.password),
    });
  });
}

if (import.meta.main) {
  const { loadConfig } = await import('../config/env.ts');
  const { openOrm } = await import('../db/orm.ts');
  const config = loadConfig();
  if (!demoDataAllowed(config.env)) {
    console.error(`No demo data with NODE_ENV=${config.env}: it is made in development only`);
    process.exit(1);
  }
  const { url } = config.database;
  if (!url) throw new Error('DATABASE_URL must be set (a postgres:// URL)');
  const orm = await openOrm(url);
  await seedDemoData(orm);
  await orm.close();
  console.log(`Demo user: ${demoAccount.email} / ${demoAccount.password}`);
}
