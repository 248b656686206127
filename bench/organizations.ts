import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { type Timestamp, tsToMs } from '@temporalio/common';
import { generateSessionToken, sessionIdFromToken } from '../accounts/session-token.ts';
import { cookieNames, signCookieValue } from '../api/auth/cookies.ts';
import { projectRoot } from '../config/env.ts';
import { Invitation, Member, Organization, Session, User } from '../db/entities/index.ts';
import { type Orm, openOrm } from '../db/orm.ts';
import type { TestStack } from '../devstack/test-stack.ts';
import { workflowIds } from '../processes/workflow-ids.ts';
import { connectTemporal } from '../temporal/client.ts';
import { benchRun } from './lib/bench-run.ts';
import { writeBenchResults } from './lib/results.ts';
import { type LoadSummary, runLoad } from './lib/run-load.ts';

const options = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const invitationCount = Number(options[0] ?? 1000);
const cpuProfile = process.argv.includes('--cpu-prof');
if (!Number.isInteger(invitationCount) || invitationCount < 1) {
  throw new Error('usage: node bench/organizations.ts [invitations=1000] [--cpu-prof]');
}

/** Requests in flight at once while inviting and while accepting. */
const concurrency = 20;
/** Invitees per organization: with its owner, a full organization has the 100 members allowed. */
const invitesPerOrganization = 99;
const listMembersTarget = 100;
const listMembersLoad = { connections: 10, durationSeconds: 10, warmupSeconds: 2 };
/** How many invitation workflows' histories are read for the timing breakdown. */
const historySamples = 20;

// Start-up, up to 0.5 s per invitation for both calls, list-members, and clean-up.
const run = benchRun('organizations', 300 + 0.5 * invitationCount);
const { say, loadAbort, failIfCrashed } = run;
const workDir = join(projectRoot, '.data', 'bench-organizations');
let orm: Orm | undefined;
let temporal: Client | undefined;
run.closeOnCleanUp(async () => orm?.close());
run.closeOnCleanUp(async () => temporal?.connection.close());

// --- HTTP ---

interface Caller {
  cookie: string;
}

let apiUrl = '';

/** A call as the browser client makes it: the session cookie and the trusted Origin. */
async function call<T>(caller: Caller, method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await fetch(`${apiUrl}/api/auth${path}`, {
    method,
    headers: {
      cookie: caller.cookie,
      origin: apiUrl,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as T;
}

interface Timed {
  seconds: number;
  startedAt: number;
  endedAt: number;
  latenciesMs: number[];
}

/**
 * Runs `task` over `items` with `limit` in flight, timing each. The first failure stops new
 * tasks from starting and fails the whole run.
 */
async function timedPool<T>(
  items: T[],
  limit: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<Timed> {
  const latenciesMs: number[] = [];
  let next = 0;
  let failed = false;
  const startedAt = performance.now();
  const lane = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      const started = performance.now();
      try {
        await task(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
      latenciesMs.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  const endedAt = performance.now();
  return { seconds: (endedAt - startedAt) / 1000, startedAt, endedAt, latenciesMs };
}

const percentile = (values: number[], fraction: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN;
};
const median = (values: number[]) => percentile(values, 0.5);
const fixed = (value: number, digits = 0) => value.toFixed(digits);

// --- Set-up ---

async function startApi(stack: TestStack) {
  apiUrl = await run.startApi(stack, join(workDir, 'tollgate-api.log'), {
    // A week: no invitation expires during the run, and no reminder timer is set.
    TOLLGATE_INVITATION_LIFETIME_SECONDS: String(7 * 24 * 3600),
    TOLLGATE_INVITATION_REMINDER_SECONDS: '0',
    ...(cpuProfile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(workDir, 'api')}` } : {}),
  });
}

/** The owner signs up over HTTP, as a browser would. */
async function signUpOwner(): Promise<Caller & { userId: string }> {
  const response = await fetch(`${apiUrl}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench Owner',
      email: 'owner@bench.example',
      password: 'correct horse battery staple',
    }),
  });
  if (response.status !== 200) throw new Error(`sign-up answered ${response.status}`);
  const { user } = (await response.json()) as { user: { id: string } };
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] ?? '')
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
  return { cookie, userId: user.id };
}

/**
 * Users and sessions written in bulk, the rows sign-up and sign-in would write; each answered
 * with its session cookie, signed with the API's secret.
 */
async function createSignedInUsers(emails: string[], secret: string): Promise<Caller[]> {
  const em = (orm as Orm).em.fork();
  const cookieName = cookieNames({ secure: false }).sessionToken;
  const expiresAt = new Date(Date.now() + 7 * 24 * 3600 * 1000);
  const callers = emails.map((email, index) => {
    const user = em.create(User, { email, name: `Invitee ${index}`, emailVerified: true });
    const token = generateSessionToken();
    em.create(Session, {
      id: sessionIdFromToken(token),
      user,
      expiresAt,
      ipAddress: '127.0.0.1',
      userAgent: 'bench/organizations',
    });
    return { cookie: `${cookieName}=${encodeURIComponent(signCookieValue(token, secret))}` };
  });
  await em.flush();
  return callers;
}

// --- Scenario 1: invitations end to end ---

interface InvitationSummary {
  invitations: number;
  organizations: number;
  concurrency: number;
  seedUsersSeconds: number;
  invite: PhaseSummary;
  accept: PhaseSummary;
  endToEnd: { seconds: number; invitationsPerSecond: number };
  workflowsCompletedSeconds: number;
  workflowTimings: Record<string, { p50Ms: number; p99Ms: number; samples: number }>;
}

interface PhaseSummary {
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

const phaseSummary = (timed: Timed, count: number): PhaseSummary => ({
  seconds: timed.seconds,
  perSecond: count / timed.seconds,
  p50Ms: median(timed.latenciesMs),
  p99Ms: percentile(timed.latenciesMs, 0.99),
});

async function invitationsEndToEnd(stack: TestStack) {
  const owner = await signUpOwner();
  const organizationCount = Math.ceil(invitationCount / invitesPerOrganization);
  const organizationIds: string[] = [];
  for (let index = 0; index < organizationCount; index++) {
    const organization = await call<{ id: string }>(owner, 'POST', '/organization/create', {
      name: `Bench organization ${index}`,
      slug: `bench-${index}`,
    });
    organizationIds.push(organization.id);
  }

  const emails = Array.from(
    { length: invitationCount },
    (_, index) => `invitee-${index}@bench.example`,
  );
  say(`writing ${invitationCount} invitees' users and sessions`);
  const seedStarted = performance.now();
  const invitees = await createSignedInUsers(emails, stack.env.TOLLGATE_AUTH_SECRET ?? '');
  const seedUsersSeconds = (performance.now() - seedStarted) / 1000;

  say(`inviting ${invitationCount} emails into ${organizationCount} organizations`);
  const invitationIds: string[] = [];
  const invite = await timedPool(emails, concurrency, async (email, index) => {
    const organizationId = organizationIds[Math.floor(index / invitesPerOrganization)];
    const invitation = await call<{ id: string; email: string; status: string }>(
      owner,
      'POST',
      '/organization/invite-member',
      { email, role: 'member', organizationId },
    );
    if (invitation.email !== email || invitation.status !== 'pending') {
      throw new Error(`invite-member answered ${JSON.stringify(invitation)}`);
    }
    invitationIds[index] = invitation.id;
  });
  failIfCrashed();

  say(`accepting ${invitationCount} invitations`);
  const accept = await timedPool(invitees, concurrency, async (invitee, index) => {
    const answer = await call<{ invitation: { status: string }; member: { role: string } | null }>(
      invitee,
      'POST',
      '/organization/accept-invitation',
      { invitationId: invitationIds[index] },
    );
    if (answer.invitation.status !== 'accepted' || answer.member?.role !== 'member') {
      throw new Error(`accept-invitation answered ${JSON.stringify(answer)}`);
    }
  });
  failIfCrashed();
  const endToEndSeconds = (accept.endedAt - invite.startedAt) / 1000;

  say('checking the members, the invitations and the workflows');
  const workflowsCompletedSeconds = await verifyInvitations(
    organizationIds,
    invitationIds,
    invite.startedAt,
  );
  const workflowTimings = await sampleWorkflowTimings(invitationIds);

  const summary: InvitationSummary = {
    invitations: invitationCount,
    organizations: organizationCount,
    concurrency,
    seedUsersSeconds,
    invite: phaseSummary(invite, invitationCount),
    accept: phaseSummary(accept, invitationCount),
    endToEnd: { seconds: endToEndSeconds, invitationsPerSecond: invitationCount / endToEndSeconds },
    workflowsCompletedSeconds,
    workflowTimings,
  };
  return { summary, owner, organizationIds };
}

/**
 * Fails unless every invitee is a member, every invitation is accepted, and every invitation
 * workflow completed (with 'accepted', checked on the first and last). Answers the seconds from
 * the first invite until the workflows were all seen completed.
 */
async function verifyInvitations(
  organizationIds: string[],
  invitationIds: string[],
  firstInviteAt: number,
): Promise<number> {
  const em = (orm as Orm).em.fork();
  const members = await em.count(Member, {
    organization: { id: { $in: organizationIds } },
    role: 'member',
  });
  const owners = await em.count(Member, {
    organization: { id: { $in: organizationIds } },
    role: 'owner',
  });
  const accepted = await em.count(Invitation, { status: 'accepted' });
  const invitations = await em.count(Invitation, {});
  if (members !== invitationCount || owners !== organizationIds.length) {
    throw new Error(
      `${members} invited members and ${owners} owners, not ${invitationCount} and ${organizationIds.length}`,
    );
  }
  if (accepted !== invitationCount || invitations !== invitationCount) {
    throw new Error(`${accepted} of ${invitations} invitations accepted, not ${invitationCount}`);
  }

  // Visibility lags the workflows a little: polled until all are seen completed.
  const client = temporal as Client;
  const query = (status: string) => `WorkflowType = 'invitation' AND ExecutionStatus = '${status}'`;
  const deadline = Date.now() + 120_000;
  let completed = 0;
  while (Date.now() < deadline) {
    completed = (await client.workflow.count(query('Completed'))).count;
    if (completed >= invitationCount) break;
    await sleep(250);
  }
  const completedAt = performance.now();
  const unfinished = await Promise.all(
    ['Running', 'Failed', 'Terminated', 'TimedOut', 'ContinuedAsNew'].map(
      async (status) => [status, (await client.workflow.count(query(status))).count] as const,
    ),
  );
  if (completed !== invitationCount || unfinished.some(([, count]) => count > 0)) {
    throw new Error(
      `${completed} invitation workflows completed, not ${invitationCount}; others: ` +
        JSON.stringify(Object.fromEntries(unfinished)),
    );
  }
  for (const id of [invitationIds[0], invitationIds.at(-1)] as string[]) {
    const outcome = await client.workflow.getHandle(workflowIds.invitation(id)).result();
    if (outcome !== 'accepted') throw new Error(`invitation ${id}'s workflow ended ${outcome}`);
  }
  return (completedAt - firstInviteAt) / 1000;
}

/**
 * Where an invitation workflow's time goes, from the histories of a sample spread over the run:
 * for each activity the wait for a worker slot (scheduled to started) and its run (started to
 * completed), the accept update (accepted to completed), and the whole run (start to close).
 */
async function sampleWorkflowTimings(invitationIds: string[]) {
  const client = temporal as Client;
  const spans: Record<string, number[]> = {};
  const record = (name: string, ms: number) => {
    spans[name] ??= [];
    spans[name].push(ms);
  };
  const histories: { ms: number; event: string | undefined }[][] = [];
  const step = Math.max(1, Math.floor(invitationIds.length / historySamples));
  for (let index = 0; index < invitationIds.length; index += step) {
    const handle = client.workflow.getHandle(
      workflowIds.invitation(invitationIds[index] as string),
    );
    const events = (await handle.fetchHistory()).events ?? [];
    const at = (event: { eventTime?: Timestamp | null }) => tsToMs(event.eventTime);
    const scheduled = new Map<string, { name: string; at: number }>();
    const started = new Map<string, number>();
    let updateAcceptedAt: number | undefined;
    for (const event of events) {
      const id = String(event.eventId);
      if (event.activityTaskScheduledEventAttributes) {
        const name = event.activityTaskScheduledEventAttributes.activityType?.name ?? '?';
        scheduled.set(id, { name, at: at(event) });
      } else if (event.activityTaskStartedEventAttributes) {
        const scheduledId = String(event.activityTaskStartedEventAttributes.scheduledEventId);
        const schedule = scheduled.get(scheduledId);
        if (schedule) record(`${schedule.name}: waiting for a worker`, at(event) - schedule.at);
        started.set(scheduledId, at(event));
      } else if (event.activityTaskCompletedEventAttributes) {
        const scheduledId = String(event.activityTaskCompletedEventAttributes.scheduledEventId);
        const schedule = scheduled.get(scheduledId);
        const startedAt = started.get(scheduledId);
        if (schedule && startedAt !== undefined) {
          record(`${schedule.name}: running`, at(event) - startedAt);
        }
      } else if (event.workflowTaskScheduledEventAttributes) {
        scheduled.set(id, { name: 'workflow task', at: at(event) });
      } else if (event.workflowTaskStartedEventAttributes) {
        const scheduledId = String(event.workflowTaskStartedEventAttributes.scheduledEventId);
        const schedule = scheduled.get(scheduledId);
        if (schedule) record('workflow task: waiting for a worker', at(event) - schedule.at);
        started.set(scheduledId, at(event));
      } else if (event.workflowTaskCompletedEventAttributes) {
        const startedAt = started.get(
          String(event.workflowTaskCompletedEventAttributes.scheduledEventId),
        );
        if (startedAt !== undefined) record('workflow task: running', at(event) - startedAt);
      } else if (
        event.workflowTaskTimedOutEventAttributes ||
        event.workflowTaskFailedEventAttributes
      ) {
        // A cached run the worker lost (or a task it failed): replayed from its history.
        record('workflow task timed out or failed (count)', 1);
      } else if (event.workflowExecutionUpdateAcceptedEventAttributes) {
        updateAcceptedAt = at(event);
      } else if (event.workflowExecutionUpdateCompletedEventAttributes && updateAcceptedAt) {
        record('accept update: accepted to completed', at(event) - updateAcceptedAt);
      }
    }
    const first = events[0];
    const last = events.at(-1);
    if (first && last) record('workflow: start to close', at(last) - at(first));
    // The sampled histories in full, to read beside the spans.
    histories.push(
      events.map((event) => ({
        ms: first ? at(event) - at(first) : 0,
        // Each event carries exactly one set of attributes, named after its type.
        event: Object.entries(event)
          .find(([key, value]) => key.endsWith('EventAttributes') && value)?.[0]
          .replace(/EventAttributes$/, ''),
      })),
    );
  }
  writeFileSync(join(workDir, 'invitation-histories.json'), JSON.stringify(histories));
  return Object.fromEntries(
    Object.entries(spans).map(([name, values]) => [
      name,
      { p50Ms: median(values), p99Ms: percentile(values, 0.99), samples: values.length },
    ]),
  );
}

// --- Scenario 2: list-members with autocannon ---

/** Tops the organization up to `listMembersTarget` members when scenario 1 left it smaller. */
async function fillOrganization(organizationId: string) {
  const em = (orm as Orm).em.fork();
  const missing = listMembersTarget - (await em.count(Member, { organization: organizationId }));
  const organization = em.getReference(Organization, organizationId);
  for (let index = 0; index < missing; index++) {
    const user = em.create(User, { email: `extra-${index}@bench.example`, name: `Extra ${index}` });
    em.create(Member, { organization, user, role: 'member' });
  }
  await em.flush();
}

async function listMembers(owner: Caller, organizationId: string): Promise<LoadSummary> {
  await fillOrganization(organizationId);
  const path = `/organization/list-members?organizationId=${organizationId}`;
  const page = await call<{ members: unknown[]; total: number }>(owner, 'GET', path);
  if (page.members.length !== listMembersTarget || page.total !== listMembersTarget) {
    throw new Error(`list-members answered ${page.members.length} members of ${page.total}`);
  }
  const load = {
    url: `${apiUrl}/api/auth${path}`,
    headers: { cookie: owner.cookie, origin: apiUrl },
    connections: listMembersLoad.connections,
  };
  say(`list-members: warm-up ${listMembersLoad.warmupSeconds} s`);
  const { signal } = loadAbort;
  await runLoad(
    'list-members (warm-up)',
    { ...load, durationSeconds: listMembersLoad.warmupSeconds },
    { signal },
  );
  failIfCrashed();
  say(`list-members: ${listMembersLoad.durationSeconds} s, ${load.connections} connections`);
  const summary = await runLoad(
    'list-members',
    { ...load, durationSeconds: listMembersLoad.durationSeconds },
    { signal },
  );
  failIfCrashed();
  return summary;
}

// --- The run ---

try {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const loadBefore = loadavg();
  say(`load average before: ${loadBefore.map((value) => fixed(value, 2)).join(' ')}`);

  say('starting the test stack');
  // The worker inherits this process's environment: profiled with the API when asked.
  const nodeOptions = process.env.NODE_OPTIONS;
  if (cpuProfile) process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${join(workDir, 'worker')}`;
  const stack = await run.startStack();
  if (cpuProfile) process.env.NODE_OPTIONS = nodeOptions ?? '';
  await startApi(stack);
  orm = await openOrm(stack.addresses.databaseUrl);
  temporal = await connectTemporal({
    ...stack.config.temporal,
    address: stack.addresses.temporalAddress,
  });

  const { summary, owner, organizationIds } = await invitationsEndToEnd(stack);
  const listing = await listMembers(owner, organizationIds[0] as string);
  const loadAfter = loadavg();

  const milliseconds = (phase: PhaseSummary) => `${fixed(phase.p50Ms)} / ${fixed(phase.p99Ms)}`;
  console.table({
    'invite-member': {
      calls: invitationCount,
      'per second': fixed(summary.invite.perSecond, 1),
      'p50 / p99 (ms)': milliseconds(summary.invite),
      seconds: fixed(summary.invite.seconds, 1),
    },
    'accept-invitation': {
      calls: invitationCount,
      'per second': fixed(summary.accept.perSecond, 1),
      'p50 / p99 (ms)': milliseconds(summary.accept),
      seconds: fixed(summary.accept.seconds, 1),
    },
    'end to end (first invite to last member)': {
      calls: invitationCount,
      'per second': fixed(summary.endToEnd.invitationsPerSecond, 1),
      'p50 / p99 (ms)': '',
      seconds: fixed(summary.endToEnd.seconds, 1),
    },
    [`list-members, ${listMembersTarget} members (${listMembersLoad.connections} connections)`]: {
      calls: listing.requests,
      'per second': fixed(listing.requestsPerSecond),
      'p50 / p99 (ms)': `${listing.latencyP50Ms} / ${listing.latencyP99Ms}`,
      seconds: listMembersLoad.durationSeconds,
    },
  });
  console.table(
    Object.fromEntries(
      Object.entries(summary.workflowTimings).map(([name, timing]) => [
        name,
        {
          'p50 (ms)': fixed(timing.p50Ms),
          'p99 (ms)': fixed(timing.p99Ms),
          samples: timing.samples,
        },
      ]),
    ),
  );
  say(
    `${invitationCount} invitations in ${summary.organizations} organizations, ${concurrency} ` +
      `in flight; invitees' users and sessions written in ${fixed(summary.seedUsersSeconds, 1)} s; ` +
      `all workflows seen completed ${fixed(summary.workflowsCompletedSeconds, 1)} s after the first invite`,
  );
  say(`load average after: ${loadAfter.map((value) => fixed(value, 2)).join(' ')}`);
  if (cpuProfile)
    say(`CPU profiles of the API and the worker written to ${workDir} when they stop`);

  writeBenchResults('organizations', {
    cpuProfile,
    settings:
      'NODE_ENV=test LOG_LEVEL=warn TOLLGATE_AUTH_RATE_LIMIT=off, invitation lifetime 7 days, ' +
      'no reminder; invitees written to the database, owner signed up over HTTP',
    invitations: summary,
    listMembers: { members: listMembersTarget, ...listMembersLoad, ...listing },
    loadAverage: { before: loadBefore, after: loadAfter },
    measuredAt: new Date().toISOString(),
  });
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  say('cleaning up');
  await run.cleanUp();
}
