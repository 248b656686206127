import Router from '@koa/router';
import { authSettings } from '../../accounts/settings.ts';
import { isAllowedRedirect } from '../../api/auth/origins.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody, parseQuery } from '../../api/validation.ts';
import { invalidField } from '../../core/errors.ts';
import { s3Storage } from '../../integrations/files/s3-storage.ts';
import { localDiskStorage } from '../../integrations/files/storage.ts';
import { fetchLinkedAccount, LinkFailed } from '../../integrations/oauth/account-links.ts';
import { requestGrantChange } from '../../processes/starters.ts';
import {
  customerBenefitGrantWire,
  customerPortalCustomerWire,
} from '../customer-portal/schemas.ts';
import { customerOAuthAccounts } from '../customer-portal/service.ts';
import { notPermitted, resourceNotFound } from '../errors.ts';
import { partUrlLifetimeMs } from '../files/service.ts';
import { sessionCustomerOf } from '../http/customer-session.ts';
import { benefitBoundListParameters, portalGate } from '../http/portal.ts';
import { readIdParam } from '../http/request.ts';
import { downloadUrl, downloadUrlLifetimeMs, readDownload, signDownload } from './downloads.ts';
import { linkAuthorizationUrl, readLinkState, saveLinkedAccount } from './oauth-accounts.ts';
import { listCustomerDownloadables, recordDownload, updateCustomerBenefitGrant } from './portal.ts';
import {
  customerBenefitGrantUpdateInput,
  customerDownloadableWire,
  oauthAuthorizeQuery,
} from './schemas.ts';

/**
 * The customer portal's side of grants: linking the account a Discord or GitHub grant waits
 * for (through the platform's OAuth consent, `/oauth-accounts/…`, or by account id with PATCH
 * /benefit-grants/{id}; either tries the waiting grants again), and the granted downloadable
 * files with signed URLs that expire (`/downloadables/files/<grant>`: the URL is the credential).
 */
export function customerPortalGrantRoutes(dependencies: AppDependencies): Router {
  const { orm, config, temporal } = dependencies;
  const router = new Router({ prefix: '/v1/customer-portal' });
  const { session, limit, list } = portalGate(dependencies);
  const { secret, trustedOrigins } = authSettings(config);
  const { publicUrl } = config.api;
  const storage = config.files.s3
    ? s3Storage(config.files.s3, partUrlLifetimeMs)
    : localDiskStorage(config.files.storageDir);

  router.patch('/benefit-grants/:id', limit('portalWrite'), session, async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, customerBenefitGrantUpdateInput);
    const customer = sessionCustomerOf(ctx);
    const { grant, linked } = await updateCustomerBenefitGrant(orm.em, customer, id, input);
    if (linked) {
      await requestGrantChange(
        temporal,
        {
          organizationId: grant.benefit.organization.id,
          customerId: customer.id,
          benefitId: grant.benefit.id,
        },
        { action: 'retry' },
      );
    }
    const accounts = await customerOAuthAccounts(orm.em.fork(), customer);
    ctx.body = customerBenefitGrantWire(grant, customerPortalCustomerWire(customer, accounts));
  });

  const callbackUrl = new URL(
    'v1/customer-portal/oauth-accounts/callback',
    `${publicUrl.replace(/\/$/, '')}/`,
  ).href;

  /** Sends the customer to Discord or GitHub to link the account its grants need. */
  router.get('/oauth-accounts/authorize', limit('portalWrite'), session, async (ctx) => {
    const query = parseQuery(ctx, oauthAuthorizeQuery);
    const provider = config.auth.social.providers[query.platform];
    if (!provider) {
      throw invalidField(
        ['query', 'platform'],
        `Linking ${query.platform} accounts is not set up.`,
      );
    }
    const returnTo = query.return_to ?? publicUrl;
    if (!isAllowedRedirect(returnTo, trustedOrigins)) {
      throw invalidField(['query', 'return_to'], 'This URL is not a trusted redirect.');
    }
    const link = { customerId: sessionCustomerOf(ctx).id, platform: query.platform, returnTo };
    ctx.body = { url: linkAuthorizationUrl(provider, secret, callbackUrl, link) };
  });

  /**
   * Where the platform sends the customer back: the signed state says who links what. The
   * account is stored and the grants waiting for it are tried again; then back to `return_to`
   * (with `error` when the platform refused).
   */
  router.get('/oauth-accounts/callback', limit('oauthCallback'), async (ctx) => {
    const state = readLinkState(secret, String(ctx.query.state ?? ''));
    if (!state) throw notPermitted('The link is invalid or has expired.');
    const back = new URL(state.returnTo, publicUrl);
    const provider = config.auth.social.providers[state.platform];
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : '';
    try {
      if (!provider || !code) throw new LinkFailed(String(ctx.query.error ?? 'access_denied'));
      const account = await fetchLinkedAccount(provider, state.platform, code, callbackUrl);
      const waiting = await saveLinkedAccount(
        orm.em.fork(),
        state.customerId,
        state.platform,
        account,
      );
      for (const grant of waiting) {
        await requestGrantChange(
          temporal,
          {
            organizationId: grant.benefit.organization.id,
            customerId: state.customerId,
            benefitId: grant.benefit.id,
          },
          { action: 'retry' },
        );
      }
    } catch (error) {
      if (!(error instanceof LinkFailed)) throw error;
      back.searchParams.set('error', error.message);
    }
    ctx.redirect(back.href);
  });

  router.get(
    '/downloadables/',
    ...list({
      query: benefitBoundListParameters,
      list: (customer, query) => listCustomerDownloadables(orm.em, customer, query),
      serialize: (downloadables) => {
        const expiresAt = Date.now() + downloadUrlLifetimeMs;
        return downloadables.map((downloadable) =>
          customerDownloadableWire(downloadable, {
            url: downloadUrl(
              publicUrl,
              signDownload(secret, { downloadableId: downloadable.id, expiresAt }),
            ),
            expiresAt,
          }),
        );
      },
    }),
  );

  router.get('/downloadables/files/:grant', limit('download'), async (ctx) => {
    const grant = readDownload(secret, ctx.params.grant ?? '');
    if (!grant) throw notPermitted('The download URL is invalid or has expired.');
    const file = await recordDownload(orm.em, grant.downloadableId);
    const content = await storage.read(file.path);
    if (!content) throw resourceNotFound('File not found');
    ctx.type = file.mimeType;
    ctx.length = content.size;
    ctx.set('Cache-Control', 'private, no-store');
    ctx.set('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = content.stream;
  });

  return router;
}
