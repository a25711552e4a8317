import request from 'supertest';
import type { Profile } from '../../src/accounts/profile.js';
import { ADMIN_TOKEN, type TestApp } from './test-app.js';

export type ClientProfileInput = Profile & { client_id: string };

let sequence = 0;

/** A complete, valid profile (plan `business` covers `EMB`). */
export function defaultProfile(): Omit<ClientProfileInput, 'client_id'> {
  sequence += 1;
  return {
    email: `compliance+${sequence}@example.fr`,
    company: `Exemple ${sequence} SAS`,
    country: 'FR',
    plan: 'business',
    streams: ['EMB'],
    idus: ['FR000000_01ABCD'],
  };
}

function expectStatus(res: request.Response, status: number, what: string): void {
  if (res.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
}

/** Creates a client through the admin API (and confirms its profile unless `confirm: false`). */
export async function createClient(
  t: TestApp,
  profile: Partial<ClientProfileInput> = {},
  options: { confirm?: boolean } = {},
): Promise<{ clientId: string }> {
  const created = await request(t.url)
    .post('/api/v1/admin/clients')
    .set('authorization', `Bearer ${ADMIN_TOKEN}`)
    .send({ ...defaultProfile(), ...profile });
  expectStatus(created, 201, 'create client');
  const clientId = created.body.client_id as string;
  if (options.confirm ?? true) {
    const confirmed = await request(t.url)
      .post(`/api/v1/admin/clients/${encodeURIComponent(clientId)}/confirm`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({});
    expectStatus(confirmed, 200, 'confirm client');
  }
  return { clientId };
}

/** Issues a token to the client through the admin API. */
export async function issueToken(
  t: TestApp,
  clientId: string,
  body: { name?: string; expires_at?: string } = {},
): Promise<{ token: string; id: string }> {
  const res = await request(t.url)
    .post(`/api/v1/admin/clients/${encodeURIComponent(clientId)}/tokens`)
    .set('authorization', `Bearer ${ADMIN_TOKEN}`)
    .send(body);
  expectStatus(res, 201, 'issue token');
  return { token: res.body.token as string, id: res.body.id as string };
}

/** A confirmed client and a token for it. */
export async function createClientWithToken(
  t: TestApp,
  profile: Partial<ClientProfileInput> = {},
): Promise<{ clientId: string; token: string; tokenId: string }> {
  const { clientId } = await createClient(t, profile);
  const { token, id } = await issueToken(t, clientId);
  return { clientId, token, tokenId: id };
}
