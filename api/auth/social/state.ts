import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from 'koa';
import type { AuthSettings } from '../../../accounts/settings.ts';
import {
  findOAuthFlow,
  type OAuthFlow,
  recordOAuthFlow,
  type StartedFlow,
  stateLifetimeSeconds,
  takeRecordedFlow,
} from '../../../accounts/social/oauth-flows.ts';
import {
  cookieName,
  readCookie,
  setCookie,
  signCookieValue,
  verifySignedCookie,
} from '../cookies.ts';

/** Better Auth's state cookie: it ties the flow to the browser that started it. */
const stateCookieName = (settings: AuthSettings) => cookieName(settings, 'state');

/** Records a new flow and sets the state cookie on the response. */
export async function startOAuthFlow(
  ctx: Context,
  em: EntityManager,
  settings: AuthSettings,
  flow: OAuthFlow,
): Promise<StartedFlow> {
  const started = await recordOAuthFlow(em, settings.secret, flow);
  setCookie(
    ctx,
    settings,
    stateCookieName(settings),
    signCookieValue(started.state, settings.secret),
    stateLifetimeSeconds,
  );
  return started;
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
  const row = await findOAuthFlow(em, state);
  if (!row) return { refusal: 'please_restart_the_process' };
  const cookieName = stateCookieName(settings);
  const cookie = readCookie(ctx, cookieName);
  if (!cookie || verifySignedCookie(cookie, settings.secret) !== state) {
    return { refusal: 'state_mismatch' };
  }
  setCookie(ctx, settings, cookieName, '', 0);
  const taken = await takeRecordedFlow(em, settings.secret, state, row);
  return taken ?? { refusal: 'please_restart_the_process' };
}
