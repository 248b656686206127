import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  type AuthMessage,
  authError,
  authMessages,
  bannedUserError,
} from '../../../accounts/errors.ts';
import { signedInUserJson } from '../../../accounts/sessions.ts';
import {
  linkIdTokenAccount,
  linkProviderAccount,
  type SignInRefusal,
  signInWithProviderAccount,
} from '../../../accounts/social/accounts.ts';
import type { ProviderTokens, SocialProvider } from '../../../accounts/social/provider.ts';
import { authBaseUrl } from '../../../accounts/social/providers.ts';
import { parseBody } from '../../validation.ts';
import { redirect } from '../account-redirects.ts';
import { setSessionCookies } from '../cookies.ts';
import { requireSignedIn } from '../session-context.ts';
import type { SocialContext } from './context.ts';
import { startOAuthFlow, takeOAuthFlow } from './state.ts';

const idTokenInput = z.object({
  token: z.string(),
  nonce: z.string().optional(),
  accessToken: z.string().optional(),
  refreshToken: z.string().optional(),
  // Accepted as Better Auth accepts it; like Better Auth, nothing reads it.
  expiresAt: z.number().optional(),
});

export const signInSocialBody = z.object({
  provider: z.string(),
  callbackURL: z.string().optional(),
  newUserCallbackURL: z.string().optional(),
  errorCallbackURL: z.string().optional(),
  disableRedirect: z.boolean().optional(),
  idToken: idTokenInput.optional(),
  scopes: z.array(z.string()).optional(),
  // Only meaningful with Better Auth's disableImplicitSignUp, which Tollgate does not offer.
  requestSignUp: z.boolean().optional(),
  loginHint: z.string().optional(),
});

export const linkSocialBody = z.object({
  provider: z.string(),
  callbackURL: z.string().optional(),
  errorCallbackURL: z.string().optional(),
  disableRedirect: z.boolean().optional(),
  idToken: idTokenInput.extend({ scopes: z.array(z.string()).optional() }).optional(),
  requestSignUp: z.boolean().optional(),
  scopes: z.array(z.string()).optional(),
});

/** What a provider sends the browser back with (query for GET, form body for POST). */
export const callbackParams = z.object({
  code: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
  state: z.string().optional(),
  device_id: z.string().optional(),
  user: z.string().optional(),
});

/** An id-token sign-in's refusals answer 401 with Better Auth's words for them. */
const refusalMessages = {
  'account not linked': 'ACCOUNT_NOT_LINKED',
  'unable to link account': 'UNABLE_TO_LINK_ACCOUNT',
  'unable to create user': 'UNABLE_TO_CREATE_USER',
} as const satisfies Record<Exclude<SignInRefusal, 'banned'>, AuthMessage>;

const withQuery = (url: string, params: Record<string, string>) =>
  `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams(params)}`;

const requestOrigin = (ctx: Context) => ({
  ipAddress: ctx.ip || null,
  userAgent: ctx.get('user-agent') || null,
});

/**
 * The authorization-code flow with state and PKCE: sign-in/social and link-social send the
 * browser to the provider, and the callback signs in, links or signs up when it comes back.
 * Google id tokens obtained in the browser sign in or link without the trip.
 */
export function socialSignInRoutes({
  dependencies,
  settings,
  providers,
  cipher,
  rules,
}: SocialContext): Router {
  const { orm, config, logger } = dependencies;
  const publicUrl = config.api.publicUrl;
  const defaultErrorURL = `${authBaseUrl(config)}/error`;
  const router = new Router();

  /** The provider's verdict on an id token obtained in the browser: its user, with an email. */
  async function idTokenUser(provider: SocialProvider, idToken: z.infer<typeof idTokenInput>) {
    if (!provider.verifyIdToken) throw authError('not_found', 'ID_TOKEN_NOT_SUPPORTED');
    if (!(await provider.verifyIdToken(idToken.token, idToken.nonce))) {
      throw authError('unauthenticated', 'INVALID_TOKEN');
    }
    const info = await provider.userInfo({
      idToken: idToken.token,
      accessToken: idToken.accessToken,
    });
    if (!info) throw authError('unauthenticated', 'FAILED_TO_GET_USER_INFO');
    const { email } = info.user;
    if (!email) throw authError('unauthenticated', 'USER_EMAIL_NOT_FOUND');
    return { ...info.user, email };
  }

  router.post('/sign-in/social', async (ctx) => {
    const body = parseBody(ctx, signInSocialBody);
    const provider = providers.get(body.provider);
    if (!provider) throw authError('not_found', 'PROVIDER_NOT_FOUND');

    if (body.idToken) {
      const profile = await idTokenUser(provider, body.idToken);
      const outcome = await signInWithProviderAccount(orm, settings, rules, cipher, {
        providerId: provider.id,
        profile,
        fallbackName: '',
        tokens: {
          idToken: body.idToken.token,
          accessToken: body.idToken.accessToken,
          refreshToken: body.idToken.refreshToken,
        },
        request: requestOrigin(ctx),
      });
      if ('refusal' in outcome) {
        if (outcome.refusal === 'banned') throw bannedUserError();
        throw authError('unauthenticated', refusalMessages[outcome.refusal]);
      }
      setSessionCookies(ctx, settings, outcome.session.token, {
        rememberMe: true,
        maxAgeSeconds: outcome.session.maxAgeSeconds,
      });
      ctx.body = {
        redirect: false,
        token: outcome.session.token,
        user: signedInUserJson(outcome.user),
      };
      return;
    }

    const flow = await startOAuthFlow(ctx, orm.em, settings, {
      callbackURL: body.callbackURL || publicUrl,
      errorURL: body.errorCallbackURL || undefined,
      newUserURL: body.newUserCallbackURL || undefined,
    });
    const url = provider.authorizationUrl({
      ...flow,
      scopes: body.scopes ?? [],
      loginHint: body.loginHint,
    });
    ctx.body = { url: url.toString(), redirect: !body.disableRedirect };
  });

  /**
   * The provider sends the browser back here. Every outcome is a redirect: to the callbackURL
   * (or newUserCallbackURL after a sign-up) with a session cookie, or to the errorCallbackURL
   * (else /api/auth/error) with Better Auth's error code.
   */
  async function callback(ctx: Context) {
    const params = callbackParams.safeParse(ctx.method === 'GET' ? ctx.query : ctx.request.body);
    if (!params.success) {
      return redirect(ctx, withQuery(defaultErrorURL, { error: 'invalid_callback_request' }));
    }
    const { code, error, error_description: description, state } = params.data;
    // Better Auth reports this one as `state=`, not `error=`.
    if (!state) return redirect(ctx, withQuery(defaultErrorURL, { state: 'state_not_found' }));
    const taken = await takeOAuthFlow(ctx, orm.em, settings, state);
    if ('refusal' in taken) {
      return redirect(ctx, withQuery(defaultErrorURL, { error: taken.refusal }));
    }
    const { flow, codeVerifier } = taken;
    const fail = (reason: string, detail?: string) =>
      redirect(
        ctx,
        withQuery(flow.errorURL ?? defaultErrorURL, {
          error: reason,
          ...(detail ? { error_description: detail } : {}),
        }),
      );

    if (error) return fail(error, description);
    if (!code) return fail('no_code');
    const provider = providers.get(ctx.params.id ?? '');
    if (!provider) return fail('oauth_provider_not_found');
    let tokens: ProviderTokens;
    try {
      tokens = await provider.exchangeCode(code, codeVerifier);
    } catch (exchangeError) {
      logger.info({ err: exchangeError, provider: provider.id }, 'OAuth code exchange failed');
      return fail('invalid_code');
    }
    const info = await provider.userInfo(tokens);
    if (!info) return fail('unable_to_get_user_info');

    if (flow.link) {
      const refusal = await linkProviderAccount(orm, rules, cipher, {
        providerId: provider.id,
        profile: info.user,
        tokens,
        user: flow.link,
      });
      return refusal ? fail(refusal) : redirect(ctx, flow.callbackURL);
    }

    const { email } = info.user;
    if (!email) return fail('email_not_found');
    const outcome = await signInWithProviderAccount(orm, settings, rules, cipher, {
      providerId: provider.id,
      profile: { ...info.user, email },
      fallbackName: email,
      tokens,
      request: requestOrigin(ctx),
    });
    if ('refusal' in outcome) {
      // As Better Auth's admin plugin: a ban goes to the error page, whatever errorCallbackURL.
      if (outcome.refusal === 'banned') {
        return redirect(
          ctx,
          withQuery(defaultErrorURL, {
            error: 'banned',
            error_description: authMessages.BANNED_USER,
          }),
        );
      }
      return fail(outcome.refusal.replaceAll(' ', '_'));
    }
    setSessionCookies(ctx, settings, outcome.session.token, {
      rememberMe: true,
      maxAgeSeconds: outcome.session.maxAgeSeconds,
    });
    redirect(ctx, outcome.isNewUser ? flow.newUserURL || flow.callbackURL : flow.callbackURL);
  }

  router.get('/callback/:id', callback);
  router.post('/callback/:id', callback);

  router.post('/link-social', async (ctx) => {
    const body = parseBody(ctx, linkSocialBody);
    const { user } = await requireSignedIn(ctx, orm, settings);
    const provider = providers.get(body.provider);
    if (!provider) throw authError('not_found', 'PROVIDER_NOT_FOUND');
    const linked = { url: '', status: true, redirect: false };

    if (body.idToken) {
      const profile = await idTokenUser(provider, body.idToken);
      await linkIdTokenAccount(orm.em, rules, cipher, {
        user,
        providerId: provider.id,
        profile,
        tokens: {
          idToken: body.idToken.token,
          accessToken: body.idToken.accessToken,
          refreshToken: body.idToken.refreshToken,
          scopes: body.idToken.scopes,
        },
      });
      ctx.body = linked;
      return;
    }

    const flow = await startOAuthFlow(ctx, orm.em, settings, {
      callbackURL: body.callbackURL || publicUrl,
      errorURL: body.errorCallbackURL || undefined,
      link: { userId: user.id, email: user.email },
    });
    const url = provider.authorizationUrl({
      ...flow,
      scopes: body.scopes ?? [],
      loginHint: undefined,
    });
    ctx.body = { url: url.toString(), redirect: !body.disableRedirect };
  });

  return router;
}
