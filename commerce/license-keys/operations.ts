import { z } from 'zod';
import { idPath, type Operation, pageOf } from '../http/openapi.ts';
import { benefitBoundListParameters } from '../http/portal.ts';
import { licenseKeyListParameters } from './routes.ts';
import {
  licenseKeyActivateInput,
  licenseKeyActivationWireSchema,
  licenseKeyDeactivateInput,
  licenseKeyUpdateInput,
  licenseKeyValidateInput,
  licenseKeyWireSchema,
  licenseKeyWithActivationsWireSchema,
  validatedLicenseKeyWireSchema,
} from './schemas.ts';

const read = ['license_keys:read', 'license_keys:write'] as const;
const write = ['license_keys:write'] as const;

/** Validate, activate and deactivate, as both the seller's API and the portal's public calls answer them. */
const keyChecks = (
  prefix: string,
  ids: string,
  caller: Pick<Operation, 'tag' | 'scopes' | 'auth'>,
): Operation[] => [
  {
    method: 'post',
    path: `${prefix}/validate`,
    operationId: `${ids}:validate`,
    summary: 'Validate a license key (and count its usage)',
    body: licenseKeyValidateInput,
    response: { status: 200, schema: validatedLicenseKeyWireSchema },
    // 400 when the usage asked for would pass the key's usage limit.
    errors: [400, 404],
    ...caller,
  },
  {
    method: 'post',
    path: `${prefix}/activate`,
    operationId: `${ids}:activate`,
    summary: 'Activate a license key on a device or instance',
    body: licenseKeyActivateInput,
    response: { status: 200, schema: licenseKeyActivationWireSchema },
    // 403 NotPermitted: the activation limit is reached, or the key takes no activations.
    errors: [403, 404],
    ...caller,
  },
  {
    method: 'post',
    path: `${prefix}/deactivate`,
    operationId: `${ids}:deactivate`,
    summary: 'Deactivate one activation of a license key',
    body: licenseKeyDeactivateInput,
    response: { status: 204 },
    // 403 NotPermitted from the portal when the seller manages the key's activations.
    errors: [403, 404],
    ...caller,
  },
];

/** The operations of licenseKeyRoutes (/v1/license-keys). */
export const licenseKeyOperations: Operation[] = [
  {
    method: 'get',
    path: '/v1/license-keys',
    operationId: 'license_keys:list',
    summary: 'List license keys',
    tag: 'License keys',
    scopes: read,
    query: licenseKeyListParameters.schema,
    response: { status: 200, schema: pageOf(licenseKeyWireSchema) },
  },
  ...keyChecks('/v1/license-keys', 'license_keys', { tag: 'License keys', scopes: write }),
  {
    method: 'get',
    path: '/v1/license-keys/:id',
    operationId: 'license_keys:get',
    summary: 'Get a license key with its activations',
    tag: 'License keys',
    scopes: read,
    params: idPath,
    response: { status: 200, schema: licenseKeyWithActivationsWireSchema },
    errors: [404],
  },
  {
    method: 'patch',
    path: '/v1/license-keys/:id',
    operationId: 'license_keys:update',
    summary: 'Update a license key',
    tag: 'License keys',
    scopes: write,
    params: idPath,
    body: licenseKeyUpdateInput,
    response: { status: 200, schema: licenseKeyWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/license-keys/:id/activations/:activation_id',
    operationId: 'license_keys:get_activation',
    summary: 'Get an activation of a license key',
    tag: 'License keys',
    scopes: read,
    params: z.object({ id: z.uuid(), activation_id: z.uuid() }),
    response: { status: 200, schema: licenseKeyActivationWireSchema },
    errors: [404],
  },
];

/**
 * The operations of customerPortalLicenseKeyRoutes (/v1/customer-portal/license-keys): the
 * customer's keys, and the key checks apps make with the key alone (public; a deactivate that
 * also carries the customer's session is allowed only where the benefit lets customers).
 */
export const customerPortalLicenseKeyOperations: Operation[] = [
  ...keyChecks('/v1/customer-portal/license-keys', 'customer_portal:license_keys', {
    tag: 'Customer Portal',
    auth: 'public',
  }),
  {
    method: 'get',
    path: '/v1/customer-portal/license-keys',
    operationId: 'customer_portal:license_keys:list',
    summary: 'List the customer’s license keys',
    tag: 'Customer Portal',
    auth: 'customer',
    query: benefitBoundListParameters.schema,
    response: { status: 200, schema: pageOf(licenseKeyWireSchema) },
  },
  {
    method: 'get',
    path: '/v1/customer-portal/license-keys/:id',
    operationId: 'customer_portal:license_keys:get',
    summary: 'Get one of the customer’s license keys with its activations',
    tag: 'Customer Portal',
    auth: 'customer',
    params: idPath,
    response: { status: 200, schema: licenseKeyWithActivationsWireSchema },
    errors: [404],
  },
];
