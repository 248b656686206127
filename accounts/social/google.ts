import { z } from 'zod';
import { decodeJwtClaims, RemoteKeySet, verifiedJwtClaims } from './id-token.ts';
import {
  fetchProviderJson,
  joinUrl,
  oauthCodeFlow,
  type ProviderCredentials,
  type ProviderUserInfo,
  type SocialProvider,
} from './provider.ts';

const claimsSchema = z
  .object({
    sub: z.string(),
    name: z.string().optional(),
    email: z.string().optional(),
    email_verified: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
    picture: z.string().optional(),
  })
  .loose();

function userInfoFromClaims(claims: unknown): ProviderUserInfo | null {
  const parsed = claimsSchema.safeParse(claims);
  if (!parsed.success) return null;
  const { sub, name, email, email_verified, picture } = parsed.data;
  return {
    user: {
      id: sub,
      name,
      email,
      image: picture,
      emailVerified: email_verified === true || email_verified === 'true',
    },
    data: parsed.data,
  };
}

/**
 * Google, an OpenID Connect provider: who signed in comes from the id token of the code
 * exchange (or the userinfo endpoint when only an access token is at hand), and an id token
 * obtained in the browser can sign in directly. `baseUrl` stands in for every Google host and
 * is then also the expected issuer.
 */
export function googleProvider(
  credentials: ProviderCredentials,
  baseUrl: string | undefined,
): SocialProvider {
  const at = (real: string, path: string) => joinUrl(baseUrl ?? real, path);
  const flow = oauthCodeFlow(credentials, {
    authorization: at('https://accounts.google.com', '/o/oauth2/v2/auth'),
    token: at('https://oauth2.googleapis.com', '/token'),
  });
  const userinfoUrl = at('https://openidconnect.googleapis.com', '/v1/userinfo');
  const signingKeys = new RemoteKeySet(at('https://www.googleapis.com', '/oauth2/v3/certs'));
  const issuers = baseUrl
    ? [baseUrl.replace(/\/+$/, '')]
    : ['https://accounts.google.com', 'accounts.google.com'];

  return {
    id: 'google',
    authorizationUrl({ state, codeVerifier, scopes, loginHint }) {
      const url = flow.authorizationUrl(state, codeVerifier, [
        'email',
        'profile',
        'openid',
        ...scopes,
      ]);
      url.searchParams.set('include_granted_scopes', 'true');
      // Without offline access Google issues no refresh token, and get-access-token could not
      // renew an expired access token.
      url.searchParams.set('access_type', 'offline');
      if (loginHint) url.searchParams.set('login_hint', loginHint);
      return url;
    },
    exchangeCode: flow.exchangeCode,
    refreshAccessToken: flow.refreshAccessToken,
    async userInfo({ accessToken, idToken }) {
      // The id token came straight from Google's token endpoint over TLS: decoding is enough.
      if (idToken) return userInfoFromClaims(decodeJwtClaims(idToken));
      if (accessToken) return userInfoFromClaims(await fetchProviderJson(userinfoUrl, accessToken));
      return null;
    },
    async verifyIdToken(idToken, nonce) {
      const claims = await verifiedJwtClaims(idToken, signingKeys);
      if (!claims) return false;
      const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      return (
        issuers.includes(String(claims.iss)) &&
        audiences.includes(credentials.clientId) &&
        typeof claims.exp === 'number' &&
        claims.exp * 1000 > Date.now() &&
        (nonce === undefined || claims.nonce === nonce)
      );
    },
  };
}
