import { CodeChallengeMethod, OAuth2Client } from 'arctic';
import { z } from 'zod';
import type { SocialProviderId } from '../../config/env.ts';

export { type SocialProviderId, socialProviderIds } from '../../config/env.ts';

/** A provider's tokens, as Better Auth's routes answer them and the account row keeps them. */
export interface ProviderTokens {
  tokenType: string | undefined;
  accessToken: string;
  refreshToken: string | undefined;
  idToken: string | undefined;
  accessTokenExpiresAt: Date | undefined;
  refreshTokenExpiresAt: Date | undefined;
  scopes: string[];
}

/** Who the provider says the person is. `id` keeps the provider's type (GitHub's is a number). */
export interface ProviderUser {
  id: string | number;
  name: string | undefined;
  email: string | null | undefined;
  image: string | null | undefined;
  emailVerified: boolean;
}

/** Better Auth's user-info answer: the mapped user and the provider's own profile. */
export interface ProviderUserInfo {
  user: ProviderUser;
  data: Record<string, unknown>;
}

export interface AuthorizationRequest {
  state: string;
  codeVerifier: string;
  /** Added to the provider's default scopes. */
  scopes: string[];
  loginHint: string | undefined;
}

/** One social provider: its OAuth 2.0 endpoints and how it tells who signed in. */
export interface SocialProvider {
  id: SocialProviderId;
  authorizationUrl(request: AuthorizationRequest): URL;
  exchangeCode(code: string, codeVerifier: string): Promise<ProviderTokens>;
  refreshAccessToken(refreshToken: string): Promise<ProviderTokens>;
  /** Null when the provider would not say (a rejected token, an error answer). */
  userInfo(tokens: { accessToken?: string; idToken?: string }): Promise<ProviderUserInfo | null>;
  /** Only providers whose id tokens can be checked offer sign-in with an id token (Google). */
  verifyIdToken?(idToken: string, nonce: string | undefined): Promise<boolean>;
}

export interface ProviderCredentials {
  clientId: string;
  clientSecret: string;
  /** Where the provider sends the browser back: /api/auth/callback/<id>. */
  redirectUri: string;
}

const tokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  refresh_token: z.string().optional(),
  id_token: z.string().optional(),
  expires_in: z.coerce.number().optional(),
  refresh_token_expires_in: z.coerce.number().optional(),
  scope: z.string().optional(),
});

const secondsFromNow = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000);

/**
 * Reads a token endpoint's answer. GitHub answers some errors with status 200 and an `error`
 * field instead of tokens: without an access token the answer is a failure, whatever its status.
 */
export function readTokens(data: object): ProviderTokens {
  const tokens = tokenResponse.parse(data);
  return {
    tokenType: tokens.token_type,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    idToken: tokens.id_token,
    accessTokenExpiresAt: secondsFromNow(tokens.expires_in),
    refreshTokenExpiresAt: secondsFromNow(tokens.refresh_token_expires_in),
    // Google and Discord separate scopes with spaces, GitHub with commas.
    scopes: tokens.scope?.split(/[\s,]+/).filter(Boolean) ?? [],
  };
}

export interface OAuthEndpoints {
  authorization: string;
  token: string;
}

/**
 * The code flow every provider here shares, on arctic's generic client (its GitHub, Google and
 * Discord classes hard-code the real endpoints, and these must be configurable): PKCE with
 * S256 everywhere, the client authenticating with HTTP Basic.
 */
export function oauthCodeFlow(credentials: ProviderCredentials, endpoints: OAuthEndpoints) {
  const client = new OAuth2Client(
    credentials.clientId,
    credentials.clientSecret,
    credentials.redirectUri,
  );
  return {
    authorizationUrl(state: string, codeVerifier: string, scopes: string[]): URL {
      return client.createAuthorizationURLWithPKCE(
        endpoints.authorization,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        [...new Set(scopes)],
      );
    },
    async exchangeCode(code: string, codeVerifier: string): Promise<ProviderTokens> {
      const tokens = await client.validateAuthorizationCode(endpoints.token, code, codeVerifier);
      return readTokens(tokens.data);
    },
    async refreshAccessToken(refreshToken: string): Promise<ProviderTokens> {
      const tokens = await client.refreshAccessToken(endpoints.token, refreshToken, []);
      return readTokens(tokens.data);
    },
  };
}

/** GET a provider's JSON API with the user's access token; null for any failure. */
export async function fetchProviderJson(url: string, accessToken: string): Promise<unknown | null> {
  try {
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${accessToken}`,
        accept: 'application/json',
        // GitHub refuses requests without a User-Agent.
        'user-agent': 'tollgate',
      },
      signal: AbortSignal.timeout(10_000),
    });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** Joins a base URL and a path, whether or not the base ends with a slash. */
export const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;
