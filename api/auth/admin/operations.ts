import { z } from 'zod';
import {
  permissionCheckWireSchema,
  sessionWireSchema,
  statusWireSchema,
  successWireSchema,
  userWireSchema,
} from '../../../accounts/schemas.ts';
import type { Operation } from '../../../commerce/http/openapi.ts';
import { idQuery } from '../schemas.ts';
import { banUserBody } from './ban-routes.ts';
import { setRoleBody, userIdBody } from './context.ts';
import { hasPermissionBody } from './permission-routes.ts';
import { revokeUserSessionBody } from './session-routes.ts';
import {
  createUserBody,
  listUsersQuery,
  setUserPasswordBody,
  updateUserBody,
} from './user-routes.ts';

/**
 * Better Auth's admin plugin under /api/auth/admin, for the OpenAPI document. Each route needs
 * a session whose roles grant its action (403 otherwise).
 */

const base = '/api/auth/admin';
const tag = 'Admin';
const session = { auth: 'session' } as const;

const userAnswer = z.strictObject({ user: userWireSchema });
const sessionAnswer = z.strictObject({ session: sessionWireSchema, user: userWireSchema });

export const adminOperations: Operation[] = [
  {
    method: 'post',
    path: `${base}/create-user`,
    operationId: 'admin:createUser',
    summary: 'Creates a user with a password',
    tag,
    ...session,
    body: createUserBody,
    response: { status: 200, schema: userAnswer },
  },
  {
    method: 'get',
    path: `${base}/get-user`,
    operationId: 'admin:getUser',
    summary: 'One user',
    tag,
    ...session,
    query: idQuery,
    response: { status: 200, schema: userWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/update-user`,
    operationId: 'admin:updateUser',
    summary: "Changes a user's name, email, image, verification or role",
    tag,
    ...session,
    body: updateUserBody,
    response: { status: 200, schema: userWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/set-role`,
    operationId: 'admin:setRole',
    summary: "Sets a user's admin roles",
    tag,
    ...session,
    body: setRoleBody,
    response: { status: 200, schema: userAnswer },
    errors: [404],
  },
  {
    method: 'get',
    path: `${base}/list-users`,
    operationId: 'admin:listUsers',
    summary: 'Users, searched, filtered, sorted and paged',
    tag,
    ...session,
    query: listUsersQuery,
    response: {
      status: 200,
      schema: z.strictObject({
        users: z.array(userWireSchema),
        total: z.int(),
        limit: z.int().optional(),
        offset: z.int().optional(),
      }),
    },
  },
  {
    method: 'post',
    path: `${base}/remove-user`,
    operationId: 'admin:removeUser',
    summary: 'Deletes a user',
    tag,
    ...session,
    body: userIdBody,
    response: { status: 200, schema: successWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/set-user-password`,
    operationId: 'admin:setUserPassword',
    summary: "Sets a user's password",
    tag,
    ...session,
    body: setUserPasswordBody,
    response: { status: 200, schema: statusWireSchema },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/ban-user`,
    operationId: 'admin:banUser',
    summary: 'Bans a user (for a while, or for good) and ends their sessions',
    tag,
    ...session,
    body: banUserBody,
    response: { status: 200, schema: userAnswer },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/unban-user`,
    operationId: 'admin:unbanUser',
    summary: 'Lifts a ban',
    tag,
    ...session,
    body: userIdBody,
    response: { status: 200, schema: userAnswer },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/impersonate-user`,
    operationId: 'admin:impersonateUser',
    summary: "Swaps the browser's session for one of the user's, keeping the admin's aside",
    tag,
    ...session,
    body: userIdBody,
    response: { status: 200, schema: sessionAnswer },
    errors: [404],
  },
  {
    method: 'post',
    path: `${base}/stop-impersonating`,
    operationId: 'admin:stopImpersonating',
    summary: "Ends an impersonation and restores the admin's own session",
    tag,
    ...session,
    response: { status: 200, schema: sessionAnswer },
  },
  {
    method: 'post',
    path: `${base}/list-user-sessions`,
    operationId: 'admin:listUserSessions',
    summary: "A user's sessions",
    tag,
    ...session,
    body: userIdBody,
    response: { status: 200, schema: z.strictObject({ sessions: z.array(sessionWireSchema) }) },
  },
  {
    method: 'post',
    path: `${base}/revoke-user-session`,
    operationId: 'admin:revokeUserSession',
    summary: 'Ends one session of any user',
    tag,
    ...session,
    body: revokeUserSessionBody,
    response: { status: 200, schema: successWireSchema },
  },
  {
    method: 'post',
    path: `${base}/revoke-user-sessions`,
    operationId: 'admin:revokeUserSessions',
    summary: "Ends all of a user's sessions",
    tag,
    ...session,
    body: userIdBody,
    response: { status: 200, schema: successWireSchema },
  },
  {
    method: 'post',
    path: `${base}/has-permission`,
    operationId: 'admin:hasPermission',
    summary: "Whether the caller's admin roles grant a set of actions",
    tag,
    ...session,
    body: hasPermissionBody,
    response: { status: 200, schema: permissionCheckWireSchema },
  },
];
