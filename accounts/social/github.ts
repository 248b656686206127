import { z } from 'zod';
import {
  fetchProviderJson,
  joinUrl,
  oauthCodeFlow,
  type ProviderCredentials,
  type SocialProvider,
} from './provider.ts';

const profileSchema = z
  .object({
    id: z.union([z.number(), z.string()]),
    login: z.string(),
    name: z.string().nullish(),
    email: z.string().nullish(),
    avatar_url: z.string().nullish(),
  })
  .loose();

const emailsSchema = z.array(
  z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }).loose(),
);

/**
 * GitHub: sign-in on github.com, the profile and the email addresses from api.github.com.
 * `baseUrl` stands in for both hosts (the local provider of tests and development).
 */
export function githubProvider(
  credentials: ProviderCredentials,
  baseUrl: string | undefined,
): SocialProvider {
  const site = baseUrl ?? 'https://github.com';
  const api = baseUrl ?? 'https://api.github.com';
  const flow = oauthCodeFlow(credentials, {
    authorization: joinUrl(site, '/login/oauth/authorize'),
    token: joinUrl(site, '/login/oauth/access_token'),
  });
  return {
    id: 'github',
    authorizationUrl({ state, codeVerifier, scopes, loginHint }) {
      const url = flow.authorizationUrl(state, codeVerifier, [
        'read:user',
        'user:email',
        ...scopes,
      ]);
      // GitHub's name for a login hint.
      if (loginHint) url.searchParams.set('login', loginHint);
      return url;
    },
    exchangeCode: flow.exchangeCode,
    refreshAccessToken: flow.refreshAccessToken,
    async userInfo({ accessToken }) {
      if (!accessToken) return null;
      const profile = profileSchema.safeParse(
        await fetchProviderJson(joinUrl(api, '/user'), accessToken),
      );
      if (!profile.success) return null;
      // The profile shows only a public email; the emails list says which one is verified.
      const emails = emailsSchema.safeParse(
        await fetchProviderJson(joinUrl(api, '/user/emails'), accessToken),
      );
      const addresses = emails.success ? emails.data : [];
      const email =
        profile.data.email ?? (addresses.find((entry) => entry.primary) ?? addresses[0])?.email;
      return {
        user: {
          id: profile.data.id,
          name: profile.data.name || profile.data.login,
          email,
          image: profile.data.avatar_url,
          emailVerified: addresses.find((entry) => entry.email === email)?.verified ?? false,
        },
        data: profile.data,
      };
    },
  };
}
