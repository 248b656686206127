import { type FilterQuery, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ValidationIssue } from '../../core/errors.ts';
import type { Address, TaxId } from '../../db/entities/customer.ts';
import { Customer } from '../../db/entities/index.ts';
import { newId } from '../../db/ids.ts';
import { findPage, type ListQuery, likePattern } from '../../db/listing.ts';
import { metadataFilterConditions, sql, sqlCondition, sqlText } from '../../db/sql.ts';
import { validateTaxId } from '../../domain/tax-ids.ts';
import { attachPendingEvents } from '../customer-meters/service.ts';
import { invalidFields, resourceNotFound } from '../errors.ts';
import { appendEvent, type CommerceEventType } from '../outbox.ts';
import { attachableTestClockId } from '../test-clocks/service.ts';
import {
  type CustomerCreateInput,
  type CustomerUpdateInput,
  type customerSortFields,
  customerWire,
} from './schemas.ts';
import {
  announceCustomerStateChange,
  type CustomerLookup,
  recordCustomerStateChange,
} from './state.ts';

const liveCustomer = (organizationId: string, lookup: CustomerLookup): FilterQuery<Customer> => ({
  organization: organizationId,
  deletedAt: null,
  ...lookup,
});

/** A live customer of the organization; deleted ones and other organizations' are not found. */
export async function getCustomer(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
  lockMode?: LockMode,
): Promise<Customer> {
  const customer = await em.findOne(Customer, liveCustomer(organizationId, lookup), { lockMode });
  if (!customer) throw resourceNotFound('Customer not found');
  return customer;
}

export interface CustomerListFilter {
  email?: string;
  query?: string;
  metadata: Record<string, string[]>;
}

/**
 * What `?query=` searches: email, name and external id, one per line, lower-cased. The
 * expression is exactly the trigram index's (`customers_search_index`) so the search uses it.
 */
const searchText = sqlText(
  `lower("email" || chr(10) || coalesce("name", '') || chr(10) || coalesce("external_id", ''))`,
);

/**
 * A page of the organization's live customers. `email` matches exactly but case-insensitively;
 * `query` a substring of email, name or external id; metadata keys any of their values.
 */
export function listCustomers(
  em: EntityManager,
  organizationId: string,
  query: ListQuery<CustomerListFilter, (typeof customerSortFields)[number]>,
): Promise<[Customer[], number]> {
  const { email, query: text } = query;
  const pattern = text && likePattern(text.toLowerCase());
  return findPage(em, Customer, {
    where: [
      { organization: organizationId, deletedAt: null },
      email && sqlCondition(() => sql`lower("email") = ${email.toLowerCase()}`),
      pattern && sqlCondition(() => sql`${searchText} like ${pattern}`),
      ...metadataFilterConditions(query.metadata),
    ],
    sorting: query.sorting,
    sortKeys: { created_at: 'createdAt', email: 'email', name: 'name' },
    page: query.page,
  });
}

/** Every live customer of the organization, oldest first, read in chunks (for the export). */
export function streamCustomers(em: EntityManager, organizationId: string) {
  return em.stream(Customer, {
    where: { organization: organizationId, deletedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    chunkSize: 500,
    disableIdentityMap: true,
  });
}

/**
 * The partial unique indexes of the migration decide duplicates, also between two requests
 * racing each other: their violation answers Polar's 422 at the field.
 */
const duplicateMessages: Record<string, ValidationIssue> = {
  customers_organization_id_email_unique: {
    loc: ['body', 'email'],
    msg: 'A customer with this email address already exists.',
    type: 'value_error',
  },
  customers_organization_id_external_id_unique: {
    loc: ['body', 'external_id'],
    msg: 'A customer with this external ID already exists.',
    type: 'value_error',
  },
};

async function refusingDuplicates<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    // Raw statements surface PostgreSQL's own error, flushes MikroORM's wrapper: both carry
    // the SQLSTATE (23505, unique violation) and the index name.
    const { code, constraint } = error as { code?: string; constraint?: string };
    const issue = constraint ? duplicateMessages[constraint] : undefined;
    if (code === '23505' && issue) {
      throw invalidFields([issue]);
    }
    throw error;
  }
}

/**
 * A tax id validated against the billing country: without an address there is no country to
 * validate against; a number the country's formats do not recognise is invalid.
 */
function validatedTaxId(value: string, billingAddress: Address | null): TaxId {
  if (!billingAddress) {
    throw invalidFields([
      {
        loc: ['body', 'billing_address'],
        msg: 'Country is required to validate tax ID.',
        type: 'missing',
      },
    ]);
  }
  const taxId = validateTaxId(value, billingAddress.country);
  if (!taxId)
    throw invalidFields([{ loc: ['body', 'tax_id'], msg: 'Invalid tax ID.', type: 'invalid' }]);
  return taxId;
}

// Written out rather than built per request: this is the hottest write of the catalog.
const insertCustomerWithEvent = `
  with inserted_customer as (
    insert into customers (id, organization_id, email, email_verified, external_id, name,
      billing_address, tax_id, metadata, test_clock_id, created_at)
    values (?, ?, ?, false, ?, ?, ?, ?, ?, ?, ?)
  )
  insert into outbox_events (id, organization_id, type, data, created_at)
  values (?, ?, '${'customer.created' satisfies CommerceEventType}', ?, ?)`;

/**
 * Creates a customer and records `customer.created` in a single statement (the event inserted
 * beside the customer by a data-modifying CTE): atomic like a transaction, without its BEGIN
 * and COMMIT round trips. The organization is referenced, never loaded; a taken email or
 * external id is refused by the unique indexes rather than looked up first. A sandbox customer
 * may follow a test clock of the organization.
 */
export async function createCustomer(
  em: EntityManager,
  organizationId: string,
  input: CustomerCreateInput,
): Promise<Customer> {
  const billingAddress = input.billing_address ?? null;
  const taxId = input.tax_id ? validatedTaxId(input.tax_id[0], billingAddress) : null;
  const testClockId = input.test_clock_id
    ? await attachableTestClockId(em, organizationId, input.test_clock_id)
    : null;
  const createdAt = new Date();
  const row = {
    id: newId(),
    organization: organizationId,
    email: input.email,
    emailVerified: false,
    externalId: input.external_id,
    name: input.name,
    billingAddress,
    taxId,
    metadata: input.metadata,
    testClock: testClockId,
    createdAt,
  };
  const customer = em.create(Customer, row, { persist: false });
  const json = (value: unknown) => (value == null ? null : JSON.stringify(value));
  const insert = (manager: EntityManager) =>
    refusingDuplicates(() =>
      manager.execute(
        insertCustomerWithEvent,
        [
          row.id,
          organizationId,
          row.email,
          row.externalId ?? null,
          row.name ?? null,
          json(billingAddress),
          json(taxId),
          json(row.metadata ?? {}),
          testClockId,
          createdAt,
          newId(),
          organizationId,
          json(customerWire(customer)),
          createdAt,
        ],
        'run',
      ),
    );
  // Events ingested for this external id before the customer existed become its own.
  const externalId = row.externalId;
  await (externalId
    ? em.transactional(async (tx) => {
        await insert(tx);
        await attachPendingEvents(tx, organizationId, row.id, externalId);
      })
    : insert(em));
  return customer;
}

/**
 * Applies a seller's update; absent fields keep their value. The email may change (unverified
 * again if it really changes), the external id only be set while none is, the billing address
 * not be cleared once set. The tax id, new or kept, is validated against the resulting country.
 * Records `customer.updated` and `customer.state_changed` (the state shows the customer).
 */
export function updateCustomer(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
  input: CustomerUpdateInput,
): Promise<Customer> {
  return refusingDuplicates(() =>
    em.transactional(async (tx) => {
      const customer = await getCustomer(tx, organizationId, lookup, LockMode.PESSIMISTIC_WRITE);
      const issues: ValidationIssue[] = [];
      let attachExternalId: string | null | undefined;
      if (input.billing_address === null && customer.billingAddress) {
        issues.push({
          loc: ['body', 'billing_address'],
          msg: 'Customer billing address cannot be reset to null once set.',
          type: 'value_error',
        });
      }
      if (input.external_id !== undefined && input.external_id !== customer.externalId) {
        if (customer.externalId !== null && customer.externalId !== undefined) {
          issues.push({
            loc: ['body', 'external_id'],
            msg: 'Customer external ID cannot be updated.',
            type: 'value_error',
          });
        } else {
          customer.externalId = input.external_id;
          attachExternalId = input.external_id;
        }
      }
      if (issues.length) throw invalidFields(issues);

      if (input.email && input.email !== customer.email) {
        if (input.email.toLowerCase() !== customer.email.toLowerCase()) {
          customer.emailVerified = false;
        }
        customer.email = input.email;
      }
      if (input.name !== undefined) customer.name = input.name;
      if (input.billing_address) customer.billingAddress = input.billing_address;
      if (input.metadata) customer.metadata = input.metadata;
      const taxIdValue = input.tax_id === undefined ? customer.taxId?.[0] : input.tax_id?.[0];
      customer.taxId = taxIdValue
        ? validatedTaxId(taxIdValue, customer.billingAddress ?? null)
        : null;
      // Every update moves `modified_at`; the event then carries the row as the flush wrote it.
      customer.modifiedAt = new Date();
      await tx.flush();
      appendEvent(tx, organizationId, 'customer.updated', customerWire(customer));
      if (attachExternalId)
        await attachPendingEvents(tx, organizationId, customer.id, attachExternalId);
      await recordCustomerStateChange(tx, organizationId, customer.id);
      return customer;
    }),
  );
}

/**
 * Soft-deletes a customer (its email and external id are free again) in one transaction that
 * records `customer.deleted`; the benefits it still holds are revoked afterwards through their
 * grant workflows (see revokeGrantsOfDeleted).
 */
export function deleteCustomer(
  em: EntityManager,
  organizationId: string,
  lookup: CustomerLookup,
): Promise<Customer> {
  return em.transactional(async (tx) => {
    const customer = await getCustomer(tx, organizationId, lookup, LockMode.PESSIMISTIC_WRITE);
    customer.deletedAt = new Date();
    await tx.flush();
    appendEvent(tx, organizationId, 'customer.deleted', customerWire(customer));
    await announceCustomerStateChange(tx, organizationId, customer.id);
    return customer;
  });
}
