import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useState } from 'react';
import { getSocialProviders, providerName, socialProvidersQueryKey } from '../../api/auth';
import type { PageQuery } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { ResourceTable } from '../../components/ResourceListPage';
import { useQueryState } from '../../router';
import { DeleteAction } from '../catalog/DeleteAction';
import { pageOf } from '../organization/api';
import { AccountPage } from './AccountPage';
import { accountApi, accountKeys, type LinkedAccount, signInMethodName } from './api';

/** What the provider's trip back says went wrong (`?error=` from the callback), in words. */
const linkRefusals: Record<string, string> = {
  "email_doesn't_match":
    'That account’s email address is not yours here: link an account with the same address.',
  account_already_linked_to_different_user: 'That account is linked to another user already.',
  unable_to_link_account:
    'That account could not be linked: the provider has not verified its email address.',
  access_denied: 'The provider did not let the account be linked.',
};

const column = createColumnHelper<LinkedAccount>();

const fetchPage = async (query: PageQuery, signal: AbortSignal) =>
  pageOf(await accountApi.linkedAccounts(signal), query, {
    created_at: (account) => account.createdAt,
  });

/** The ways the user signs in: email and password, and social providers (link, unlink). */
export default function LinkedAccountsPage() {
  const [query] = useQueryState();
  const refusal = query.get('error');
  const columns = [
    column.accessor((account) => signInMethodName(account.providerId), {
      id: 'provider',
      header: 'Signs in with',
    }),
    column.accessor('accountId', {
      header: 'Account at the provider',
      cell: (cell) => (cell.row.original.providerId === 'credential' ? '—' : cell.getValue()),
    }),
    column.accessor('createdAt', {
      id: 'created_at',
      header: 'Linked',
      enableSorting: true,
      cell: (cell) => <DateTime value={cell.getValue()} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      cell: (cell) => {
        const account = cell.row.original;
        if (account.providerId === 'credential') return null;
        const name = providerName(account.providerId);
        return (
          <DeleteAction
            label={`Unlink ${name}`}
            run={() => accountApi.unlink(account)}
            queryKey={accountKeys.linkedAccounts}
          >
            You will no longer sign in with this {name} account. The last way you sign in cannot be
            unlinked.
          </DeleteAction>
        );
      },
    }),
  ];
  return (
    <AccountPage title="Linked accounts">
      {refusal && (
        <div className="error-message" role="alert">
          <strong>The account was not linked</strong>
          <p>{linkRefusals[refusal] ?? `The provider answered: ${refusal}.`}</p>
        </div>
      )}
      <Section title="How you sign in">
        <ResourceTable
          label="Linked accounts"
          source={{ queryKey: accountKeys.linkedAccounts, fetchPage }}
          columns={columns}
          defaultSorting="created_at"
        />
      </Section>
      <Section title="Link another account">
        <LinkButtons />
      </Section>
    </AccountPage>
  );
}

/** A button per configured provider: the provider's page, then back here with it linked. */
function LinkButtons() {
  const [error, setError] = useState<Error | null>(null);
  const configured = useQuery({
    queryKey: socialProvidersQueryKey,
    queryFn: ({ signal }) => getSocialProviders(signal),
  });
  if (configured.isError) {
    return <ErrorMessage title="Could not load the providers" error={configured.error} />;
  }
  if (!configured.data) return <p className="muted">Loading…</p>;
  if (configured.data.providers.length === 0) {
    return <p className="muted">No social sign-in is configured on this server.</p>;
  }
  const link = async (provider: string) => {
    setError(null);
    try {
      const { url } = await accountApi.linkSocial(provider);
      window.location.assign(url);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return (
    <div className="form-actions">
      {error && <ErrorMessage title="Could not start linking" error={error} />}
      {configured.data.providers.map((provider) => (
        <button key={provider} type="button" className="button" onClick={() => link(provider)}>
          Link {providerName(provider)}
        </button>
      ))}
    </div>
  );
}
