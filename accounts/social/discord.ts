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
    id: z.string().regex(/^\d+$/, 'a Discord snowflake'),
    username: z.string(),
    global_name: z.string().nullish(),
    discriminator: z.string().default('0'),
    avatar: z.string().nullish(),
    email: z.string().nullish(),
    verified: z.boolean().default(false),
  })
  .loose();

type DiscordProfile = z.infer<typeof profileSchema>;

const cdn = 'https://cdn.discordapp.com';

/** Discord's avatar URL, or the default avatar it shows for users without one. */
function avatarUrl(profile: DiscordProfile): string {
  if (profile.avatar) {
    const format = profile.avatar.startsWith('a_') ? 'gif' : 'png';
    return `${cdn}/avatars/${profile.id}/${profile.avatar}.${format}`;
  }
  const index =
    profile.discriminator === '0'
      ? Number((BigInt(profile.id) >> 22n) % 6n)
      : Number.parseInt(profile.discriminator, 10) % 5;
  return `${cdn}/embed/avatars/${index}.png`;
}

/** Discord: sign-in and the user's profile on discord.com (`baseUrl` stands in for it). */
export function discordProvider(
  credentials: ProviderCredentials,
  baseUrl: string | undefined,
): SocialProvider {
  const site = baseUrl ?? 'https://discord.com';
  const flow = oauthCodeFlow(credentials, {
    authorization: joinUrl(site, '/oauth2/authorize'),
    token: joinUrl(site, '/api/oauth2/token'),
  });
  return {
    id: 'discord',
    authorizationUrl({ state, codeVerifier, scopes }) {
      const url = flow.authorizationUrl(state, codeVerifier, ['identify', 'email', ...scopes]);
      // As Better Auth asks: no consent screen again for a user who already authorized the app.
      url.searchParams.set('prompt', 'none');
      return url;
    },
    exchangeCode: flow.exchangeCode,
    refreshAccessToken: flow.refreshAccessToken,
    async userInfo({ accessToken }) {
      if (!accessToken) return null;
      const parsed = profileSchema.safeParse(
        await fetchProviderJson(joinUrl(site, '/api/users/@me'), accessToken),
      );
      if (!parsed.success) return null;
      const profile = { ...parsed.data, image_url: avatarUrl(parsed.data) };
      return {
        user: {
          id: profile.id,
          name: profile.global_name || profile.username,
          email: profile.email,
          image: profile.image_url,
          emailVerified: profile.verified,
        },
        data: profile,
      };
    },
  };
}
