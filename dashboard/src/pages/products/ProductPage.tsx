import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, type PageProps } from '../../router';
import { type Product, productKey, productsApi, productsKey } from './api';
import { BenefitsSection } from './BenefitsSection';
import { billingLabel, PriceSummary } from './prices';
import { useProduct } from './useProduct';
import './products.css';

export default function ProductPage({ params }: PageProps) {
  const product = useProduct(params.id ?? '');
  if (!product.isSuccess) {
    return (
      <EntityPageFallback
        title="Product"
        back={{ to: '/products', label: 'Products' }}
        query={product}
      />
    );
  }
  return <ProductView product={product.data} />;
}

function ProductView({ product }: { product: Product }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const archiving = !product.is_archived;
  const setArchived = async () => {
    const saved = await productsApi.update(product.id, { is_archived: archiving });
    queryClient.setQueryData(productKey(product.id), saved);
    await queryClient.invalidateQueries({ queryKey: productsKey });
  };
  const trial =
    product.trial_interval && product.trial_interval_count
      ? `${product.trial_interval_count} ${product.trial_interval}(s)`
      : 'None';

  return (
    <EntityPage
      title={product.name}
      subtitle={
        <>
          {billingLabel(product.recurring_interval)} ·{' '}
          <StatusBadge tone={archiving ? 'ok' : 'neutral'}>
            {archiving ? 'live' : 'archived'}
          </StatusBadge>
        </>
      }
      back={{ to: '/products', label: 'Products' }}
      actions={
        <>
          <Link to={`/products/${product.id}/edit`} className="button button-primary">
            Edit
          </Link>
          <button
            type="button"
            className={archiving ? 'button button-danger' : 'button'}
            onClick={() => setConfirming(true)}
          >
            {archiving ? 'Archive' : 'Unarchive'}
          </button>
        </>
      }
    >
      <Section title="Details">
        <Details
          items={[
            ['Description', product.description ?? <span className="muted">None</span>],
            ['Billing', billingLabel(product.recurring_interval)],
            ...(product.is_recurring ? [['Free trial', trial] as [string, string]] : []),
            ['Tax', product.tax_behavior === 'exempt' ? 'Tax exempt' : 'Taxable'],
            ['Created', <DateTime key="created" value={product.created_at} />],
            ['Modified', <DateTime key="modified" value={product.modified_at} />],
            ['ID', <code key="id">{product.id}</code>],
          ]}
        />
      </Section>
      <Section title="Prices">
        {product.prices.length === 0 ? (
          <p className="muted">No live price.</p>
        ) : (
          <ul className="link-list">
            {product.prices.map((price) => (
              <li key={price.id}>
                <PriceSummary price={price} />{' '}
                <span className="muted">
                  · added <DateTime value={price.created_at} format="date" />
                </span>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <BenefitsSection product={product} />
      <Section title="Images">
        {product.medias.length === 0 ? (
          <p className="muted">No images. Add some by editing the product.</p>
        ) : (
          <ul className="media-gallery">
            {product.medias.map((media) => (
              <li key={media.id}>
                <a href={media.public_url} target="_blank" rel="noreferrer">
                  <img src={media.public_url} alt={media.name} />
                </a>
                <span className="muted">{media.size_readable}</span>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Checkout fields">
        {product.attached_custom_fields.length === 0 ? (
          <p className="muted">Checkout asks for nothing more than the buyer's details.</p>
        ) : (
          <ul className="link-list">
            {product.attached_custom_fields.map(({ custom_field, required }) => (
              <li key={custom_field.id}>
                {custom_field.name} <span className="muted">({custom_field.type})</span>{' '}
                {required ? <StatusBadge tone="info">required</StatusBadge> : 'optional'}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <ConfirmDialog
        open={confirming}
        title={archiving ? `Archive ${product.name}?` : `Unarchive ${product.name}?`}
        confirmLabel={archiving ? 'Archive product' : 'Unarchive product'}
        tone={archiving ? 'danger' : 'primary'}
        onConfirm={setArchived}
        onClose={() => setConfirming(false)}
      >
        <p>
          {archiving
            ? 'New checkouts can no longer sell it; existing subscriptions and orders stay as they are. You can unarchive it later.'
            : 'It can be sold again through checkouts and checkout links.'}
        </p>
      </ConfirmDialog>
    </EntityPage>
  );
}
