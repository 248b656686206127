import { useQuery } from '@tanstack/react-query';
import { EntityPage } from '../../components/EntityPage';
import type { PageProps } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { Loaded } from '../catalog/Loaded';
import { checkoutLinksApi, checkoutLinksKey, linkName } from './api';
import { CheckoutLinkForm } from './CheckoutLinkForm';
import { CopyUrlButton } from './CopyUrlButton';

/** A checkout link: its URL to copy, its settings to edit, and deleting it. */
export default function CheckoutLinkPage({ params }: PageProps) {
  const id = params.id ?? '';
  const link = useQuery({
    queryKey: [...checkoutLinksKey, id],
    queryFn: ({ signal }) => checkoutLinksApi.get(id, signal),
  });
  return (
    <EntityPage
      title={link.data ? linkName(link.data) : 'Checkout link'}
      subtitle={
        link.data && (
          <>
            <code>{link.data.url}</code> <CopyUrlButton url={link.data.url} />
          </>
        )
      }
      back={{ to: '/checkout-links', label: 'Checkout links' }}
      actions={
        <DeleteAction
          label="Delete checkout link"
          run={() => checkoutLinksApi.delete(id)}
          queryKey={checkoutLinksKey}
          then="/checkout-links"
        >
          The link stops opening checkouts; checkouts already opened through it go on.
        </DeleteAction>
      }
    >
      {/* Keyed by the link: a refetch must not reset what is being typed. */}
      <Loaded query={link} what="the checkout link">
        {(loaded) => <CheckoutLinkForm key={loaded.id} link={loaded} />}
      </Loaded>
    </EntityPage>
  );
}
