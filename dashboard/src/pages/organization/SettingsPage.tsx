import { useQuery } from '@tanstack/react-query';
import { useSignedIn } from '../../auth/session';
import { EntityPage, Section } from '../../components/EntityPage';
import { Loaded } from '../catalog/Loaded';
import { settingsApi, settingsKey } from './api';
import { usePermissions } from './useRole';
import './organization.css';
import { InvoiceSettingsForm } from './InvoiceSettingsForm';
import { ProfileForm } from './ProfileForm';
import { SlugForm } from './SlugForm';
import { SubscriptionSettingsForm } from './SubscriptionSettingsForm';

/** The organization's profile, subscription and invoice settings; members may read, owners and admins save. */
export default function SettingsPage() {
  const { organization } = useSignedIn();
  const { known, isWriter } = usePermissions();
  const settings = useQuery({
    queryKey: [...settingsKey, organization.id],
    queryFn: ({ signal }) => settingsApi.get(organization.id, signal),
  });
  return (
    <EntityPage title="Settings" subtitle={organization.name}>
      <Loaded query={settings} what="the organization's settings">
        {(loaded) => (
          <fieldset className="plain-fieldset" disabled={!isWriter}>
            {known && !isWriter && (
              <p className="muted">Only owners and admins change these settings.</p>
            )}
            <Section title="Profile">
              <ProfileForm organization={loaded} />
            </Section>
            <Section title="Slug">
              <SlugForm organization={loaded} />
            </Section>
            <Section title="Subscriptions">
              <SubscriptionSettingsForm organization={loaded} />
            </Section>
            <Section title="Invoices">
              <InvoiceSettingsForm organization={loaded} />
            </Section>
          </fieldset>
        )}
      </Loaded>
    </EntityPage>
  );
}
