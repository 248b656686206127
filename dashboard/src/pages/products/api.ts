/**
 * The catalog calls the product pages make, typed by the API's own wire functions (type-only
 * imports: nothing of the server is bundled).
 */
import type { BenefitWire } from '../../../../commerce/benefits/schemas.ts';
import type { CustomFieldWire } from '../../../../commerce/custom-fields/schemas.ts';
import type { productMediaWire } from '../../../../commerce/files/schemas.ts';
import type { MeterWire } from '../../../../commerce/meters/schemas.ts';
import type { PriceWire, ProductBaseWire } from '../../../../commerce/products/schemas.ts';
import type { TaxBehavior } from '../../../../domain/tax.ts';
import { api, type ListResource } from '../../api/client';
import type { PageQuery } from '../../components/DataTable';

export type Price = PriceWire;
export type ProductMedia = ReturnType<typeof productMediaWire>;
export type Benefit = BenefitWire;
export type CustomField = CustomFieldWire;
export type Meter = MeterWire;

/** Polar's `Product`: the base fields with its live prices and what is attached to it. */
export interface Product extends ProductBaseWire {
  prices: Price[];
  benefits: Benefit[];
  medias: ProductMedia[];
  attached_custom_fields: {
    custom_field_id: string;
    custom_field: CustomField;
    order: number;
    required: boolean;
  }[];
  /** Tollgate's own (docs/tax.md): whether the organization's tax applies to it. */
  tax_behavior: TaxBehavior;
}

/** Query cache keys: every product query starts with `productsKey`, so one invalidation refreshes all. */
export const productsKey = ['products'] as const;
export const productKey = (id: string) => [...productsKey, id] as const;

/** The largest page the API answers: pickers offer the first 100 benefits, meters, fields. */
const pickerQuery = { limit: 100 };

export const productsApi = {
  list: (query: PageQuery, signal: AbortSignal) =>
    api.get<ListResource<Product>>('/v1/products/', { query, signal }),
  get: (id: string, signal?: AbortSignal) => api.get<Product>(`/v1/products/${id}`, { signal }),
  create: (body: unknown) => api.post<Product>('/v1/products/', body),
  update: (id: string, body: unknown) => api.patch<Product>(`/v1/products/${id}`, body),
  /** Replaces the product's benefits with `benefitIds`, in that order. */
  setBenefits: (id: string, benefitIds: string[]) =>
    api.post<Product>(`/v1/products/${id}/benefits`, { benefits: benefitIds }),
  benefits: (signal: AbortSignal) =>
    api.get<ListResource<Benefit>>('/v1/benefits/', {
      query: { ...pickerQuery, sorting: ['description'] },
      signal,
    }),
  meters: (signal: AbortSignal) =>
    api.get<ListResource<Meter>>('/v1/meters/', {
      query: { ...pickerQuery, is_archived: false },
      signal,
    }),
  customFields: (signal: AbortSignal) =>
    api.get<ListResource<CustomField>>('/v1/custom-fields/', { query: pickerQuery, signal }),
};
