import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { addMember } from '../../accounts/organization/members.ts';
import { authSettings } from '../../accounts/settings.ts';
import { browserAuthClient } from '../../api/auth/testing.ts';
import type { TestApi } from '../testing.ts';

const uniqueTag = () => randomBytes(5).toString('hex');

/** The dashboard's origin: the API's public URL, trusted for cookie requests. */
export const dashboardOrigin = (api: TestApi) => new URL(api.config.api.publicUrl).origin;

/**
 * A person signed up through Better Auth's own client, as the dashboard would: their browser
 * keeps the session cookie and sends it, with the dashboard's Origin, on every `call`.
 */
export async function signedInPerson(api: TestApi) {
  const browser = browserAuthClient(api.url, dashboardOrigin(api));
  const email = `person-${uniqueTag()}@example.com`;
  const { data, error } = await browser.client.signUp.email({
    email,
    password: 'correct horse battery',
    name: 'Person',
  });
  assert.equal(error, null);
  assert.ok(data);

  /** A /v1 call from the dashboard: the status and the parsed JSON body. */
  async function call(method: string, path: string, body?: unknown) {
    const response = await browser.fetch(`${api.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the wire carried
    return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
  }

  return { ...browser, userId: data.user.id, email, call };
}
export type SignedInPerson = Awaited<ReturnType<typeof signedInPerson>>;

/** A person who created an organization through Better Auth: its owner, with it active. */
export async function signedInOwner(api: TestApi) {
  const person = await signedInPerson(api);
  const { data, error } = await person.client.organization.create({
    name: 'Acme',
    slug: `acme-${uniqueTag()}`,
  });
  assert.equal(error, null);
  assert.ok(data);
  return { ...person, organizationId: data.id };
}

/** A person who joined `organizationId` with `role` and made it their active organization. */
export async function signedInMember(api: TestApi, organizationId: string, role: string) {
  const person = await signedInPerson(api);
  await addMember(api.orm.em.fork(), authSettings(api.config), {
    userId: person.userId,
    organizationId,
    role,
  });
  const { error } = await person.client.organization.setActive({ organizationId });
  assert.equal(error, null);
  return { ...person, organizationId };
}
