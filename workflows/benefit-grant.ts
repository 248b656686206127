import {
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import {
  type BenefitGrantInput,
  type BenefitGrantRequest,
  benefitGrantRequest,
} from '../processes/benefit-grant.ts';

// A grant is retried until it succeeds: a Discord or GitHub outage, or the database being away,
// delays it; every attempt's failure is noted on the grant meanwhile.
const grants = proxyActivities<BenefitGrantActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/**
 * The life of one customer's grant of one benefit (`grant:<customer>:<benefit>`): grant and
 * revoke requests, signalled by whatever gives or takes the benefit, are applied one at a time
 * in the order they came. The run ends when none is left, unless a Discord or GitHub grant
 * waits for the customer to link an account: it then waits for the link's `retry`. A request
 * that comes after the end starts a new run (signal-with-start).
 */
export async function benefitGrant(input: BenefitGrantInput): Promise<void> {
  const { organizationId: _organization, pending: carried = [], ...target } = input;
  const pending: BenefitGrantRequest[] = [...carried];
  setHandler(benefitGrantRequest, (request) => {
    pending.push(request);
  });

  let awaitingAccount = false;
  for (;;) {
    if (pending.length === 0) {
      if (!awaitingAccount) return;
      if (workflowInfo().continueAsNewSuggested) {
        return continueAsNew<typeof benefitGrant>({ ...input, pending: [] });
      }
      await condition(() => pending.length > 0);
    }
    const request = pending.shift() as BenefitGrantRequest;
    if (request.action === 'revoke') {
      const { action: _revoke, force, ...source } = request;
      await grants.applyBenefitRevocation({ target, source, force });
      awaitingAccount = false;
    } else if (request.action === 'cycle') {
      await grants.applyBenefitCycle({ target, periodStart: request.periodStart });
    } else if (request.action === 'update') {
      await grants.applyBenefitUpdate({ target });
    } else {
      const source =
        request.action === 'grant'
          ? { orderId: request.orderId, subscriptionId: request.subscriptionId }
          : null;
      const outcome = await grants.applyBenefitGrant({ target, source });
      awaitingAccount = outcome === 'awaiting_account';
    }
    if (workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof benefitGrant>({ ...input, pending: [...pending] });
    }
  }
}
