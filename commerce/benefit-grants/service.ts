import type { EntityManager } from '@mikro-orm/postgresql';
import type { BenefitIntegrationsConfig } from '../../config/env.ts';
import { BenefitGrant, CustomerOAuthAccount } from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import { visibleGrantProperties } from '../../domain/benefit-properties.ts';
import type { BenefitType, CustomerOAuthPlatform } from '../../domain/benefit-types.ts';
import { discordApi } from '../../integrations/discord/discord-api.ts';
import { githubApi } from '../../integrations/github/github-api.ts';
import { benefitGrantWire } from '../benefits/schemas.ts';
import { recordCustomerStateChange } from '../customers/state.ts';
import { appendEvent } from '../outbox.ts';
import { grantDownloadables, revokeDownloadables } from './downloadables.ts';
import { grantLicenseKey, revokeLicenseKey, updateLicenseKeyLimits } from './license-keys.ts';
import { creditMeter, renewMeterCredit, withdrawMeterCredit } from './meter-credit.ts';

/** One grant: a customer and a benefit (the grant workflow's identity). */
export interface GrantTarget {
  customerId: string;
  benefitId: string;
}

/** The paid order or active subscription that gives a benefit. */
export interface GrantSource {
  orderId: string | null;
  subscriptionId: string | null;
}

/**
 * How a grant request ended: granted (or already was); waiting for the customer to link the
 * Discord or GitHub account it needs; or nothing to do (benefit or customer deleted, grant
 * revoked before an account link's retry).
 */
export type GrantOutcome = 'granted' | 'awaiting_account' | 'gone';

/** How a revocation ended: revoked; kept because another order or subscription still gives it; none. */
export type RevocationOutcome = 'revoked' | 'kept' | 'none';

/** The benefit types granted through a third-party account, and that account's platform. */
export const accountPlatforms: Partial<Record<BenefitType, CustomerOAuthPlatform>> = {
  discord: 'discord',
  github_repository: 'github',
};

/** The grant row of the target, locked for this transaction; created first when `create`. */
async function lockGrant(
  tx: EntityManager,
  { customerId, benefitId }: GrantTarget,
  create: boolean,
): Promise<BenefitGrant | null> {
  if (create) {
    // One row per customer and benefit, whichever request comes first; nothing when either is gone.
    await tx.execute(
      `insert into benefit_grants (id, customer_id, benefit_id, properties, created_at)
       select ?, c.id, b.id, '{}', ? from customers c, benefits b where c.id = ? and b.id = ?
       on conflict (customer_id, benefit_id) do nothing`,
      [newId(), new Date(), customerId, benefitId],
    );
  }
  const [locked] = await tx.execute<{ id: string }[]>(
    'select id from benefit_grants where customer_id = ? and benefit_id = ? for update',
    [customerId, benefitId],
  );
  if (!locked) return null;
  return tx.findOneOrFail(
    BenefitGrant,
    { id: locked.id },
    { populate: ['customer', 'benefit'], refresh: true },
  );
}

/**
 * Records what happened to the grant: the `benefit_grant.*` event with the grant as /v1 shows
 * it (an update with the properties it had before, `previous_properties`), and the customer's
 * new state (`customer.state_changed`, cached states invalidated).
 */
async function announceGrant(
  tx: EntityManager,
  grant: BenefitGrant,
  event:
    | { type: 'benefit_grant.created' | 'benefit_grant.cycled' | 'benefit_grant.revoked' }
    | { type: 'benefit_grant.updated'; previousProperties: Record<string, unknown> },
) {
  await tx.flush();
  const organizationId = grant.benefit.organization.id;
  const wire = benefitGrantWire(grant);
  appendEvent(
    tx,
    organizationId,
    event.type,
    'previousProperties' in event
      ? {
          ...wire,
          previous_properties: visibleGrantProperties(grant.benefit.type, event.previousProperties),
        }
      : wire,
  );
  await recordCustomerStateChange(tx, organizationId, grant.customer.id);
}

const isGranted = (grant: BenefitGrant) => grant.grantedAt != null && grant.revokedAt == null;

/** Gives the benefit's side effect that lives in this database; answers the grant's properties. */
function grantInDatabase(tx: EntityManager, grant: BenefitGrant, now: Date) {
  switch (grant.benefit.type) {
    case 'license_keys':
      return grantLicenseKey(tx, grant, now);
    case 'downloadables':
      return grantDownloadables(tx, grant);
    case 'meter_credit':
      return creditMeter(tx, grant, now);
    default:
      // custom: the note is the benefit's, shown with the grant; nothing to give.
      return Promise.resolve({});
  }
}

async function revokeInDatabase(tx: EntityManager, grant: BenefitGrant) {
  switch (grant.benefit.type) {
    case 'license_keys':
      return revokeLicenseKey(tx, grant);
    case 'downloadables':
      return revokeDownloadables(tx, grant);
    case 'meter_credit':
      return withdrawMeterCredit(tx, grant);
  }
}

/** The benefit settings a Discord or GitHub grant shows, beside the account. */
function accountGrantProperties(grant: BenefitGrant): Record<string, unknown> {
  const settings = grant.benefit.properties;
  return grant.benefit.type === 'discord'
    ? { guild_id: settings.guild_id, role_id: settings.role_id }
    : {
        repository_owner: settings.repository_owner,
        repository_name: settings.repository_name,
        permission: settings.permission,
      };
}

/** A call to Discord or GitHub a grant or revocation needs, planned inside its transaction. */
interface AccountCall {
  benefitType: BenefitType;
  settings: Record<string, unknown>;
  account: { accountId: string; username: string | null; accessToken: string | null };
}

/** Gives (or, `revoke`, takes away) the Discord role or the repository access. */
async function callAccountPlatform(
  integrations: BenefitIntegrationsConfig,
  { benefitType, settings, account }: AccountCall,
  action: 'grant' | 'revoke',
) {
  if (benefitType === 'discord') {
    const discord = discordApi(integrations.discord);
    const role = {
      guildId: String(settings.guild_id),
      roleId: String(settings.role_id),
      userId: account.accountId,
      userAccessToken: account.accessToken,
    };
    if (action === 'grant') await discord.grantRole(role);
    else await discord.revokeRole(role, settings.kick_member === true);
    return;
  }
  const github = githubApi(integrations.github);
  const access = {
    owner: String(settings.repository_owner),
    repository: String(settings.repository_name),
    login: account.username ?? (await github.loginOf(account.accountId)),
  };
  if (action === 'grant') await github.addCollaborator(access, String(settings.permission));
  else await github.removeCollaborator(access);
}

type GrantPlan =
  | { outcome: GrantOutcome }
  | {
      outcome: 'call';
      call: AccountCall;
      previous: AccountCall | null;
      /** The grant's properties before this request: an update's `previous_properties`. */
      previousProperties: Record<string, unknown>;
    };

/**
 * Grants the benefit to the customer: one grant row per customer and benefit, whichever order
 * or subscription asks first (`source`; null when the customer linked an account and a waiting
 * grant is tried again). A license key, downloadables or meter credit are given in the same
 * transaction as the grant; a Discord role or repository access is given through the platform's
 * API between two transactions, with the customer's linked account (none: `awaiting_account`).
 * Safe to run again: an already granted benefit is left as it is.
 */
export async function grantBenefit(
  em: EntityManager,
  integrations: BenefitIntegrationsConfig,
  target: GrantTarget,
  source: GrantSource | null,
): Promise<GrantOutcome> {
  const plan = await em.fork().transactional(async (tx): Promise<GrantPlan> => {
    // A grant asked for late (a retried step) by a source that has since stopped giving it.
    if (source && !(await givesBenefits(tx, source))) return { outcome: 'gone' };
    const grant = await lockGrant(tx, target, source !== null);
    if (!grant || grant.benefit.deletedAt || grant.customer.deletedAt) return { outcome: 'gone' };
    const granted = isGranted(grant);
    if (source === null && grant.revokedAt) return { outcome: 'gone' };
    // The grant stays with the source that gave it; a grant given again takes the new one.
    if (source && (!granted || (!grant.orderId && !grant.subscriptionId))) {
      grant.orderId = source.orderId;
      grant.subscriptionId = source.subscriptionId;
    }
    const platform = accountPlatforms[grant.benefit.type];
    if (!platform) {
      if (granted) return { outcome: 'granted' };
      const now = new Date();
      grant.properties = await grantInDatabase(tx, grant, now);
      Object.assign(grant, { grantedAt: now, revokedAt: null, error: null });
      await announceGrant(tx, grant, { type: 'benefit_grant.created' });
      return { outcome: 'granted' };
    }
    const account = await tx.findOne(CustomerOAuthAccount, {
      customer: grant.customer.id,
      platform,
    });
    const grantedAccountId = granted ? (grant.properties.granted_account_id as string) : undefined;
    if (granted && account?.accountId === grantedAccountId) return { outcome: 'granted' };
    const previousProperties = grant.properties;
    grant.properties = {
      ...accountGrantProperties(grant),
      account_id: account?.accountId ?? null,
      ...(grantedAccountId && { granted_account_id: grantedAccountId }),
    };
    if (!granted) grant.revokedAt = null;
    await tx.flush();
    if (!account) return { outcome: 'awaiting_account' };
    const settings = grant.benefit.properties;
    const benefitType = grant.benefit.type;
    return {
      outcome: 'call',
      call: {
        benefitType,
        settings,
        account: {
          accountId: account.accountId,
          username: account.accountUsername ?? null,
          accessToken: account.accessToken ?? null,
        },
      },
      // Re-linked to another account: the old one loses the access.
      previous: grantedAccountId
        ? {
            benefitType,
            settings,
            account: { accountId: grantedAccountId, username: null, accessToken: null },
          }
        : null,
      previousProperties,
    };
  });
  if (plan.outcome !== 'call') return plan.outcome;
  if (plan.previous) await callAccountPlatform(integrations, plan.previous, 'revoke');
  await callAccountPlatform(integrations, plan.call, 'grant');
  return em.fork().transactional(async (tx) => {
    const grant = await lockGrant(tx, target, false);
    if (!grant || grant.revokedAt) return 'gone';
    const newlyGranted = !isGranted(grant);
    grant.properties = {
      ...grant.properties,
      account_id: plan.call.account.accountId,
      granted_account_id: plan.call.account.accountId,
    };
    if (newlyGranted) grant.grantedAt = new Date();
    grant.error = null;
    await announceGrant(
      tx,
      grant,
      newlyGranted
        ? { type: 'benefit_grant.created' }
        : { type: 'benefit_grant.updated', previousProperties: plan.previousProperties },
    );
    return 'granted';
  });
}

/**
 * Whether the source still gives its product's benefits: a subscription not ended nor unpaid
 * (the statuses its workflow revokes them at), else a paid one-time order that no refund took
 * them back from. Its row is share-locked until the commit: a source ending meanwhile waits, and
 * the revocation it asks for then finds the grant given.
 */
async function givesBenefits(tx: EntityManager, source: GrantSource): Promise<boolean> {
  if (source.subscriptionId) {
    const rows = await tx.execute(
      `select 1 from subscriptions
        where id = ? and status in ('active', 'trialing', 'past_due') for share`,
      [source.subscriptionId],
    );
    return rows.length > 0;
  }
  if (!source.orderId) return true;
  const rows = await tx.execute(
    `select 1 from orders o
      where o.id = ? and o.status in ('paid', 'partially_refunded')
        and not exists (select 1 from refunds r
                         where r.order_id = o.id and r.revoke_benefits and r.status = 'succeeded')
     for share of o`,
    [source.orderId],
  );
  return rows.length > 0;
}

/**
 * Another paid one-time order or active (or trialing) subscription of the customer, not `except`,
 * whose product has the benefit: what keeps a grant when one of its sources goes away.
 */
async function remainingSource(
  tx: EntityManager,
  grant: BenefitGrant,
  except: GrantSource,
): Promise<GrantSource | null> {
  const [row] = await tx.execute<{ order_id: string | null; subscription_id: string | null }[]>(
    `select o.id as order_id, null::uuid as subscription_id
       from orders o join product_benefits pb on pb.product_id = o.product_id
      where o.customer_id = ? and pb.benefit_id = ? and o.subscription_id is null
        and o.status in ('paid', 'partially_refunded') and o.id is distinct from ?::uuid
     union all
     select null::uuid, s.id
       from subscriptions s join product_benefits pb on pb.product_id = s.product_id
      where s.customer_id = ? and pb.benefit_id = ? and s.status in ('active', 'trialing')
        and s.id is distinct from ?::uuid
     limit 1`,
    [
      grant.customer.id,
      grant.benefit.id,
      except.orderId,
      grant.customer.id,
      grant.benefit.id,
      except.subscriptionId,
    ],
  );
  return row ? { orderId: row.order_id, subscriptionId: row.subscription_id } : null;
}

type RevocationPlan = { outcome: RevocationOutcome } | { outcome: 'call'; call: AccountCall };

/**
 * Takes the benefit back when `source` stops giving it, unless another paid order or active
 * subscription still does (the grant then moves to that source); `force` revokes whatever gives
 * it (the benefit or the customer was deleted). Safe to run again.
 */
export async function revokeBenefit(
  em: EntityManager,
  integrations: BenefitIntegrationsConfig,
  target: GrantTarget,
  { force, ...source }: GrantSource & { force: boolean },
): Promise<RevocationOutcome> {
  const plan = await em.fork().transactional(async (tx): Promise<RevocationPlan> => {
    const grant = await lockGrant(tx, target, false);
    if (!grant || grant.revokedAt) return { outcome: 'none' };
    const deleted = grant.benefit.deletedAt != null || grant.customer.deletedAt != null;
    if (!force && !deleted) {
      const remaining = await remainingSource(tx, grant, source);
      if (remaining) {
        const ownSourceGone =
          grant.orderId === source.orderId && grant.subscriptionId === source.subscriptionId;
        if (ownSourceGone) {
          grant.orderId = remaining.orderId;
          grant.subscriptionId = remaining.subscriptionId;
          if (isGranted(grant)) {
            await announceGrant(tx, grant, {
              type: 'benefit_grant.updated',
              previousProperties: grant.properties,
            });
          }
        }
        return { outcome: 'kept' };
      }
    }
    const grantedAccountId = isGranted(grant)
      ? (grant.properties.granted_account_id as string | undefined)
      : undefined;
    if (accountPlatforms[grant.benefit.type] && grantedAccountId) {
      return {
        outcome: 'call',
        call: {
          benefitType: grant.benefit.type,
          settings: grant.benefit.properties,
          account: { accountId: grantedAccountId, username: null, accessToken: null },
        },
      };
    }
    await revokeInDatabase(tx, grant);
    Object.assign(grant, { revokedAt: new Date(), error: null });
    await announceGrant(tx, grant, { type: 'benefit_grant.revoked' });
    return { outcome: 'revoked' };
  });
  if (plan.outcome !== 'call') return plan.outcome;
  await callAccountPlatform(integrations, plan.call, 'revoke');
  return em.fork().transactional(async (tx) => {
    const grant = await lockGrant(tx, target, false);
    if (!grant || grant.revokedAt) return 'none';
    Object.assign(grant, { revokedAt: new Date(), error: null });
    await announceGrant(tx, grant, { type: 'benefit_grant.revoked' });
    return 'revoked';
  });
}

/** The settings of a Discord or GitHub grant's benefit as the grant last applied them. */
function appliedAccountSettings(grant: BenefitGrant): Record<string, unknown> {
  const applied = grant.properties;
  return grant.benefit.type === 'discord'
    ? { guild_id: applied.guild_id, role_id: applied.role_id, kick_member: false }
    : {
        repository_owner: applied.repository_owner,
        repository_name: applied.repository_name,
        permission: applied.permission,
      };
}

/**
 * The benefit's settings changed (benefit update): a granted grant follows them. A license key
 * takes the new limits, downloadables the new file list, a Discord role or repository access
 * moves to the new role or repository (the old one taken back). Records
 * `benefit_grant.updated` when something changed. Safe to run again.
 */
export async function updateGrantedBenefit(
  em: EntityManager,
  integrations: BenefitIntegrationsConfig,
  target: GrantTarget,
): Promise<'updated' | 'none'> {
  type UpdatePlan =
    | { outcome: 'updated' | 'none' }
    | { outcome: 'call'; previous: AccountCall; next: AccountCall };
  const plan = await em.fork().transactional(async (tx): Promise<UpdatePlan> => {
    const grant = await lockGrant(tx, target, false);
    if (!grant || !isGranted(grant) || grant.benefit.deletedAt) return { outcome: 'none' };
    const { type } = grant.benefit;
    const previousProperties = grant.properties;
    if (type === 'license_keys') await updateLicenseKeyLimits(tx, grant);
    else if (type === 'downloadables') grant.properties = await grantDownloadables(tx, grant);
    else if (!accountPlatforms[type]) return { outcome: 'none' };
    else {
      const wanted = accountGrantProperties(grant);
      const applied = Object.keys(wanted).some((key) => wanted[key] !== grant.properties[key]);
      if (!applied) return { outcome: 'none' };
      const account = {
        accountId: String(grant.properties.granted_account_id),
        username: null,
        accessToken: null,
      };
      return {
        outcome: 'call',
        previous: { benefitType: type, settings: appliedAccountSettings(grant), account },
        next: { benefitType: type, settings: grant.benefit.properties, account },
      };
    }
    await announceGrant(tx, grant, { type: 'benefit_grant.updated', previousProperties });
    return { outcome: 'updated' };
  });
  if (plan.outcome !== 'call') return plan.outcome;
  await callAccountPlatform(integrations, plan.previous, 'revoke');
  await callAccountPlatform(integrations, plan.next, 'grant');
  return em.fork().transactional(async (tx) => {
    const grant = await lockGrant(tx, target, false);
    if (!grant || !isGranted(grant)) return 'none';
    const previousProperties = grant.properties;
    grant.properties = { ...previousProperties, ...accountGrantProperties(grant) };
    grant.error = null;
    await announceGrant(tx, grant, { type: 'benefit_grant.updated', previousProperties });
    return 'updated';
  });
}

/**
 * A new period of the subscription holding the grant: a meter credit is renewed (the meter
 * reset and credited `units` again, plus the unused balance when the benefit rolls over) and
 * `benefit_grant.cycled` recorded, once per period. Other types have nothing to renew.
 */
export function cycleBenefit(
  em: EntityManager,
  target: GrantTarget,
  periodStart: Date,
): Promise<'cycled' | 'none'> {
  return em.fork().transactional(async (tx) => {
    const grant = await lockGrant(tx, target, false);
    if (!grant || !isGranted(grant) || grant.benefit.type !== 'meter_credit') return 'none';
    const credited = await renewMeterCredit(tx, grant, periodStart);
    if (!credited) return 'none';
    grant.properties = credited;
    await announceGrant(tx, grant, { type: 'benefit_grant.cycled' });
    return 'cycled';
  });
}

/**
 * Notes on the grant why its last attempt failed (the activity retries with backoff); the
 * next success clears it. Best effort: when the database itself fails, there is nowhere to note it.
 */
export async function recordGrantError(em: EntityManager, target: GrantTarget, error: unknown) {
  const failure = error instanceof Error ? error : new Error(String(error));
  try {
    await em.fork().nativeUpdate(
      BenefitGrant,
      { customer: target.customerId, benefit: target.benefitId },
      {
        error: {
          message: failure.message,
          type: failure.name,
          timestamp: new Date().toISOString(),
        },
        modifiedAt: new Date(),
      },
    );
  } catch {}
}
