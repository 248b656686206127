import { createHash, createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { generateState } from 'arctic';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AuthSettings } from '../../../accounts/settings.ts';
import { Verification } from '../../../db/entities/index.ts';
import {
  cookieName,
  readCookie,
  setCookie,
  signCookieValue,
  verifySignedCookie,
} from '../cookies.ts';

/** A sign-in with a provider must come back within 10 minutes (spec section 9). */
const stateLifetimeSeconds = 10 * 60;

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

/** Better Auth's state cookie: it ties the flow to the browser that started it. */
const stateCookieName = (settings: AuthSettings) => cookieName(settings, 'state');

export interface StartedFlow {
  state: string;
  codeVerifier: string;
}

/** Records a new flow (flushed here) and sets the state cookie on the response. */
export async function startOAuthFlow(
  ctx: Context,
  em: EntityManager,
  settings: AuthSettings,
  flow: OAuthFlow,
): Promise<StartedFlow> {
  const state = generateState();
  em.create(Verification, {
    identifier: stateIdentifier(state),
    value: JSON.stringify(flow),
    expiresAt: new Date(Date.now() + stateLifetimeSeconds * 1000),
  });
  await em.flush();
  setCookie(
    ctx,
    settings,
    stateCookieName(settings),
    signCookieValue(state, settings.secret),
    stateLifetimeSeconds,
  );
  return { state, codeVerifier: codeVerifierFor(state, settings.secret) };
}

/** Better Auth's answers for a state it cannot use. */
export type StateRefusal = 'please_restart_the_process' | 'state_mismatch';

/**
 * Takes the flow a returning state belongs to, once: unknown, expired or already used states
 * answer please_restart_the_process; a state this browser did not start, state_mismatch.
 */
export async function takeOAuthFlow(
  ctx: Context,
  em: EntityManager,
  settings: AuthSettings,
  state: string,
): Promise<{ flow: OAuthFlow; codeVerifier: string } | { refusal: StateRefusal }> {
  const row = await em.findOne(Verification, { identifier: stateIdentifier(state) });
  if (!row) return { refusal: 'please_restart_the_process' };
  const cookieName = stateCookieName(settings);
  const cookie = readCookie(ctx, cookieName);
  if (!cookie || verifySignedCookie(cookie, settings.secret) !== state) {
    return { refusal: 'state_mismatch' };
  }
  setCookie(ctx, settings, cookieName, '', 0);
  // Deleting is taking: of two callbacks racing with one state, one gets the row.
  const taken = await em.nativeDelete(Verification, { id: row.id });
  const flow = oauthFlowSchema.safeParse(JSON.parse(row.value));
  if (taken === 0 || row.expiresAt.getTime() <= Date.now() || !flow.success) {
    return { refusal: 'please_restart_the_process' };
  }
  return { flow: flow.data, codeVerifier: codeVerifierFor(state, settings.secret) };
}
