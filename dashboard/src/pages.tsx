/**
 * Every page of the signed-in dashboard, and the sidebar built from them. See router.tsx for
 * how to add one.
 */
import { type ComponentType, lazy } from 'react';
import type { PageProps } from './router';

export interface Route {
  path: string;
  /** The document title, and the sidebar label for entries with `nav`. */
  title: string;
  page: ComponentType<PageProps>;
  /** The sidebar section that lists this page; detail pages have none. */
  nav?: NavSection;
}

export const navSections = [
  'Overview',
  'Catalog',
  'Sales',
  'Finance',
  'Engineering',
  'Organization',
  'Admin',
] as const;
export type NavSection = (typeof navSections)[number];

export const routes: Route[] = [
  { path: '/', title: 'Home', nav: 'Overview', page: lazy(() => import('./pages/HomePage.tsx')) },
  {
    path: '/products',
    title: 'Products',
    nav: 'Catalog',
    page: lazy(() => import('./pages/products/ProductsPage.tsx')),
  },
  {
    path: '/products/new',
    title: 'New product',
    page: lazy(() => import('./pages/products/NewProductPage.tsx')),
  },
  {
    path: '/products/:id',
    title: 'Product',
    page: lazy(() => import('./pages/products/ProductPage.tsx')),
  },
  {
    path: '/products/:id/edit',
    title: 'Edit product',
    page: lazy(() => import('./pages/products/EditProductPage.tsx')),
  },
  {
    path: '/discounts',
    title: 'Discounts',
    nav: 'Catalog',
    page: lazy(() => import('./pages/discounts/DiscountsPage.tsx')),
  },
  {
    path: '/discounts/new',
    title: 'New discount',
    page: lazy(() => import('./pages/discounts/NewDiscountPage.tsx')),
  },
  {
    path: '/discounts/:id',
    title: 'Discount',
    page: lazy(() => import('./pages/discounts/DiscountPage.tsx')),
  },
  {
    path: '/benefits',
    title: 'Benefits',
    nav: 'Catalog',
    page: lazy(() => import('./pages/benefits/BenefitsPage.tsx')),
  },
  {
    path: '/benefits/new',
    title: 'New benefit',
    page: lazy(() => import('./pages/benefits/NewBenefitPage.tsx')),
  },
  {
    path: '/benefits/:id',
    title: 'Benefit',
    page: lazy(() => import('./pages/benefits/BenefitPage.tsx')),
  },
  {
    path: '/benefits/:id/edit',
    title: 'Edit benefit',
    page: lazy(() => import('./pages/benefits/EditBenefitPage.tsx')),
  },
  {
    path: '/custom-fields',
    title: 'Custom fields',
    nav: 'Catalog',
    page: lazy(() => import('./pages/custom-fields/CustomFieldsPage.tsx')),
  },
  {
    path: '/custom-fields/new',
    title: 'New custom field',
    page: lazy(() => import('./pages/custom-fields/NewCustomFieldPage.tsx')),
  },
  {
    path: '/custom-fields/:id',
    title: 'Custom field',
    page: lazy(() => import('./pages/custom-fields/CustomFieldPage.tsx')),
  },
  {
    path: '/meters',
    title: 'Meters',
    nav: 'Catalog',
    page: lazy(() => import('./pages/meters/MetersPage.tsx')),
  },
  {
    path: '/meters/new',
    title: 'New meter',
    page: lazy(() => import('./pages/meters/NewMeterPage.tsx')),
  },
  {
    path: '/meters/:id',
    title: 'Meter',
    page: lazy(() => import('./pages/meters/MeterPage.tsx')),
  },
  {
    path: '/meters/:id/edit',
    title: 'Edit meter',
    page: lazy(() => import('./pages/meters/EditMeterPage.tsx')),
  },
  {
    path: '/checkout-links',
    title: 'Checkout links',
    nav: 'Catalog',
    page: lazy(() => import('./pages/checkout-links/CheckoutLinksPage.tsx')),
  },
  {
    path: '/checkout-links/new',
    title: 'New checkout link',
    page: lazy(() => import('./pages/checkout-links/NewCheckoutLinkPage.tsx')),
  },
  {
    path: '/checkout-links/:id',
    title: 'Checkout link',
    page: lazy(() => import('./pages/checkout-links/CheckoutLinkPage.tsx')),
  },
  {
    path: '/customers',
    title: 'Customers',
    nav: 'Sales',
    page: lazy(() => import('./pages/customers/CustomersPage.tsx')),
  },
  {
    path: '/customers/:id',
    title: 'Customer',
    page: lazy(() => import('./pages/customers/CustomerPage.tsx')),
  },
  {
    path: '/orders',
    title: 'Orders',
    nav: 'Sales',
    page: lazy(() => import('./pages/orders/OrdersPage.tsx')),
  },
  { path: '/orders/:id', title: 'Order', page: lazy(() => import('./pages/orders/OrderPage.tsx')) },
  {
    path: '/refunds',
    title: 'Refunds',
    nav: 'Sales',
    page: lazy(() => import('./pages/refunds/RefundsPage.tsx')),
  },
  {
    path: '/subscriptions',
    title: 'Subscriptions',
    nav: 'Sales',
    page: lazy(() => import('./pages/subscriptions/SubscriptionsPage.tsx')),
  },
  {
    path: '/subscriptions/:id',
    title: 'Subscription',
    page: lazy(() => import('./pages/subscriptions/SubscriptionPage.tsx')),
  },
  {
    path: '/failed-renewals',
    title: 'Failed renewals',
    nav: 'Finance',
    page: lazy(() => import('./pages/finance/FailedRenewalsPage.tsx')),
  },
  {
    path: '/reconciliation',
    title: 'Reconciliation',
    nav: 'Finance',
    page: lazy(() => import('./pages/finance/ReconciliationPage.tsx')),
  },
  {
    path: '/tax',
    title: 'Tax',
    nav: 'Finance',
    page: lazy(() => import('./pages/finance/TaxPage.tsx')),
  },
  // Operators' pages (issue 20): payments, checkouts, license keys, usage events, API keys.
  {
    path: '/payments',
    title: 'Payments',
    nav: 'Finance',
    page: lazy(() => import('./pages/payments/PaymentsPage.tsx')),
  },
  {
    path: '/payments/:id',
    title: 'Payment',
    page: lazy(() => import('./pages/payments/PaymentPage.tsx')),
  },
  {
    path: '/checkouts',
    title: 'Checkouts',
    nav: 'Sales',
    page: lazy(() => import('./pages/checkouts/CheckoutsPage.tsx')),
  },
  {
    path: '/checkouts/:id',
    title: 'Checkout',
    page: lazy(() => import('./pages/checkouts/CheckoutPage.tsx')),
  },
  {
    path: '/license-keys',
    title: 'License keys',
    nav: 'Sales',
    page: lazy(() => import('./pages/license-keys/LicenseKeysPage.tsx')),
  },
  {
    path: '/license-keys/:id',
    title: 'License key',
    page: lazy(() => import('./pages/license-keys/LicenseKeyPage.tsx')),
  },
  {
    path: '/events',
    title: 'Usage events',
    nav: 'Engineering',
    page: lazy(() => import('./pages/events/EventsPage.tsx')),
  },
  {
    path: '/events/:id',
    title: 'Usage event',
    page: lazy(() => import('./pages/events/EventPage.tsx')),
  },
  {
    path: '/api-keys',
    title: 'API keys',
    nav: 'Engineering',
    page: lazy(() => import('./pages/api-keys/ApiKeysPage.tsx')),
  },
  {
    path: '/api-keys/:id',
    title: 'API key',
    page: lazy(() => import('./pages/api-keys/ApiKeyPage.tsx')),
  },
  {
    path: '/workflows',
    title: 'Workflows',
    nav: 'Engineering',
    page: lazy(() => import('./pages/workflows/WorkflowsPage.tsx')),
  },
  {
    path: '/workflows/:kind/:entityId',
    title: 'Workflow',
    page: lazy(() => import('./pages/workflows/WorkflowPage.tsx')),
  },
  {
    path: '/system',
    title: 'System status',
    nav: 'Engineering',
    page: lazy(() => import('./pages/SystemStatusPage.tsx')),
  },
  {
    path: '/organization/members',
    title: 'Members',
    nav: 'Organization',
    page: lazy(() => import('./pages/organization/MembersPage.tsx')),
  },
  {
    path: '/organization/invitations',
    title: 'Invitations',
    nav: 'Organization',
    page: lazy(() => import('./pages/organization/InvitationsPage.tsx')),
  },
  {
    path: '/organization/teams',
    title: 'Teams',
    nav: 'Organization',
    page: lazy(() => import('./pages/organization/TeamsPage.tsx')),
  },
  {
    path: '/organization/teams/:id',
    title: 'Team',
    page: lazy(() => import('./pages/organization/TeamPage.tsx')),
  },
  {
    path: '/organization/tokens',
    title: 'Access tokens',
    nav: 'Organization',
    page: lazy(() => import('./pages/organization/AccessTokensPage.tsx')),
  },
  {
    path: '/organization/webhooks',
    title: 'Webhooks',
    nav: 'Organization',
    page: lazy(() => import('./pages/organization/WebhooksPage.tsx')),
  },
  {
    path: '/organization/webhooks/:id',
    title: 'Webhook endpoint',
    page: lazy(() => import('./pages/organization/WebhookPage.tsx')),
  },
  {
    path: '/organization/settings',
    title: 'Settings',
    nav: 'Organization',
    page: lazy(() => import('./pages/organization/SettingsPage.tsx')),
  },
  {
    path: '/account',
    title: 'Profile',
    page: lazy(() => import('./pages/account/ProfilePage.tsx')),
  },
  {
    path: '/account/password',
    title: 'Password',
    page: lazy(() => import('./pages/account/PasswordPage.tsx')),
  },
  {
    path: '/account/sessions',
    title: 'Sessions',
    page: lazy(() => import('./pages/account/SessionsPage.tsx')),
  },
  {
    path: '/account/linked-accounts',
    title: 'Linked accounts',
    page: lazy(() => import('./pages/account/LinkedAccountsPage.tsx')),
  },
  {
    path: '/account/delete',
    title: 'Delete account',
    page: lazy(() => import('./pages/account/DeleteAccountPage.tsx')),
  },
  {
    path: '/admin/users',
    title: 'Users',
    nav: 'Admin',
    page: lazy(() => import('./pages/admin/UsersPage.tsx')),
  },
  {
    path: '/admin/users/:id',
    title: 'User',
    page: lazy(() => import('./pages/admin/UserPage.tsx')),
  },
  {
    path: '/organizations/new',
    title: 'New organization',
    page: lazy(() => import('./pages/NewOrganizationPage.tsx')),
  },
];
