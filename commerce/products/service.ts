import type { EntityManager } from '@mikro-orm/core';
import type { z } from 'zod';
import type { ValidationIssue } from '../../core/errors.ts';
import { announceChange } from '../../db/change-notifications.ts';
import {
  Benefit,
  CustomField,
  Meter,
  Organization,
  Product,
  ProductBenefit,
  ProductCustomField,
  ProductMedia,
  ProductPrice,
  StoredFile,
} from '../../db/entities/index.ts';
import {
  findPage,
  inList,
  isSet,
  type ListQuery,
  type SortKey,
  textSearch,
} from '../../db/listing.ts';
import {
  linkedToAny,
  metadataFilterConditions,
  orderByExpression,
  placeholders,
  type SqlFragment,
  sql,
  sqlText,
} from '../../db/sql.ts';
import { isStaticPrice, type PriceListEntry, priceListViolations } from '../../domain/prices.ts';
import { benefitWire } from '../benefits/schemas.ts';
import { customFieldWire } from '../custom-fields/schemas.ts';
import { invalidFields, resourceNotFound } from '../errors.ts';
import { productMediaWire } from '../files/schemas.ts';
import { appendEvent } from '../outbox.ts';
import {
  type customerProductWireSchema,
  type ExistingPriceInput,
  type PriceCreateInput,
  type PriceFields,
  type PriceWire,
  type ProductCreateInput,
  type ProductUpdateInput,
  priceWire,
  productBaseWire,
  type productSortFields,
  type productWireSchema,
} from './schemas.ts';

type ProductSortField = (typeof productSortFields)[number];

interface PriceRow {
  id: string;
  product_id: string;
  amount_type: PriceFields['amountType'];
  price_currency: string | null;
  price_amount: number | null;
  minimum_amount: number | null;
  maximum_amount: number | null;
  preset_amount: number | null;
  unit_amount: string | null;
  cap_amount: number | null;
  price_per_seat: number | null;
  meter_id: string | null;
  meter_name: string | null;
  is_archived: boolean;
  created_at: Date | string;
  modified_at: Date | string | null;
}

const priceOfRow = (row: PriceRow): PriceFields => ({
  id: row.id,
  amountType: row.amount_type,
  priceCurrency: row.price_currency,
  priceAmount: row.price_amount,
  minimumAmount: row.minimum_amount,
  maximumAmount: row.maximum_amount,
  presetAmount: row.preset_amount,
  unitAmount: row.unit_amount,
  capAmount: row.cap_amount,
  pricePerSeat: row.price_per_seat,
  meter: row.meter_id ? { id: row.meter_id, name: row.meter_name ?? '' } : null,
  isArchived: row.is_archived,
  createdAt: new Date(row.created_at),
  modifiedAt: row.modified_at === null ? null : new Date(row.modified_at),
});

/** A product's link to a benefit, media file or custom field, in the seller's order. */
interface LinkRow {
  kind: 'benefit' | 'media' | 'custom_field';
  product_id: string;
  target_id: string;
  required: boolean | null;
  order: number;
}

/** Groups rows by their product, keeping the rows' order. */
function byProduct<Row extends { product_id: string }>(rows: Row[]): Map<string, Row[]> {
  const grouped = new Map<string, Row[]>();
  for (const row of rows) {
    const group = grouped.get(row.product_id);
    if (group) group.push(row);
    else grouped.set(row.product_id, [row]);
  }
  return grouped;
}

/** The entities a kind of link points at, loaded once each, by id. */
async function linkTargets<Target extends { id: string }>(
  links: LinkRow[],
  kind: LinkRow['kind'],
  load: (ids: string[]) => Promise<Target[]>,
): Promise<Map<string, Target>> {
  const ids = [
    ...new Set(links.filter((link) => link.kind === kind).map((link) => link.target_id)),
  ];
  const targets = ids.length ? await load(ids) : [];
  return new Map(targets.map((target) => [target.id, target]));
}

/**
 * Products as /v1 answers them (Polar's `Product`), in at most five queries whatever their
 * number: live prices (static first, then metered, each by creation) with their meter's name and
 * the links to benefits, medias and custom fields, then each linked entity once. Prices and links
 * are read as rows: a page of 100 products would otherwise hydrate hundreds of entities.
 */
export async function serializeProducts(em: EntityManager, products: Product[], publicUrl: string) {
  if (products.length === 0) return [];
  const ids = products.map((product) => product.id);
  const inProducts = placeholders(ids.length);
  const connection = em.getConnection();
  // Inside a transaction, read through it: the rows it just wrote are not committed yet.
  const transaction = em.getTransactionContext();
  const [priceRows, links] = await Promise.all([
    connection.execute<PriceRow[]>(
      `select pp.*, m.name as meter_name from product_prices pp
       left join meters m on m.id = pp.meter_id
       where pp.product_id in (${inProducts}) and not pp.is_archived
       order by pp.created_at, pp.id`,
      ids,
      'all',
      transaction,
    ),
    connection.execute<LinkRow[]>(
      `select 'benefit' as kind, product_id, benefit_id as target_id, null::boolean as required, "order"
         from product_benefits where product_id in (${inProducts})
       union all
       select 'media', product_id, file_id, null, "order"
         from product_medias where product_id in (${inProducts})
       union all
       select 'custom_field', product_id, custom_field_id, required, "order"
         from product_custom_fields where product_id in (${inProducts})
       order by "order"`,
      [...ids, ...ids, ...ids],
      'all',
      transaction,
    ),
  ]);
  const [benefits, files, customFields] = await Promise.all([
    linkTargets(links, 'benefit', (targetIds) =>
      em.find(Benefit, { id: { $in: targetIds }, deletedAt: null }),
    ),
    linkTargets(links, 'media', (targetIds) =>
      em.find(StoredFile, { id: { $in: targetIds }, deletedAt: null }),
    ),
    linkTargets(links, 'custom_field', (targetIds) =>
      em.find(CustomField, { id: { $in: targetIds } }),
    ),
  ]);
  const pricesOf = byProduct<PriceRow>(priceRows);
  const linksOf = byProduct<LinkRow>(links);
  return products.map((product) => {
    const live = (pricesOf.get(product.id) ?? []).map(priceOfRow);
    const ordered = [
      ...live.filter((price) => isStaticPrice(price.amountType)),
      ...live.filter((price) => !isStaticPrice(price.amountType)),
    ];
    const productLinks = linksOf.get(product.id) ?? [];
    const linked = <Target>(kind: LinkRow['kind'], targets: Map<string, Target>) =>
      productLinks.flatMap((link) => {
        const target = link.kind === kind ? targets.get(link.target_id) : undefined;
        return target ? [{ link, target }] : [];
      });
    const wire: z.input<typeof productWireSchema> = {
      ...productBaseWire(product),
      prices: ordered.map((price): PriceWire => priceWire(price, product)),
      benefits: linked('benefit', benefits).map(({ target }) => benefitWire(target)),
      medias: linked('media', files).map(({ target }) => productMediaWire(target, publicUrl)),
      attached_custom_fields: linked('custom_field', customFields).map(({ link, target }) => ({
        custom_field_id: target.id,
        custom_field: customFieldWire(target),
        order: link.order,
        required: link.required === true,
      })),
      tax_behavior: product.taxBehavior,
    };
    return wire;
  });
}
export type ProductWire = Awaited<ReturnType<typeof serializeProducts>>[number];

/**
 * A product as buyers see it (Polar's `CustomerProduct`): the serialized product without the
 * seller's metadata, custom fields and tax behaviour, its benefits public (no settings).
 */
export function customerProductWire({
  metadata: _metadata,
  attached_custom_fields: _customFields,
  tax_behavior: _taxBehavior,
  benefits,
  ...visible
}: ProductWire): z.input<typeof customerProductWireSchema> {
  return {
    ...visible,
    benefits: benefits.map(({ metadata: _, properties: _properties, ...benefit }) => benefit),
  };
}
export type CustomerProductWire = ReturnType<typeof customerProductWire>;

export async function getProduct(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Product> {
  const product = await em.findOne(Product, { id, organization: organizationId });
  if (!product) throw resourceNotFound('Product not found');
  return product;
}

export interface ProductListFilter {
  ids: string[];
  /** Part of the name, any case. */
  query?: string;
  isArchived?: boolean;
  isRecurring?: boolean;
  benefitIds: string[];
  metadata: Record<string, string[]>;
}

/** A value of the product's static price (metered-only products have none: null), for sorting. */
const staticPriceValue = (expression: SqlFragment) => (product: SqlFragment) =>
  sql`(select ${expression} from product_prices sp where sp.product_id = ${product}.id
    and not sp.is_archived and sp.amount_type in ('fixed', 'custom', 'free', 'seat_based')
    order by sp.created_at limit 1)`;

/**
 * The order of a field: by a property, or for prices by an SQL expression. Prices rank by the
 * static price as Polar does: free, custom, fixed by kind; free (-2), custom (its minimum, -1
 * when none), fixed (its amount) by amount.
 */
const productSortKeys: Record<ProductSortField, SortKey> = {
  created_at: 'createdAt',
  name: 'name',
  price_amount_type: (direction) =>
    orderByExpression(
      staticPriceValue(
        sqlText(
          "case sp.amount_type when 'free' then 1 when 'custom' then 2 when 'fixed' then 3 " +
            "when 'seat_based' then 4 end",
        ),
      ),
      direction,
    ),
  price_amount: (direction) =>
    orderByExpression(
      staticPriceValue(
        sqlText(
          "case sp.amount_type when 'free' then -2 when 'custom' then coalesce(sp.minimum_amount, -1) " +
            "when 'fixed' then sp.price_amount when 'seat_based' then sp.price_per_seat end",
        ),
      ),
      direction,
    ),
};

/** One page of the organization's products matching `filter`, and how many match. */
export function listProducts(
  em: EntityManager,
  organizationId: string,
  query: ListQuery<ProductListFilter, ProductSortField>,
) {
  const { isArchived, benefitIds } = query;
  return findPage(em, Product, {
    where: [
      { organization: organizationId },
      inList('id', query.ids),
      textSearch(['name'], query.query),
      isArchived !== undefined && { isArchived },
      isSet('recurringInterval', query.isRecurring),
      benefitIds.length > 0 &&
        linkedToAny('product_benefits', 'product_id', 'benefit_id', benefitIds),
      ...metadataFilterConditions(query.metadata),
    ],
    sorting: query.sorting,
    sortKeys: productSortKeys,
    page: query.page,
  });
}

/** Business-rule issues gathered over a whole request, answered together as Polar does. */
class IssueList {
  readonly issues: ValidationIssue[] = [];
  add(loc: (string | number)[], msg: string) {
    this.issues.push({ loc: ['body', ...loc], msg, type: 'value_error' });
  }
  throwIfAny() {
    if (this.issues.length) throw invalidFields(this.issues);
  }
}

/** Positions of ids already listed earlier in `ids`. */
function repeatedPositions(ids: string[]): Set<number> {
  const seen = new Set<string>();
  const repeated = new Set<number>();
  ids.forEach((id, index) => {
    if (seen.has(id)) repeated.add(index);
    seen.add(id);
  });
  return repeated;
}

/** The uploaded product_media files of the organization, in the order listed. */
async function resolveMedias(
  em: EntityManager,
  organizationId: string,
  ids: string[],
  issues: IssueList,
): Promise<StoredFile[]> {
  if (ids.length === 0) return [];
  const found = await em.find(StoredFile, {
    id: { $in: ids },
    organization: organizationId,
    service: 'product_media',
    isUploaded: true,
    deletedAt: null,
  });
  const byId = new Map(found.map((file) => [file.id, file]));
  const repeated = repeatedPositions(ids);
  return ids.flatMap((id, index) => {
    const file = byId.get(id);
    if (!file) issues.add(['medias', index], 'File does not exist or is not yet uploaded.');
    else if (repeated.has(index)) issues.add(['medias', index], 'File is listed twice.');
    return file && !repeated.has(index) ? [file] : [];
  });
}

type AttachedCustomFieldInput = ProductCreateInput['attached_custom_fields'][number];

/** The organization's custom fields to attach, in the order listed. */
async function resolveCustomFields(
  em: EntityManager,
  organizationId: string,
  attached: AttachedCustomFieldInput[],
  issues: IssueList,
): Promise<{ field: CustomField; required: boolean }[]> {
  if (attached.length === 0) return [];
  const ids = attached.map((entry) => entry.custom_field_id);
  const found = await em.find(CustomField, { id: { $in: ids }, organization: organizationId });
  const byId = new Map(found.map((field) => [field.id, field]));
  const repeated = repeatedPositions(ids);
  return attached.flatMap((entry, index) => {
    const field = byId.get(entry.custom_field_id);
    const loc = ['attached_custom_fields', index];
    if (!field) issues.add(loc, 'Custom field does not exist.');
    else if (repeated.has(index)) issues.add(loc, 'Custom field is listed twice.');
    return field && !repeated.has(index) ? [{ field, required: entry.required }] : [];
  });
}

type PriceEntry = ExistingPriceInput | PriceCreateInput;
const isExistingPrice = (entry: PriceEntry): entry is ExistingPriceInput => 'id' in entry;

/**
 * Checks a product's new price list: kept prices must be live prices of the product, meters of
 * the organization, seat-based pricing enabled for it, plus the list rules of `priceListViolations`.
 * Answers the prices kept and a maker for the new ones.
 */
async function resolvePrices(
  em: EntityManager,
  organizationId: string,
  entries: PriceEntry[],
  { recurring, livePrices }: { recurring: boolean; livePrices: ProductPrice[] },
  issues: IssueList,
) {
  const kept: ProductPrice[] = [];
  // The list rules look at the entries that name a price, each with its place in the request.
  const checked: { entry: PriceListEntry; index: number }[] = [];
  entries.forEach((entry, index) => {
    if (!isExistingPrice(entry)) {
      const meterId = entry.amount_type === 'metered_unit' ? entry.meter_id : null;
      checked.push({ entry: { amountType: entry.amount_type, meterId, isNew: true }, index });
      return;
    }
    const price = livePrices.find((live) => live.id === entry.id);
    if (!price) {
      issues.add(['prices', index], 'Price does not exist.');
      return;
    }
    kept.push(price);
    checked.push({ entry: { amountType: price.amountType, isNew: false }, index });
  });
  const violations = priceListViolations(
    checked.map(({ entry }) => entry),
    { recurring },
  );
  for (const violation of violations) {
    const loc: (string | number)[] = ['prices'];
    if (violation.index !== null) loc.push(checked[violation.index]?.index ?? violation.index);
    if (violation.field) loc.push(violation.field);
    issues.add(loc, violation.message);
  }

  const created = entries.flatMap((entry) => (isExistingPrice(entry) ? [] : [entry]));
  const meterIds = created.flatMap((entry) =>
    entry.amount_type === 'metered_unit' ? [entry.meter_id] : [],
  );
  const meters = meterIds.length
    ? await em.find(Meter, { id: { $in: meterIds }, organization: organizationId })
    : [];
  const meterById = new Map(meters.map((meter) => [meter.id, meter]));
  if (created.some((entry) => entry.amount_type === 'seat_based')) {
    const organization = await em.findOneOrFail(Organization, organizationId);
    if (!organization.featureSettings.seatBasedPricingEnabled) {
      entries.forEach((entry, index) => {
        if (!isExistingPrice(entry) && entry.amount_type === 'seat_based') {
          issues.add(['prices', index], 'Seat-based pricing is not enabled for this organization.');
        }
      });
    }
  }
  entries.forEach((entry, index) => {
    if (!isExistingPrice(entry) && entry.amount_type === 'metered_unit') {
      if (!meterById.has(entry.meter_id)) {
        issues.add(['prices', index, 'meter_id'], 'Meter does not exist.');
      }
    }
  });

  const createPrices = (product: Product) =>
    created.map((entry) => newPrice(em, product, entry, meterById));
  return { kept, createPrices };
}

function newPrice(
  em: EntityManager,
  product: Product,
  input: PriceCreateInput,
  meterById: Map<string, Meter>,
): ProductPrice {
  const base = { product, amountType: input.amount_type };
  switch (input.amount_type) {
    case 'fixed':
      return em.create(ProductPrice, {
        ...base,
        priceCurrency: input.price_currency,
        priceAmount: input.price_amount,
      });
    case 'custom':
      return em.create(ProductPrice, {
        ...base,
        priceCurrency: input.price_currency,
        minimumAmount: input.minimum_amount,
        maximumAmount: input.maximum_amount,
        presetAmount: input.preset_amount,
      });
    case 'free':
      return em.create(ProductPrice, base);
    case 'metered_unit':
      return em.create(ProductPrice, {
        ...base,
        priceCurrency: input.price_currency,
        unitAmount: input.unit_amount,
        capAmount: input.cap_amount,
        meter: meterById.get(input.meter_id),
      });
    case 'seat_based':
      return em.create(ProductPrice, {
        ...base,
        priceCurrency: input.price_currency,
        pricePerSeat: input.price_per_seat,
      });
  }
}

function attachMedias(em: EntityManager, product: Product, files: StoredFile[]) {
  files.forEach((file, order) => {
    em.create(ProductMedia, { product, file, order });
  });
}

function attachCustomFields(
  em: EntityManager,
  product: Product,
  fields: { field: CustomField; required: boolean }[],
) {
  fields.forEach(({ field, required }, order) => {
    em.create(ProductCustomField, { product, customField: field, order, required });
  });
}

/** Flushes the product and records `type` carrying its /v1 shape, the answer too. */
async function recordProduct(
  tx: EntityManager,
  product: Product,
  type: 'product.created' | 'product.updated',
  publicUrl: string,
): Promise<ProductWire> {
  await tx.flush();
  const [wire] = (await serializeProducts(tx, [product], publicUrl)) as [ProductWire];
  appendEvent(tx, product.organization.id, type, wire);
  await announceChange(tx, 'catalog', product.organization.id);
  return wire;
}

/** A trial (either of its fields) is refused on a one-time product. */
function checkTrialOnRecurring(
  issues: IssueList,
  recurring: boolean,
  input: Pick<ProductUpdateInput, 'trial_interval' | 'trial_interval_count'>,
) {
  if (recurring || (input.trial_interval == null && input.trial_interval_count == null)) return;
  issues.add(
    [input.trial_interval != null ? 'trial_interval' : 'trial_interval_count'],
    'Trial configuration is only supported on recurring products.',
  );
}

/**
 * Creates a product with its prices, medias and custom fields after checking every reference
 * belongs to the organization; emits `product.created`. Answers the product as /v1 shows it.
 */
export function createProduct(
  em: EntityManager,
  organizationId: string,
  input: ProductCreateInput,
  publicUrl: string,
) {
  return em.transactional(async (tx) => {
    const issues = new IssueList();
    const recurring = input.recurring_interval !== null;
    checkTrialOnRecurring(issues, recurring, input);
    const prices = await resolvePrices(
      tx,
      organizationId,
      input.prices,
      { recurring, livePrices: [] },
      issues,
    );
    const medias = await resolveMedias(tx, organizationId, input.medias ?? [], issues);
    const customFields = await resolveCustomFields(
      tx,
      organizationId,
      input.attached_custom_fields,
      issues,
    );
    issues.throwIfAny();

    const product = tx.create(Product, {
      organization: organizationId,
      name: input.name,
      description: input.description ?? null,
      recurringInterval: input.recurring_interval,
      trialInterval: input.trial_interval ?? null,
      trialIntervalCount: input.trial_interval_count ?? null,
      metadata: input.metadata,
      taxBehavior: input.tax_behavior,
    });
    prices.createPrices(product);
    attachMedias(tx, product, medias);
    attachCustomFields(tx, product, customFields);
    return recordProduct(tx, product, 'product.created', publicUrl);
  });
}

/**
 * Applies a seller's update. A `prices` list replaces the live prices: `{id}` keeps one, a new
 * object adds one, and live prices left out are archived (prices never change once created).
 * `medias` and `attached_custom_fields` replace theirs. Emits `product.updated`.
 */
export function updateProduct(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: ProductUpdateInput,
  publicUrl: string,
) {
  return em.transactional(async (tx) => {
    const product = await getProduct(tx, organizationId, id);
    const issues = new IssueList();
    const recurring = product.recurringInterval != null;
    if (
      input.recurring_interval != null &&
      input.recurring_interval !== product.recurringInterval
    ) {
      issues.add(['recurring_interval'], 'Recurring interval cannot be changed.');
    }
    checkTrialOnRecurring(issues, recurring, input);
    const livePrices = input.prices
      ? await tx.find(ProductPrice, { product, isArchived: false })
      : [];
    const prices = input.prices
      ? await resolvePrices(tx, organizationId, input.prices, { recurring, livePrices }, issues)
      : null;
    const medias = input.medias
      ? await resolveMedias(tx, organizationId, input.medias, issues)
      : null;
    const customFields = input.attached_custom_fields
      ? await resolveCustomFields(tx, organizationId, input.attached_custom_fields, issues)
      : null;
    issues.throwIfAny();

    if (input.name) product.name = input.name;
    if (input.description !== undefined) product.description = input.description;
    if (input.metadata) product.metadata = input.metadata;
    if (input.is_archived != null) product.isArchived = input.is_archived;
    if (input.tax_behavior) product.taxBehavior = input.tax_behavior;
    if (input.trial_interval !== undefined) product.trialInterval = input.trial_interval;
    if (input.trial_interval_count !== undefined) {
      product.trialIntervalCount = input.trial_interval_count;
    }
    if (prices) {
      for (const price of livePrices) {
        if (!prices.kept.includes(price)) price.isArchived = true;
      }
      prices.createPrices(product);
    }
    // Links are replaced whole; the old rows go first so the (product, x) uniques hold.
    if (medias) {
      await tx.nativeDelete(ProductMedia, { product });
      attachMedias(tx, product, medias);
    }
    if (customFields) {
      await tx.nativeDelete(ProductCustomField, { product });
      attachCustomFields(tx, product, customFields);
    }
    // The event carries the state after the change, so stamp the modification time now.
    product.modifiedAt = new Date();
    return recordProduct(tx, product, 'product.updated', publicUrl);
  });
}

/**
 * Replaces the product's benefits with `benefitIds`, in that order. Each must be a live benefit
 * of the organization; a benefit that is not selectable may stay but not be added or removed.
 * Emits `product.updated`.
 */
export function updateProductBenefits(
  em: EntityManager,
  organizationId: string,
  id: string,
  benefitIds: string[],
  publicUrl: string,
) {
  return em.transactional(async (tx) => {
    const product = await getProduct(tx, organizationId, id);
    const issues = new IssueList();
    const current = await tx.find(ProductBenefit, { product }, { populate: ['benefit'] });
    const currentIds = new Set(current.map((link) => link.benefit.id));
    const found = await tx.find(Benefit, {
      id: { $in: benefitIds },
      organization: organizationId,
      deletedAt: null,
    });
    const byId = new Map(found.map((benefit) => [benefit.id, benefit]));
    const repeated = repeatedPositions(benefitIds);
    benefitIds.forEach((benefitId, index) => {
      const benefit = byId.get(benefitId);
      if (!benefit) issues.add(['benefits', index], 'Benefit does not exist.');
      else if (repeated.has(index)) issues.add(['benefits', index], 'Benefit is listed twice.');
      else if (!benefit.selectable && !currentIds.has(benefitId)) {
        issues.add(['benefits', index], 'Benefit is not selectable.');
      }
    });
    for (const link of current) {
      if (!link.benefit.selectable && !benefitIds.includes(link.benefit.id)) {
        issues.add(['benefits'], 'Benefit is not selectable.');
      }
    }
    issues.throwIfAny();

    await tx.nativeDelete(ProductBenefit, { product });
    benefitIds.forEach((benefitId, order) => {
      tx.create(ProductBenefit, { product, benefit: byId.get(benefitId) as Benefit, order });
    });
    return recordProduct(tx, product, 'product.updated', publicUrl);
  });
}
