import type { Client } from '@temporalio/client';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { BenefitGrantInput, BenefitGrantRequest } from '../processes/benefit-grant.ts';
import { requestGrantChange } from '../processes/starters.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';

type GrantStepActivities = Pick<
  BenefitGrantActivities,
  'applyBenefitGrant' | 'applyBenefitRevocation' | 'applyBenefitCycle' | 'applyBenefitUpdate'
>;

/**
 * Runs one grant workflow on a worker of its own, with activities that answer without database
 * or third parties: the first request starts it, `after` sends the rest once the first step ran.
 */
async function recordGrant(
  client: Client,
  name: string,
  first: BenefitGrantRequest,
  after: BenefitGrantRequest[],
  firstOutcome: 'granted' | 'awaiting_account',
): Promise<string> {
  const input: BenefitGrantInput = {
    organizationId: 'replay-organization',
    customerId: `replay-customer-${name}`,
    benefitId: 'replay-benefit',
  };
  const taskQueue = `replay-${name}`;
  let ran: () => void = () => {};
  const firstStepRan = new Promise<void>((resolve) => {
    ran = resolve;
  });
  let sent: () => void = () => {};
  const restSent = new Promise<void>((resolve) => {
    sent = resolve;
  });
  const activities: GrantStepActivities = {
    // The first step ends once the other requests are queued: the run handles them all.
    applyBenefitGrant: async ({ source }) => {
      if (source === null) return 'granted';
      ran();
      await restSent;
      return firstOutcome;
    },
    applyBenefitRevocation: async () => 'revoked',
    applyBenefitCycle: async () => 'cycled',
    applyBenefitUpdate: async () => 'updated',
  };
  await recordOnOwnWorkers(client, { taskQueue, activities }, async () => {
    const handle = await requestGrantChange(client, input, first, taskQueue);
    await firstStepRan;
    for (const request of after) await requestGrantChange(client, input, request, taskQueue);
    sent();
    await handle.result();
  });
  return workflowIds.benefitGrant(input.customerId, input.benefitId);
}

const order = { orderId: 'replay-order', subscriptionId: null };
const subscription = { orderId: null, subscriptionId: 'replay-subscription' };

/**
 * A Discord grant's whole path: granted by an order while the customer has no linked account
 * (it waits), tried again once the account is linked (granted), then revoked when the order is
 * refunded.
 */
export const recordBenefitGrant = (client: Client) =>
  recordGrant(
    client,
    'benefit-grant',
    { action: 'grant', ...order },
    [{ action: 'retry' }, { action: 'revoke', force: false, ...order }],
    'awaiting_account',
  );

/** A subscription's meter credit: granted, renewed for a new period, revoked at the end. */
export const recordBenefitGrantCycled = (client: Client) =>
  recordGrant(
    client,
    'benefit-grant-cycled',
    { action: 'grant', ...subscription },
    [
      { action: 'cycle', periodStart: '2000-02-01T00:00:00.000Z' },
      { action: 'revoke', force: false, ...subscription },
    ],
    'granted',
  );

/** A license key's grant that follows the seller's change to its benefit, then is revoked. */
export const recordBenefitGrantUpdated = (client: Client) =>
  recordGrant(
    client,
    'benefit-grant-updated',
    { action: 'grant', ...order },
    [{ action: 'update' }, { action: 'revoke', force: true, orderId: null, subscriptionId: null }],
    'granted',
  );
