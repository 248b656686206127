import { useState } from 'react';
import { RadioList } from './fields';
import type { CheckoutForm } from './form';
import { moneyInputText } from './money';
import { priceText, staticPrices } from './prices';

/** The checkout's products and the product's prices, as radios when there is a choice. */
export function ProductPicker({ form }: { form: CheckoutForm }) {
  const { checkout, busy } = form;
  // The product or price just picked, shown at once while the server prices it.
  const [picking, setPicking] = useState<{ productId?: string; priceId?: string }>({});
  const prices = staticPrices(checkout.product.prices);

  /** Another product or price picked: priced by the server, a custom amount starts at its answer. */
  async function pick(choice: { productId?: string; priceId?: string }) {
    setPicking(choice);
    const next = await form.save(
      choice.productId ? { product_id: choice.productId } : { product_price_id: choice.priceId },
      ['product_id', 'product_price_id', 'amount'],
    );
    setPicking({});
    if (next?.product_price.amount_type === 'custom')
      form.set({ amountText: moneyInputText(next.amount) });
  }

  return (
    <>
      {checkout.products.length > 1 && (
        <fieldset>
          <legend>Product</legend>
          <RadioList
            name="product"
            options={checkout.products}
            checked={picking.productId ?? checkout.product_id}
            disabled={busy}
            onPick={(product) => pick({ productId: product.id })}
          >
            {(product) => (
              <span>
                {product.name}
                <span className="muted">
                  {' '}
                  — {staticPrices(product.prices).map(priceText).join(' or ')}
                </span>
              </span>
            )}
          </RadioList>
        </fieldset>
      )}

      {prices.length > 1 && (
        <fieldset>
          <legend>Price</legend>
          <RadioList
            name="price"
            options={prices}
            checked={picking.priceId ?? checkout.product_price_id}
            disabled={busy}
            onPick={(price) => pick({ priceId: price.id })}
          >
            {(price) => <span>{priceText(price)}</span>}
          </RadioList>
        </fieldset>
      )}
    </>
  );
}
