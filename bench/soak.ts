/**
 * The soak (issue 21): the stack `npm start` runs (2 API and 2 worker processes, the Temporal dev
 * server on its SQLite file, PostgreSQL, the Stripe simulator), mixed traffic through the public
 * API for a bounded time, faults at random moments meanwhile, and the invariants of
 * bench/soak/invariants.ts checked at the end: nothing lost, nothing done twice.
 *
 *   npm run soak                      about two minutes of traffic
 *   npm run soak -- --minutes=10      the release form: every fault kind at least 5 times
 *   npm run soak -- --short           the form `npm test` runs (a minute, each fault once)
 *
 * Prints the operations attempted and completed, the faults injected, the invariants held and
 * every violation with its ids; writes bench/results/soak.json; exits 1 on any violation.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createAccessToken } from '../commerce/access-tokens/service.ts';
import { Member, Organization, User } from '../db/entities/index.ts';
import { openOrm } from '../db/orm.ts';
import { seededRandom } from '../devstack/seeded-random.ts';
import { stripeSimulatorControl } from '../devstack/stripe-simulator.ts';
import { allScopes } from '../domain/scopes.ts';
import { commerceEventTypes } from '../domain/webhooks.ts';
import { connectTemporal } from '../temporal/client.ts';
import { writeBenchResults } from './lib/results.ts';
import {
  type InvitationFates,
  runInvariants,
  type ThreeDSecureCheckouts,
  type WebhookReceipt,
} from './soak/invariants.ts';
import { type SoakReceiver, startReceivers } from './soak/receivers.ts';
import { type SoakStack, startSoakStack } from './soak/stack.ts';
import {
  apiClient,
  buyers,
  type Catalog,
  catalogEdits,
  invitations,
  type Lane,
  OperationCounts,
  refunds,
  seedCatalog,
  subscribers,
  threeDSecureBuyers,
  usage,
} from './soak/traffic.ts';

const flag = (name: string) =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.split('=')[1];
const short = process.argv.includes('--short');
const minutes = Number(flag('minutes') ?? (short ? 1 : 2));
if (!(minutes > 0)) throw new Error('usage: node bench/soak.ts [--minutes=N] [--short]');
const trafficSeconds = Math.round(minutes * 60);
/** Each process fault kind this many times (5 or more in ten minutes); Stripe faults twice as often. */
const faultsPerKind = short ? 1 : Math.max(1, Math.round(minutes * 0.6));
/** How long the lanes may take to finish what they started once the traffic stops. */
const drainSeconds = short ? 120 : 240;
/** How long a webhook receiver stays down each time (within the retry schedule of bench/soak/stack.ts). */
const receiverDownMs = short ? 15_000 : 45_000;

const say = (line: string) =>
  console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** The run's draws come from this seed, printed so a run can be replayed (`--seed=`). */
const seed = Number(flag('seed') ?? Math.floor(Math.random() * 2 ** 31));
const random = seededRandom(seed);

const processFaults = {
  'API process SIGKILL': async (stack: SoakStack) => {
    await stack.kill('api', { copy: true });
    await stack.restart('api');
  },
  'worker process SIGKILL': async (stack: SoakStack) => {
    await stack.kill('worker', { copy: true });
    await stack.restart('worker');
  },
  'Temporal dev server SIGKILL': async (stack: SoakStack) => {
    await stack.kill('temporal');
    await stack.restart('temporal');
  },
  'PostgreSQL restart (fast shutdown)': async (stack: SoakStack) => {
    await stack.stopGracefully('postgres');
    await stack.restart('postgres');
  },
} as const;

/** Stripe's network failing one call or a few: errors, dropped connections, lost answers. */
async function stripeNetworkFault(stack: SoakStack) {
  const modes = ['error', 'drop', 'lost'] as const;
  const mode = modes[Math.floor(random() * modes.length)] ?? 'error';
  const path = random() < 0.8 ? '/v1/payment_intents' : '/v1/refunds';
  await stripeSimulatorControl(stack.stripeSimulatorUrl).injectFault({
    path,
    method: 'POST',
    mode,
    count: 1 + Math.floor(random() * 3),
    delayMs: mode === 'error' ? 0 : 200,
  });
  return `Stripe ${mode} (${path})`;
}

async function main() {
  const started = Date.now();
  say(`seed ${seed}; ${trafficSeconds} s of traffic, each process fault ${faultsPerKind}×`);
  const stack = await startSoakStack(say);
  const faults = new Map<string, number>();
  const count = (kind: string) => faults.set(kind, (faults.get(kind) ?? 0) + 1);
  const unaskedExits: string[] = [];
  let stopping = false;
  let closeReceivers = async (): Promise<unknown> => undefined;
  const stopStack = async () => {
    stopping = true;
    await stack.stop();
    await closeReceivers();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void stopStack().then(() => process.exit(130)));
  }
  try {
    const { token, organizationId } = await seedSeller(stack.addresses.databaseUrl);
    const seller = apiClient(stack.apiUrl, token);
    const buyer = apiClient(stack.apiUrl, null);
    // Five receivers, most of them misbehaving, each an endpoint of every event type.
    const receivers = await startReceivers([
      { name: 'steady', seed },
      { name: 'failing', failFraction: 0.2, seed: seed + 1 },
      { name: 'hanging', hangFraction: 0.05, seed: seed + 2 },
      { name: 'going-down', seed: seed + 3 },
      { name: 'flaky', failFraction: 0.1, hangFraction: 0.02, seed: seed + 4 },
    ]);
    closeReceivers = () => Promise.all(receivers.map((receiver) => receiver.close()));
    for (const receiver of receivers) {
      const endpoint = await seller(
        'POST',
        '/v1/webhooks/endpoints',
        { url: receiver.url, format: 'raw', events: [...commerceEventTypes] },
        { expect: [200, 201] },
      );
      receiver.setSecret(endpoint.body.secret);
    }
    const goingDown = receivers[3] as SoakReceiver;
    const stripe = stripeSimulatorControl(stack.stripeSimulatorUrl);
    // Stripe's network at random all along, besides the faults armed at chosen moments.
    await stripe.setChaos({
      error: 0.03,
      drop: 0.02,
      lost: 0.03,
      slow: 0.05,
      hang: 0,
      duplicate: 0.1,
      reorder: 0.05,
      slowMs: 1500,
      reorderMs: 1000,
      seed,
    });
    const catalog: Catalog = await seedCatalog(seller);
    const ops = new OperationCounts();
    const trafficEnds = Date.now() + trafficSeconds * 1000;
    const lane: Lane = {
      seller,
      buyer,
      ops,
      catalog,
      apiUrl: stack.apiUrl,
      stripeSimulatorUrl: stack.stripeSimulatorUrl,
      mailDirectory: stack.addresses.mailCaptureDir ?? '',
      over: () => Date.now() > trafficEnds || stopping,
      random,
    };

    // A part that exits on its own (not killed by the soak) is a finding, and restarted.
    let faulting = Promise.resolve();
    const watch = setInterval(() => {
      for (const part of stack.takeUnexpectedExits()) {
        unaskedExits.push(`${part} at ${new Date().toISOString()}`);
        faulting = faulting
          .then(() => stack.restart(part))
          .catch((error: unknown) => {
            say(`restarting ${part} failed: ${String(error)}`);
          });
      }
    }, 1000);

    // Faults spread over the traffic window, each kind `faultsPerKind` times, in random order.
    const schedule = [
      ...Object.keys(processFaults).flatMap((kind) => Array(faultsPerKind).fill(kind) as string[]),
      ...Array(2 * faultsPerKind).fill('stripe'),
      ...Array(faultsPerKind).fill('receiver'),
    ].sort(() => random() - 0.5);
    // Each fault at a moment drawn within its own slot of the window's first 90 %, so that the
    // time restarts take (a minute under load) delays the next fault but never pushes the run's
    // faults past the traffic.
    const faultLane = (async () => {
      const windowStart = Date.now();
      const slot = (trafficSeconds * 1000 * 0.9) / schedule.length;
      for (const [index, kind] of schedule.entries()) {
        if (stopping) break;
        await sleep(Math.max(0, windowStart + slot * (index + random()) - Date.now()));
        const injected = faulting.then(async () => {
          if (kind === 'stripe') {
            count(await stripeNetworkFault(stack));
            return;
          }
          if (kind === 'receiver') {
            // Down for a while in the background: the endpoint's events wait, in order.
            void goingDown.downFor(receiverDownMs);
            count('webhook receiver down');
            return;
          }
          say(`fault: ${kind}`);
          await processFaults[kind as keyof typeof processFaults](stack);
          count(kind);
        });
        faulting = injected.catch((error: unknown) =>
          say(`fault ${kind} failed: ${String(error)}`),
        );
        await faulting;
      }
    })();

    say(
      'traffic: buyers (some with 3-D Secure), refunds, subscribers on test clocks, usage, invitations, catalog edits',
    );
    const paid: { id: string; net_amount: number }[] = [];
    const threeDSecureCheckouts: ThreeDSecureCheckouts = { paid: [], abandoned: [] };
    const invitationFates: InvitationFates = { accepted: [], canceled: [], expired: [] };
    const months = short ? 2 : 4;
    const lanes = Promise.all([
      usage(lane, short ? 40 : Math.round(150 * minutes)),
      buyers(lane, paid, short ? 12 : 40 * minutes),
      buyers(lane, paid, short ? 12 : 40 * minutes),
      threeDSecureBuyers(lane, threeDSecureCheckouts, paid, short ? 5 : 15 * minutes),
      refunds(lane, paid),
      subscribers(lane, short ? 4 : Math.round(6 * minutes), months),
      invitations(lane, invitationFates, short ? 6 : 20 * minutes),
      catalogEdits(lane),
    ]);
    await faultLane;
    await faulting;
    const drained = await Promise.race([
      lanes.then(() => true),
      sleep(Math.max(0, trafficEnds - Date.now()) + drainSeconds * 1000, false),
    ]);
    if (!drained) say(`the lanes did not finish within ${drainSeconds} s after the traffic`);
    clearInterval(watch);
    await faulting;
    const acknowledgedEvents = await lanes.then(
      ([acknowledged]) => acknowledged,
      () => [],
    );

    say('draining: faults off, waiting for checkouts and deliveries to settle');
    await stripe.clearChaos();
    await stripe.clearFaults();
    for (const [mode, times] of Object.entries(await stripe.faultCounts())) {
      if (times) faults.set(`Stripe ${mode} (armed or random)`, times);
    }
    // Every receiver healthy again: what they hold back must now be delivered.
    for (const receiver of receivers) receiver.setBehaviour({});
    await Promise.all(receivers.map((receiver) => receiver.comeBack()));
    await settle(stack.addresses.databaseUrl);
    const webhookReceipts: WebhookReceipt[] = receivers.flatMap((receiver) =>
      receiver.records.map((record) => ({
        url: receiver.url,
        webhookId: record.webhookId,
        // What identifies the event's content: a redelivery must carry the same.
        body: record.eventKey,
        status: record.outcome === 'accepted' ? 200 : record.outcome === 'failed' ? 500 : undefined,
        signatureValid: record.signatureValid,
      })),
    );

    const temporal = await connectTemporal({
      ...stack.config.temporal,
      address: stack.addresses.temporalAddress,
    });
    const results = await runInvariants({
      databaseUrl: stack.addresses.databaseUrl,
      stripeSimulatorUrl: stack.stripeSimulatorUrl,
      stripeSecretKey: stack.config.stripe.secretKey,
      temporal,
      acknowledgedEvents: { organizationId, externalIds: acknowledgedEvents },
      webhookReceipts,
      deliveredEndpointUrls: receivers.map((receiver) => receiver.url),
      api: { url: stack.apiUrl, token },
      invitationFates,
      threeDSecureCheckouts,
    }).finally(() => temporal.connection.close());
    const violations = results.flatMap((result) => result.violations);

    console.log('\nOperations');
    console.table(
      Object.fromEntries(
        [...ops.counts].map(([kind, counted]) => [
          kind,
          {
            ...counted,
            'first failures': (ops.failures.get(kind) ?? []).join(' | ').slice(0, 160),
          },
        ]),
      ),
    );
    console.log('Faults injected');
    console.table(Object.fromEntries([...faults].map(([kind, times]) => [kind, { times }])));
    if (unaskedExits.length)
      say(`parts that exited unasked (restarted): ${unaskedExits.join(', ')}`);
    console.log('Invariants');
    console.table(
      Object.fromEntries(
        results.map((result) => [
          result.invariant,
          {
            held: !result.checked ? 'not checked' : result.violations.length ? 'NO' : 'yes',
            violations: result.violations.length,
          },
        ]),
      ),
    );
    for (const note of results.flatMap((result) => result.notes)) say(`note: ${note}`);
    for (const violation of violations.slice(0, 100)) {
      say(`VIOLATION ${violation.invariant}: ${violation.detail} ${JSON.stringify(violation.ids)}`);
    }
    writeBenchResults('soak', {
      settings: {
        minutes,
        short,
        seed,
        apiProcesses: 2,
        workerProcesses: 2,
        faultsPerKind,
      },
      operations: Object.fromEntries(ops.counts),
      operationFailures: Object.fromEntries(ops.failures),
      faults: Object.fromEntries(faults),
      unaskedExits,
      lanesFinished: drained,
      invariants: results.map((result) => ({
        invariant: result.invariant,
        checked: result.checked,
        held: result.checked && result.violations.length === 0,
        violations: result.violations.length,
        notes: result.notes,
      })),
      violations,
      seconds: Math.round((Date.now() - started) / 1000),
      measuredAt: new Date().toISOString(),
    });
    if (violations.length > 0) {
      say(`${violations.length} violations`);
      process.exitCode = 1;
    } else {
      say('every invariant held');
    }
  } finally {
    await stopStack();
  }
}

/** The soak's seller, straight in the database: an organization, its owner, a token of every scope. */
async function seedSeller(databaseUrl: string) {
  const orm = await openOrm(databaseUrl);
  try {
    const em = orm.em.fork();
    const owner = em.create(User, { email: 'owner@soak.bench', name: 'Soak owner' });
    const organization = em.create(Organization, { name: 'Soak', slug: 'soak' });
    em.create(Member, { organization, user: owner, role: 'owner' });
    await em.flush();
    const { token } = await createAccessToken(em, {
      organizationId: organization.id,
      comment: 'soak',
      scopes: allScopes,
    });
    return { token, organizationId: organization.id };
  } finally {
    await orm.close();
  }
}

/**
 * Waits (up to three minutes) until no checkout is left open or confirmed (an abandoned one
 * expires within the stack's 90 s TTL, and its checkout.updated is sent to every endpoint: the
 * receivers' receipts are read once this returns), no refund Stripe took is left pending (a lost
 * webhook costs its workflow a minute before it asks Stripe), the outbox is relayed and every
 * webhook event delivered.
 */
async function settle(databaseUrl: string) {
  const orm = await openOrm(databaseUrl);
  try {
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      const [row] = await orm.em
        .getConnection()
        .execute<Record<'unsettled' | 'pendingRefunds' | 'unrelayed' | 'undelivered', string>[]>(
          `select (select count(*) from checkouts where status in ('open', 'confirmed')) as unsettled,
             (select count(*) from refunds where status = 'pending' and processor_id is not null)
               as "pendingRefunds",
             (select count(*) from outbox_events where relayed_at is null) as unrelayed,
             (select count(*) from webhook_events where succeeded is not true) as undelivered`,
        );
      if (row && Object.values(row).every((n) => Number(n) === 0)) return;
      await sleep(1000);
    }
  } finally {
    await orm.close();
  }
}

await main().catch((error: unknown) => {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
process.exit();
