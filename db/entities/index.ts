import { Account } from './account.ts';
import { ApiKey } from './api-key.ts';
import { Benefit, BenefitGrant } from './benefit.ts';
import { CheckoutLink, CheckoutLinkProduct } from './checkout-link.ts';
import { CustomField } from './custom-field.ts';
import { Customer } from './customer.ts';
import { Discount, DiscountProduct } from './discount.ts';
import { Invitation } from './invitation.ts';
import { Member } from './member.ts';
import { CustomerMeter, Meter } from './meter.ts';
import { Organization } from './organization.ts';
import { OrganizationAccessToken } from './organization-access-token.ts';
import { OutboxEvent } from './outbox-event.ts';
import {
  Product,
  ProductBenefit,
  ProductCustomField,
  ProductMedia,
  ProductPrice,
} from './product.ts';
import { RateLimit } from './rate-limit.ts';
import { Session } from './session.ts';
import { StoredFile } from './stored-file.ts';
import { Team, TeamMember } from './team.ts';
import { User } from './user.ts';
import { Verification } from './verification.ts';

export {
  Account,
  ApiKey,
  Benefit,
  BenefitGrant,
  CheckoutLink,
  CheckoutLinkProduct,
  Customer,
  CustomerMeter,
  CustomField,
  Discount,
  DiscountProduct,
  Invitation,
  Member,
  Meter,
  Organization,
  OrganizationAccessToken,
  OutboxEvent,
  Product,
  ProductBenefit,
  ProductCustomField,
  ProductMedia,
  ProductPrice,
  RateLimit,
  Session,
  StoredFile,
  Team,
  TeamMember,
  User,
  Verification,
};

/** Every entity the ORM knows; registered explicitly, no folder scanning. */
export const entities = [
  User,
  Session,
  Account,
  Verification,
  ApiKey,
  RateLimit,
  Organization,
  Member,
  Team,
  TeamMember,
  Invitation,
  OrganizationAccessToken,
  OutboxEvent,
  StoredFile,
  CustomField,
  Meter,
  Customer,
  CustomerMeter,
  Benefit,
  BenefitGrant,
  Product,
  ProductPrice,
  ProductBenefit,
  ProductMedia,
  ProductCustomField,
  Discount,
  DiscountProduct,
  CheckoutLink,
  CheckoutLinkProduct,
];
