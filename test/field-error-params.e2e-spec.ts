/**
 * `FieldError.params` (what a message in a person's language needs) stays in the process: the
 * API's 422 answers keep `pointer`, `code`, `detail` and `row`, as documented, and nothing else.
 */
import { jest } from '@jest/globals';
import request from 'supertest';
import { Clock } from '../src/calendar/clock.js';
import { createClientWithToken } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date('2026-03-15T10:00:00Z'));
  ({ token } = await createClientWithToken(t, { streams: ['EMB'] }));
});
afterAll(async () => {
  await t?.close();
});

const DOCUMENTED = ['code', 'detail', 'pointer', 'row'];

function expectDocumentedErrors(res: request.Response, codes: string[]) {
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(codes);
  for (const error of res.body.errors as Record<string, unknown>[]) {
    expect(Object.keys(error).filter((key) => !DOCUMENTED.includes(key))).toEqual([]);
  }
}

describe('422 answers carry no params', () => {
  it('for a declaration in JSON', async () => {
    const res = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ period: '2027-S1', lines: [{ stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1.2345 }] }));
    expectDocumentedErrors(res, ['period_not_started', 'quantity_too_precise', 'companion_line_missing']);
  });

  it('for a declaration in CSV', async () => {
    const res = await request(t.url)
      .post('/api/v1/declarations?period=2025-S2')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/csv')
      .send(Buffer.from('flux;matériau;unité;quantité\nEMB;Verre;kg;12 kg\nEMB;Verre;uvc;1,5\n'));
    expectDocumentedErrors(res, ['number_has_unit', 'quantity_too_precise']);
    expect(res.body.errors.map((e: { row: number }) => e.row)).toEqual([2, 3]);
  });

  it('for a body the validation pipe refuses', async () => {
    const res = await request(t.url)
      .post('/api/v1/admin/clients')
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ company: ' ', email: 'not an address', colour: 'red' }));
    expectDocumentedErrors(res, ['unknown_field', 'invalid_email', 'not_blank']);
  });

  it('for a query the validation pipe refuses', async () => {
    const res = await request(t.url).get('/api/v1/declarations?limit=1000').set('authorization', `Bearer ${token}`);
    expectDocumentedErrors(res, ['limit_out_of_range']);
  });
});
