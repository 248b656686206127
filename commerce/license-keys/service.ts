import { isDeepStrictEqual } from 'node:util';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Benefit, LicenseKey, LicenseKeyActivation } from '../../db/entities/index.ts';
import type { LicenseKeyStatus } from '../../db/entities/license-key.ts';
import { findPage, inList, type ListQuery, oldestFirst } from '../../db/listing.ts';
import { licenseKeyRefusal } from '../../domain/license-keys.ts';
import { announceCustomerStateChange } from '../customers/state.ts';
import { commerceError, notPermitted, resourceNotFound } from '../errors.ts';
import type {
  LicenseKeyActivateInput,
  LicenseKeyDeactivateInput,
  LicenseKeyUpdateInput,
  LicenseKeyValidateInput,
} from './schemas.ts';

/** Whose keys a caller sees: an organization's, or (customer portal) one customer's. */
export type LicenseKeyOwner = { organizationId: string } | { customerId: string };

const ownerCondition = (owner: LicenseKeyOwner) =>
  'organizationId' in owner
    ? { organization: owner.organizationId }
    : { customer: { id: owner.customerId, deletedAt: null } };

/**
 * A page of the owner's keys, oldest first, optionally of some benefits, organizations,
 * customers (the dashboard's customer page lists a customer's keys) and statuses.
 */
export function listLicenseKeys(
  em: EntityManager,
  owner: LicenseKeyOwner,
  query: ListQuery<{
    benefitIds: string[];
    organizationIds: string[];
    customerIds?: string[];
    statuses?: LicenseKeyStatus[];
  }>,
): Promise<[LicenseKey[], number]> {
  return findPage(em, LicenseKey, {
    where: [
      ownerCondition(owner),
      inList('benefit', query.benefitIds),
      inList('organization', query.organizationIds),
      inList('customer', query.customerIds ?? []),
      inList('status', query.statuses ?? []),
    ],
    thenBy: oldestFirst,
    page: query.page,
    populate: ['customer'],
  });
}

/** One of the owner's keys; any other id is not found. */
export async function getLicenseKey(
  em: EntityManager,
  owner: LicenseKeyOwner,
  id: string,
  lockMode?: LockMode,
): Promise<LicenseKey> {
  const key = await em.findOne(
    LicenseKey,
    { id, ...ownerCondition(owner) },
    { populate: ['customer'], lockMode },
  );
  if (!key) throw resourceNotFound('License key not found.');
  return key;
}

/**
 * Tells this process at once that what the key's customer sees changed (the database tells the
 * others at commit), so that the portal's next read after a change made here is fresh.
 */
const announceKeyChange = (em: EntityManager, key: LicenseKey) =>
  announceCustomerStateChange(em, key.organization.id, key.customer.id);

/** The key's activations that are not deactivated, oldest first. */
export const liveActivations = (em: EntityManager, key: LicenseKey) =>
  em.find(
    LicenseKeyActivation,
    { licenseKey: key.id, deletedAt: null },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );

/**
 * Changes a key as the seller says. `usage` always applies (the SDK always sends it); a null
 * status keeps the status; null limits and expiry remove them when sent.
 */
export function updateLicenseKey(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: LicenseKeyUpdateInput,
): Promise<LicenseKey> {
  return em.transactional(async (tx) => {
    const key = await getLicenseKey(tx, { organizationId }, id, LockMode.PESSIMISTIC_WRITE);
    if (input.status) key.status = input.status;
    key.usage = input.usage;
    if (input.limit_activations !== undefined) key.limitActivations = input.limit_activations;
    if (input.limit_usage !== undefined) key.limitUsage = input.limit_usage;
    if (input.expires_at !== undefined) key.expiresAt = input.expires_at;
    key.modifiedAt = new Date();
    await announceKeyChange(tx, key);
    return key;
  });
}

/** One live activation of one of the organization's keys. */
export async function getActivation(
  em: EntityManager,
  organizationId: string,
  keyId: string,
  activationId: string,
) {
  const key = await getLicenseKey(em, { organizationId }, keyId);
  const activation = await em.findOne(LicenseKeyActivation, {
    id: activationId,
    licenseKey: key.id,
    deletedAt: null,
  });
  if (!activation) throw resourceNotFound('License key activation not found.');
  return { key, activation };
}

/**
 * The key with this text in the organization, locked for the transaction. `callerOrganization`
 * (an organization token's) must be that organization: other organizations' keys are not found.
 */
async function keyByText(
  tx: EntityManager,
  input: { key: string; organization_id: string },
  callerOrganization: string | null,
): Promise<LicenseKey> {
  if (callerOrganization !== null && callerOrganization !== input.organization_id) {
    throw resourceNotFound('License key not found.');
  }
  const key = await tx.findOne(
    LicenseKey,
    { key: input.key, organization: input.organization_id },
    { populate: ['customer'], lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!key) throw resourceNotFound('License key not found.');
  return key;
}

async function liveActivation(tx: EntityManager, key: LicenseKey, activationId: string) {
  const activation = await tx.findOne(LicenseKeyActivation, {
    id: activationId,
    licenseKey: key.id,
    deletedAt: null,
  });
  if (!activation) throw resourceNotFound('License key activation not found.');
  return activation;
}

/**
 * Checks a key as Polar does: granted and unexpired; when given, the activation (live, with the
 * same conditions), the benefit and the customer must match; `increment_usage` must fit under
 * `limit_usage` (400 otherwise). Counts the validation and adds the usage.
 */
export function validateLicenseKey(
  em: EntityManager,
  input: LicenseKeyValidateInput,
  callerOrganization: string | null,
) {
  return em.transactional(async (tx) => {
    const key = await keyByText(tx, input, callerOrganization);
    const now = new Date();
    const refusal = licenseKeyRefusal(key, now);
    if (refusal) throw resourceNotFound(refusal);
    let activation: LicenseKeyActivation | null = null;
    if (input.activation_id) {
      activation = await liveActivation(tx, key, input.activation_id);
      const required = activation.conditions;
      if (Object.keys(required).length > 0 && !isDeepStrictEqual(input.conditions, required)) {
        throw resourceNotFound('License key does not match required conditions.');
      }
    }
    if (input.benefit_id && input.benefit_id !== key.benefit.id) {
      throw resourceNotFound('License key does not match given benefit.');
    }
    if (input.customer_id && input.customer_id !== key.customer.id) {
      throw resourceNotFound('License key does not match given customer.');
    }
    const increment = input.increment_usage ?? 0;
    if (increment > 0 && key.limitUsage != null) {
      const remaining = key.limitUsage - key.usage;
      if (increment > remaining) {
        throw commerceError('BadRequest', `License key only has ${remaining} more usages.`);
      }
    }
    key.validations += 1;
    key.lastValidatedAt = now;
    key.usage += increment;
    await announceKeyChange(tx, key);
    return { key, activation };
  });
}

/**
 * Activates a key on a device: only a granted, unexpired key whose benefit allows activations,
 * while it has fewer live activations than its limit (the key row is locked: concurrent
 * activations cannot exceed it).
 */
export function activateLicenseKey(
  em: EntityManager,
  input: LicenseKeyActivateInput,
  callerOrganization: string | null,
) {
  return em.transactional(async (tx) => {
    const key = await keyByText(tx, input, callerOrganization);
    const refusal = licenseKeyRefusal(key, new Date());
    if (refusal) throw notPermitted(refusal);
    if (key.limitActivations == null) {
      throw notPermitted('This license key does not support activations.');
    }
    const active = await tx.count(LicenseKeyActivation, { licenseKey: key.id, deletedAt: null });
    if (active >= key.limitActivations) {
      throw notPermitted('License key activation limit already reached.');
    }
    const activation = tx.create(LicenseKeyActivation, {
      licenseKey: key.id,
      label: input.label,
      conditions: input.conditions,
      meta: input.meta,
    });
    await tx.flush();
    await announceKeyChange(tx, key);
    return { key, activation };
  });
}

/**
 * Deactivates one live activation of the key, freeing its slot. `portalCustomer` is the customer
 * of a portal session doing it themselves: the key must be theirs (else not found) and its
 * benefit must let customers manage activations (`enable_customer_admin`, else 403 NotPermitted).
 */
export function deactivateLicenseKey(
  em: EntityManager,
  input: LicenseKeyDeactivateInput,
  callerOrganization: string | null,
  portalCustomer: string | null = null,
) {
  return em.transactional(async (tx) => {
    const key = await keyByText(tx, input, callerOrganization);
    if (portalCustomer !== null) {
      if (key.customer.id !== portalCustomer) throw resourceNotFound('License key not found.');
      const { properties } = await tx.findOneOrFail(Benefit, key.benefit.id);
      const activations = properties.activations as { enable_customer_admin?: unknown } | null;
      if (activations?.enable_customer_admin !== true) {
        throw notPermitted('The seller manages the activations of this license key.');
      }
    }
    const activation = await liveActivation(tx, key, input.activation_id);
    activation.deletedAt = new Date();
    activation.modifiedAt = activation.deletedAt;
    await announceKeyChange(tx, key);
  });
}
