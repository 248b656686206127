import { z } from 'zod';
import {
  accessTokenWireSchema,
  apiKeyVerificationWireSchema,
  apiKeyWireSchema,
  createdApiKeyWireSchema,
  providerAccountWireSchema,
  providerUserInfoWireSchema,
  refreshedTokensWireSchema,
  sessionWireSchema,
  sessionWithUserWireSchema,
  signedInUserWireSchema,
  statusWireSchema,
  successWireSchema,
  tokenAndUserWireSchema,
} from '../../accounts/schemas.ts';
import type { Operation } from '../../commerce/http/openapi.ts';
import { customerSubscriptionWireSchema } from '../../commerce/subscriptions/schemas.ts';
import { changeEmailBody, sendVerificationBody, verifyEmailQuery } from './account-email-routes.ts';
import {
  changePasswordBody,
  requestResetBody,
  resetLinkQuery,
  resetPasswordBody,
  resetPasswordQuery,
} from './account-password-routes.ts';
import { deleteCallbackQuery, deleteUserBody } from './account-routes.ts';
import { adminOperations } from './admin/operations.ts';
import {
  createBody as createApiKeyBody,
  updateBody as updateApiKeyBody,
  verifyBody as verifyApiKeyBody,
} from './api-key-routes.ts';
import { signInBody, signUpBody } from './email-password-routes.ts';
import { organizationOperations } from './organization/operations.ts';
import { errorPageQuery, idQuery, keyIdBody } from './schemas.ts';
import {
  getSessionQuery,
  revokeSessionBody,
  updateUserBody as updateOwnUserBody,
} from './session-routes.ts';
import { accountInfoBody, providerTokenBody, unlinkAccountBody } from './social/account-routes.ts';
import { callbackParams, linkSocialBody, signInSocialBody } from './social/sign-in-routes.ts';
import { restoreBody } from './subscription-routes.ts';

/**
 * /api/auth, route by route, for its OpenAPI document (GET /api/auth/openapi.json). Requests
 * are the zod constants the handlers parse with; answers, the wire schemas of accounts/.
 * operationId is the Better Auth client's call (`signUp:email` is `client.signUp.email`).
 */

const base = '/api/auth';

/** Links in mails and provider callbacks answer with a redirect (Better Auth's 302). */
const redirect = { status: 302 } as const;

const pageOperations: Operation[] = [
  {
    method: 'get',
    path: `${base}/ok`,
    operationId: 'ok',
    summary: 'Says the auth API is up',
    tag: 'Pages',
    auth: 'public',
    response: { status: 200, schema: z.strictObject({ ok: z.literal(true) }) },
  },
  {
    method: 'get',
    path: `${base}/error`,
    operationId: 'error',
    summary: 'The error page a failed link or provider sign-in ends on',
    tag: 'Pages',
    auth: 'public',
    query: errorPageQuery,
    response: { status: 200, contentType: 'text/html' },
  },
];

const emailPasswordOperations: Operation[] = [
  {
    method: 'post',
    path: `${base}/sign-up/email`,
    operationId: 'signUp:email',
    summary: 'Creates an account with an email and password (signed in unless mail must verify)',
    tag: 'Email and password',
    auth: 'public',
    body: signUpBody,
    response: { status: 200, schema: tokenAndUserWireSchema },
  },
  {
    method: 'post',
    path: `${base}/sign-in/email`,
    operationId: 'signIn:email',
    summary: 'Signs in with an email and password',
    tag: 'Email and password',
    auth: 'public',
    body: signInBody,
    response: {
      status: 200,
      schema: z.strictObject({
        redirect: z.boolean(),
        token: z.string(),
        url: z.string().optional(),
        user: signedInUserWireSchema,
      }),
    },
    errors: [401, 403],
  },
  {
    method: 'post',
    path: `${base}/sign-out`,
    operationId: 'signOut',
    summary: 'Ends the session and clears its cookies',
    tag: 'Email and password',
    auth: 'session',
    response: { status: 200, schema: successWireSchema },
  },
];

const sessionOperations: Operation[] = [
  {
    method: 'get',
    path: `${base}/get-session`,
    operationId: 'getSession',
    summary: 'The session and its user (null when signed out); an x-api-key stands for its owner',
    tag: 'Sessions',
    auth: 'session',
    query: getSessionQuery,
    response: { status: 200, schema: sessionWithUserWireSchema },
  },
  {
    method: 'get',
    path: `${base}/list-sessions`,
    operationId: 'listSessions',
    summary: "The signed-in user's sessions",
    tag: 'Sessions',
    auth: 'session',
    response: { status: 200, schema: z.array(sessionWireSchema) },
  },
  {
    method: 'post',
    path: `${base}/revoke-session`,
    operationId: 'revokeSession',
    summary: "Ends one of the user's sessions, named by its token or id",
    tag: 'Sessions',
    auth: 'session',
    body: revokeSessionBody,
    response: { status: 200, schema: statusWireSchema },
  },
  {
    method: 'post',
    path: `${base}/revoke-sessions`,
    operationId: 'revokeSessions',
    summary: "Ends all of the user's sessions",
    tag: 'Sessions',
    auth: 'session',
    response: { status: 200, schema: statusWireSchema },
  },
  {
    method: 'post',
    path: `${base}/revoke-other-sessions`,
    operationId: 'revokeOtherSessions',
    summary: "Ends the user's sessions but this one",
    tag: 'Sessions',
    auth: 'session',
    response: { status: 200, schema: statusWireSchema },
  },
];

const accountOperations: Operation[] = [
  {
    method: 'post',
    path: `${base}/update-user`,
    operationId: 'updateUser',
    summary: "Changes the signed-in user's name or image",
    tag: 'Account',
    auth: 'session',
    body: updateOwnUserBody,
    response: { status: 200, schema: statusWireSchema },
  },
  {
    method: 'post',
    path: `${base}/delete-user`,
    operationId: 'deleteUser',
    summary: 'Deletes the account, or mails the link that does (TOLLGATE_DELETE_USER_VERIFICATION)',
    tag: 'Account',
    auth: 'session',
    body: deleteUserBody,
    response: {
      status: 200,
      schema: z.strictObject({ success: z.literal(true), message: z.string() }),
    },
  },
  {
    method: 'get',
    path: `${base}/delete-user/callback`,
    operationId: 'deleteUser:callback',
    summary: "The mailed deletion link: deletes the signed-in owner's account, then redirects",
    tag: 'Account',
    auth: 'session',
    query: deleteCallbackQuery,
    response: redirect,
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/change-email`,
    operationId: 'changeEmail',
    summary: 'Moves the account to a new address (a verified one confirms by mail first)',
    tag: 'Account',
    auth: 'session',
    body: changeEmailBody,
    response: { status: 200, schema: statusWireSchema },
  },
  {
    method: 'post',
    path: `${base}/change-password`,
    operationId: 'changePassword',
    summary: 'Changes the password, optionally ending the other sessions',
    tag: 'Account',
    auth: 'session',
    body: changePasswordBody,
    response: { status: 200, schema: tokenAndUserWireSchema },
  },
];

const verificationOperations: Operation[] = [
  {
    method: 'post',
    path: `${base}/send-verification-email`,
    operationId: 'sendVerificationEmail',
    summary:
      'Mails a verification link (the same answer whether or not the address has an account)',
    tag: 'Email verification',
    auth: 'public',
    body: sendVerificationBody,
    response: { status: 200, schema: statusWireSchema },
  },
  {
    method: 'get',
    path: `${base}/verify-email`,
    operationId: 'verifyEmail',
    summary:
      'The mailed verification link: verifies, or confirms a move (redirects with callbackURL)',
    tag: 'Email verification',
    auth: 'public',
    query: verifyEmailQuery,
    response: {
      status: 200,
      schema: z.strictObject({ status: z.literal(true), user: signedInUserWireSchema.nullable() }),
    },
  },
];

const passwordResetOperations: Operation[] = [
  {
    method: 'post',
    path: `${base}/request-password-reset`,
    operationId: 'requestPasswordReset',
    summary: 'Mails a reset link (the same answer for every address)',
    tag: 'Password reset',
    auth: 'public',
    body: requestResetBody,
    response: {
      status: 200,
      schema: z.strictObject({ status: z.literal(true), message: z.string() }),
    },
  },
  {
    method: 'post',
    path: `${base}/forget-password`,
    operationId: 'forgetPassword',
    summary: 'The older name of request-password-reset',
    tag: 'Password reset',
    auth: 'public',
    body: requestResetBody,
    response: { status: 200, schema: statusWireSchema },
  },
  {
    method: 'get',
    path: `${base}/reset-password/:token`,
    operationId: 'resetPassword:callback',
    summary: "The mailed reset link: redirects to the app's page with the token, or an error",
    tag: 'Password reset',
    auth: 'public',
    query: resetLinkQuery,
    response: redirect,
  },
  {
    method: 'post',
    path: `${base}/reset-password`,
    operationId: 'resetPassword',
    summary: 'Sets a new password with the mailed token and ends every session',
    tag: 'Password reset',
    auth: 'public',
    query: resetPasswordQuery,
    body: resetPasswordBody,
    response: { status: 200, schema: statusWireSchema },
  },
];

const socialOperations: Operation[] = [
  {
    method: 'get',
    path: `${base}/providers`,
    operationId: 'providers',
    summary: 'The social providers configured, for sign-in buttons',
    tag: 'Social sign-in',
    auth: 'public',
    response: { status: 200, schema: z.strictObject({ providers: z.array(z.string()) }) },
  },
  {
    method: 'post',
    path: `${base}/sign-in/social`,
    operationId: 'signIn:social',
    summary: "The provider's authorization URL, or a session at once for an id token",
    tag: 'Social sign-in',
    auth: 'public',
    body: signInSocialBody,
    response: {
      status: 200,
      schema: z.union([
        z.strictObject({ url: z.string(), redirect: z.boolean() }),
        z.strictObject({
          redirect: z.literal(false),
          token: z.string(),
          user: signedInUserWireSchema,
        }),
      ]),
    },
    errors: [404],
  },
  {
    method: 'get',
    path: `${base}/callback/:id`,
    operationId: 'callback',
    summary: 'Where the provider sends the browser back: signs in or links, then redirects',
    tag: 'Social sign-in',
    auth: 'public',
    query: callbackParams,
    response: redirect,
  },
  {
    method: 'post',
    path: `${base}/callback/:id`,
    operationId: 'callback:formPost',
    summary: 'The callback for providers that post their answer as a form (Apple-style form_post)',
    tag: 'Social sign-in',
    auth: 'public',
    body: callbackParams,
    response: redirect,
  },
  {
    method: 'post',
    path: `${base}/link-social`,
    operationId: 'linkSocial',
    summary: 'Links a provider account to the signed-in user (its authorization URL, or at once)',
    tag: 'Social sign-in',
    auth: 'session',
    body: linkSocialBody,
    response: {
      status: 200,
      schema: z.strictObject({
        url: z.string(),
        status: z.literal(true).optional(),
        redirect: z.boolean(),
      }),
    },
    errors: [404],
  },
  {
    method: 'get',
    path: `${base}/list-accounts`,
    operationId: 'listAccounts',
    summary: "The signed-in user's accounts: the password one and each provider's",
    tag: 'Social sign-in',
    auth: 'session',
    response: { status: 200, schema: z.array(providerAccountWireSchema) },
  },
  {
    method: 'post',
    path: `${base}/unlink-account`,
    operationId: 'unlinkAccount',
    summary: 'Unlinks a provider account (needs a recent sign-in)',
    tag: 'Social sign-in',
    auth: 'session',
    body: unlinkAccountBody,
    response: { status: 200, schema: statusWireSchema },
  },
  {
    method: 'post',
    path: `${base}/get-access-token`,
    operationId: 'getAccessToken',
    summary: "A provider account's access token, renewed when about to expire",
    tag: 'Social sign-in',
    auth: 'session',
    body: providerTokenBody,
    response: { status: 200, schema: accessTokenWireSchema },
  },
  {
    method: 'post',
    path: `${base}/refresh-token`,
    operationId: 'refreshToken',
    summary: "Renews a provider account's tokens now",
    tag: 'Social sign-in',
    auth: 'session',
    body: providerTokenBody,
    response: { status: 200, schema: refreshedTokensWireSchema },
  },
  {
    method: 'post',
    path: `${base}/account-info`,
    operationId: 'accountInfo',
    summary: 'What the provider says about one of the user’s accounts (null when it would not)',
    tag: 'Social sign-in',
    auth: 'session',
    body: accountInfoBody,
    response: { status: 200, schema: providerUserInfoWireSchema },
  },
];

const apiKeyOperations: Operation[] = [
  {
    method: 'post',
    path: `${base}/api-key/create`,
    operationId: 'apiKey:create',
    summary: 'Creates an API key for the signed-in user; the only answer with the whole key',
    tag: 'API keys',
    auth: 'session',
    body: createApiKeyBody,
    response: { status: 200, schema: createdApiKeyWireSchema },
  },
  {
    method: 'post',
    path: `${base}/api-key/verify`,
    operationId: 'apiKey:verify',
    summary: 'Whether a key is valid (and grants permissions); a refusal is an answer',
    tag: 'API keys',
    auth: 'public',
    body: verifyApiKeyBody,
    response: { status: 200, schema: apiKeyVerificationWireSchema },
  },
  {
    method: 'get',
    path: `${base}/api-key/get`,
    operationId: 'apiKey:get',
    summary: "One of the user's keys",
    tag: 'API keys',
    auth: 'session',
    query: idQuery,
    response: { status: 200, schema: apiKeyWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/api-key/update`,
    operationId: 'apiKey:update',
    summary: "Renames, enables or disables one of the user's keys, or changes its expiry",
    tag: 'API keys',
    auth: 'session',
    body: updateApiKeyBody,
    response: { status: 200, schema: apiKeyWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/api-key/delete`,
    operationId: 'apiKey:delete',
    summary: "Deletes one of the user's keys",
    tag: 'API keys',
    auth: 'session',
    body: keyIdBody,
    response: { status: 200, schema: successWireSchema },
    errors: [404],
  },
  {
    method: 'get',
    path: `${base}/api-key/list`,
    operationId: 'apiKey:list',
    summary: "The user's keys",
    tag: 'API keys',
    auth: 'session',
    response: { status: 200, schema: z.array(apiKeyWireSchema) },
  },
  {
    method: 'post',
    path: `${base}/api-key/delete-all-expired-api-keys`,
    operationId: 'apiKey:deleteAllExpiredApiKeys',
    summary: 'Deletes every expired key',
    tag: 'API keys',
    auth: 'session',
    response: {
      status: 200,
      schema: z.strictObject({ success: z.literal(true), error: z.null() }),
    },
  },
];

const subscriptionOperations: Operation[] = [
  {
    method: 'post',
    path: `${base}/subscription/restore`,
    operationId: 'subscription:restore',
    summary: "Takes back a cancel at period end of one of the user's own subscriptions",
    tag: 'Subscriptions',
    auth: 'session',
    body: restoreBody,
    // Polar's CustomerSubscription, as the customer portal answers it.
    response: { status: 200, schema: customerSubscriptionWireSchema },
    // 400 also when the subscription has ended, is not set to cancel, or is not named among several.
    errors: [400, 404],
  },
];

/** Every route of /api/auth. */
export const authOperations: Operation[] = [
  ...pageOperations,
  ...emailPasswordOperations,
  ...sessionOperations,
  ...accountOperations,
  ...verificationOperations,
  ...passwordResetOperations,
  ...socialOperations,
  ...apiKeyOperations,
  ...subscriptionOperations,
  ...organizationOperations,
  ...adminOperations,
];
