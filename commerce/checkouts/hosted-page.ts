import type { EntityManager } from '@mikro-orm/postgresql';
import { Checkout, CheckoutLink, CheckoutLinkProduct } from '../../db/entities/index.ts';
import type { Organization } from '../../db/entities/organization.ts';
import { checkoutLinkUrl } from '../checkout-links/schemas.ts';
import { effectiveStatus } from './status.ts';

/**
 * What the hosted checkout page says around a checkout, read when the page is served: whose
 * checkout it is, where a new one starts, and why it cannot be used (an expired checkout, an
 * unknown one, a link deleted or offering nothing). Never a raw JSON error to a buyer.
 */
export interface HostedCheckoutNotice {
  /** The seller's name; null when nothing is known of the address (an unknown secret). */
  organizationName: string | null;
  /** Where "start a new checkout" leads: the checkout link it came from, else the seller's website. */
  startOverUrl: string | null;
  unavailable: 'expired' | 'not_found' | 'link_not_found' | null;
}

/**
 * The hosted page a browser following a checkout link that opens nothing is sent to (served by
 * api/checkout-page.ts), instead of the redirect's JSON refusal.
 */
export const unavailableLinkPath = (linkSecret: string) =>
  `/checkout-link/${encodeURIComponent(linkSecret)}`;

const unknown: HostedCheckoutNotice = {
  organizationName: null,
  startOverUrl: null,
  unavailable: 'not_found',
};

/** A link that still opens checkouts: not deleted and offering a product not archived. */
async function liveLink(em: EntityManager, link: CheckoutLink): Promise<boolean> {
  if (link.deletedAt) return false;
  const offered = await em.count(CheckoutLinkProduct, {
    checkoutLink: link,
    product: { isArchived: false },
  });
  return offered > 0;
}

/**
 * The notice of the checkout with this client secret. A checkout made from a link that still
 * works starts over at that link; any other, at the seller's website (when it has one).
 */
export async function checkoutNotice(
  em: EntityManager,
  clientSecret: string,
  publicUrl: string,
): Promise<HostedCheckoutNotice> {
  const checkout = await em.findOne(
    Checkout,
    { clientSecret },
    { populate: ['organization', 'checkoutLink'] },
  );
  if (!checkout) return unknown;
  const link = checkout.checkoutLink;
  const startOverUrl =
    link && (await liveLink(em, link))
      ? checkoutLinkUrl(publicUrl, link.clientSecret)
      : websiteOf(checkout.organization);
  return {
    organizationName: checkout.organization.name,
    startOverUrl,
    unavailable: effectiveStatus(checkout) === 'expired' ? 'expired' : null,
  };
}

/** The notice of a checkout link that opened no checkout: deleted, or offering nothing now. */
export async function checkoutLinkNotice(
  em: EntityManager,
  linkSecret: string,
): Promise<HostedCheckoutNotice> {
  const link = await em.findOne(
    CheckoutLink,
    { clientSecret: linkSecret },
    { populate: ['organization'] },
  );
  if (!link) return { ...unknown, unavailable: 'link_not_found' };
  return {
    organizationName: link.organization.name,
    startOverUrl: websiteOf(link.organization),
    unavailable: (await liveLink(em, link)) ? null : 'link_not_found',
  };
}

/** The seller's website, only when it is a web address a link may point to. */
function websiteOf(organization: Organization): string | null {
  const website = organization.website;
  return website && /^https?:\/\//i.test(website) ? website : null;
}
