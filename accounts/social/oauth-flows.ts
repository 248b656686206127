import { createHash, createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { generateState } from 'arctic';
import { z } from 'zod';
import { Verification } from '../../db/entities/index.ts';

/** A sign-in with a provider must come back within 10 minutes (spec section 9). */
export const stateLifetimeSeconds = 10 * 60;

/** Where the browser goes once the provider sends it back, and what the flow is for. */
const oauthFlowSchema = z.object({
  callbackURL: z.string(),
  errorURL: z.string().optional(),
  newUserURL: z.string().optional(),
  /** Present when a signed-in user links the provider account to themselves. */
  link: z.object({ userId: z.string(), email: z.string() }).optional(),
});

export type OAuthFlow = z.infer<typeof oauthFlowSchema>;

/** The verifications row of a state: keyed by its SHA-256, so the table holds no usable state. */
export const stateIdentifier = (state: string) =>
  `oauth-state:${createHash('sha256').update(state).digest('hex')}`;

/**
 * The PKCE verifier of a flow, derived from its state with the auth secret: nothing secret is
 * stored, and someone who sees the state in a URL still cannot compute the verifier.
 */
const codeVerifierFor = (state: string, secret: string) =>
  createHmac('sha256', secret).update(`pkce:${state}`).digest('base64url');

export interface StartedFlow {
  state: string;
  codeVerifier: string;
}

/** Records a new flow under a fresh state (flushed here). */
export async function recordOAuthFlow(
  em: EntityManager,
  secret: string,
  flow: OAuthFlow,
): Promise<StartedFlow> {
  const state = generateState();
  em.create(Verification, {
    identifier: stateIdentifier(state),
    value: JSON.stringify(flow),
    expiresAt: new Date(Date.now() + stateLifetimeSeconds * 1000),
  });
  await em.flush();
  return { state, codeVerifier: codeVerifierFor(state, secret) };
}

/** The recorded flow of `state`, not yet taken (it may have expired); or null. */
export function findOAuthFlow(em: EntityManager, state: string): Promise<Verification | null> {
  return em.findOne(Verification, { identifier: stateIdentifier(state) });
}

/** Takes the recorded flow, once; null when another took it first, it expired or is unreadable. */
export async function takeRecordedFlow(
  em: EntityManager,
  secret: string,
  state: string,
  row: Verification,
): Promise<{ flow: OAuthFlow; codeVerifier: string } | null> {
  // Deleting is taking: of two callbacks racing with one state, one gets the row.
  const taken = await em.nativeDelete(Verification, { id: row.id });
  const flow = oauthFlowSchema.safeParse(JSON.parse(row.value));
  if (taken === 0 || row.expiresAt.getTime() <= Date.now() || !flow.success) return null;
  return { flow: flow.data, codeVerifier: codeVerifierFor(state, secret) };
}
