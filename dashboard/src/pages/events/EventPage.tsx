import { useQuery } from '@tanstack/react-query';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { Link, type PageProps } from '../../router';
import { eventsApi, eventsKey } from './api';

const back = { to: '/events', label: 'Usage events' };

export default function EventPage({ params }: PageProps<'/events/:id'>) {
  const { id } = params;
  const event = useQuery({
    queryKey: [...eventsKey, id],
    queryFn: ({ signal }) => eventsApi.get(id, signal),
  });
  if (!event.isSuccess) return <EntityPageFallback title="Event" back={back} query={event} />;
  const { data } = event;
  const metadata = Object.entries(data.metadata);
  return (
    <EntityPage
      title={<code>{data.name}</code>}
      subtitle={
        <>
          Event · <DateTime value={data.timestamp} format="seconds" />
        </>
      }
      back={back}
    >
      <Section title="Details">
        <Details
          items={[
            ['Name', <code key="name">{data.name}</code>],
            ['Time', <DateTime key="time" value={data.timestamp} format="seconds" />],
            ['Source', data.source],
            [
              'Customer',
              data.customer ? (
                <Link key="customer" to={`/customers/${data.customer.id}`}>
                  {data.customer.email}
                </Link>
              ) : (
                '—'
              ),
            ],
            ['External customer id', data.external_customer_id ?? '—'],
            [
              'Same name',
              <Link key="same" to={`/events?name=${encodeURIComponent(data.name)}`}>
                Every “{data.name}” event
              </Link>,
            ],
            ['Event id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      <Section title="Metadata">
        {metadata.length === 0 ? (
          <p className="muted">This event has no metadata.</p>
        ) : (
          <Details
            items={metadata.map(([name, value]) => [
              name,
              <code key={name}>{JSON.stringify(value)}</code>,
            ])}
          />
        )}
      </Section>
    </EntityPage>
  );
}
