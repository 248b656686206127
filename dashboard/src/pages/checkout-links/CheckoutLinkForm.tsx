import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { DiscountWire } from '../../../../commerce/discounts/schemas.ts';
import { api, type ListResource } from '../../api/client';
import { Form, SelectField, TextField, useApiForm } from '../../components/Form';
import { Link, navigate } from '../../router';
import { CheckboxField } from '../catalog/CheckboxField';
import { errorUnder } from '../catalog/inputs';
import { ProductsField } from '../catalog/ProductsField';
import { type CheckoutLink, checkoutLinksApi, checkoutLinksKey } from './api';
import {
  type CheckoutLinkFormValues,
  checkoutLinkBody,
  checkoutLinkFormSchema,
  initialValues,
} from './form';

/** The discounts a link may apply (the first 100, by name). */
function useDiscountOptions() {
  const discounts = useQuery({
    queryKey: ['discounts', 'picker'],
    queryFn: ({ signal }) =>
      api.get<ListResource<DiscountWire>>('/v1/discounts/', {
        query: { limit: 100, sorting: ['name'] },
        signal,
      }),
  });
  return [
    { value: '', label: discounts.isPending ? 'Loading discounts…' : 'No discount' },
    ...(discounts.data?.items ?? []).map((discount) => ({
      value: discount.id,
      label: discount.code ? `${discount.name} (${discount.code})` : discount.name,
    })),
  ];
}

/** Creates a checkout link, or edits `link`. */
export function CheckoutLinkForm({ link }: { link?: CheckoutLink }) {
  const queryClient = useQueryClient();
  const discountOptions = useDiscountOptions();
  const form = useApiForm<CheckoutLinkFormValues, CheckoutLink>(
    initialValues(link),
    (values) =>
      link
        ? checkoutLinksApi.update(link.id, checkoutLinkBody(values, false))
        : checkoutLinksApi.create(checkoutLinkBody(values, true)),
    {
      schema: checkoutLinkFormSchema(!link),
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: checkoutLinksKey });
        navigate('/checkout-links');
      },
    },
  );
  return (
    <Form
      form={form}
      submitLabel={link ? 'Save changes' : 'Create checkout link'}
      actions={
        <Link to="/checkout-links" className="button">
          Cancel
        </Link>
      }
    >
      <ProductsField
        legend="Products"
        hint="The buyer picks one of these at checkout (at least one)."
        selected={form.values.products}
        error={errorUnder(form.fieldErrors, 'products')}
        onChange={(products) => form.setValue('products', products)}
      />
      <TextField form={form} name="label" label="Label" hint="For you only: buyers never see it." />
      <TextField
        form={form}
        name="success_url"
        label="Success URL"
        type="url"
        placeholder="https://example.com/thanks?checkout_id={CHECKOUT_ID}"
        hint="Where buyers go after paying; {CHECKOUT_ID} is replaced by the checkout's id."
      />
      <SelectField
        form={form}
        name="discount_id"
        label="Discount applied"
        options={discountOptions}
      />
      <CheckboxField
        form={form}
        name="allow_discount_codes"
        label="Buyers may enter discount codes"
      />
      <CheckboxField form={form} name="require_billing_address" label="Require a billing address" />
    </Form>
  );
}
