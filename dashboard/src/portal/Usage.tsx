import { Loaded, useResource } from './resource';
import { creditStanding, formatUnits } from './units';

/**
 * The customer's usage on each of the seller's meters: units consumed, credited (a plan's
 * included units) and what is left of the credits.
 */
export function Usage() {
  const meters = useResource(async (api) => (await api.meters()).items);
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <Loaded resource={meters} what="your usage">
        {(items) =>
          items.length === 0 ? (
            <p className="portal-empty">No usage recorded yet.</p>
          ) : (
            <ul className="portal-cards">
              {items.map((standing) => {
                const credits = creditStanding(standing);
                return (
                  <li key={standing.id} className="portal-card">
                    <article aria-labelledby={`meter-${standing.id}`}>
                      <h3 id={`meter-${standing.id}`}>{standing.meter.name}</h3>
                      <dl className="portal-facts">
                        <dt>Used</dt>
                        <dd>{formatUnits(standing.consumed_units)} units</dd>
                        <dt>Credited</dt>
                        <dd>{formatUnits(standing.credited_units)} units</dd>
                        {credits && (
                          <>
                            <dt>Balance</dt>
                            <dd>{credits}</dd>
                          </>
                        )}
                      </dl>
                    </article>
                  </li>
                );
              })}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}
