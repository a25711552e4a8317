/**
 * A revision with nothing else to write is filed by one statement under the period's lock, sent with the
 * transaction's start and its COMMIT as one query (DeclarationsRepository.file, PreparedStatements.executeWithin):
 * the statement compares it with the revision in force by their stored identities and numbers the new
 * revision itself. What a client wrote must come back exactly, whatever the characters, nothing may be
 * stored twice, and revisions filed before identities were stored are still compared by their lines.
 */
import type pg from 'pg';
import request from 'supertest';
import { actorColumns } from '../src/audit/audit-trail.js';
import { PreparedStatements } from '../src/database/prepared-statements.js';
import { declarationIdentity, type ValidLine } from '../src/declarations/declaration-validator.js';
import type { DeclarationRecord } from '../src/declarations/declaration.js';
import { DeclarationsRepository, type NewContent } from '../src/declarations/declarations.repository.js';
import { receiptFor } from '../src/declarations/receipt.js';
import { createClientWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 180_000);
afterAll(async () => {
  await t?.close();
});

/** Texts that a literal written carelessly would break: quotes, backslashes, array syntax, NULL, non-ASCII. */
const AWKWARD = [`O'Brien's "tray"`, 'back\\slash \\\\ end\\', '{a,b}, "c"', 'NULL', 'Étui — 1½ €', ' ', "'; DROP TABLE declarations; --"];

const PATH = '/api/v1/declarations';
/** A material of household packaging: its weight and the units whose packaging contains it, one line each. */
const emb = (material: string, kg: number, uvc = 1000) => [
  { stream: 'EMB', material, unit: 'kg', quantity: kg },
  { stream: 'EMB', material, unit: 'uvc', quantity: uvc },
];
const post = (token: string, body: object, key?: string) => {
  const req = request(t.url).post(PATH).set('authorization', `Bearer ${token}`);
  if (key) req.set('idempotency-key', key);
  return req.send(body);
};

describe('a declaration filed by one statement', () => {
  it('executes a prepared statement between others, every value as PostgreSQL would read it as a parameter (strings, arrays, numbers, nulls)', async () => {
    const statements = t.app.get(PreparedStatements);
    const statement = { name: 'test.literals', text: 'SELECT $1::text AS s, $2::text[] AS a, $3::numeric AS n, $4::text AS z' };
    const values = [AWKWARD.join('|'), [...AWKWARD, null], 1200.125, null];
    const around = { before: ['SELECT 1 AS before'], after: ['SELECT 2 AS after'] };
    const connection = (await t.pool.connect()) as pg.PoolClient;
    try {
      // Not prepared on this connection yet: nothing is sent, the caller writes the ordinary way.
      expect(await statements.executeWithin(connection, statement, values, around)).toBeUndefined();
      const prepared = await connection.query({ ...(statements.oneSession ? {} : { name: statement.name }), ...statement, values });
      const executed = await statements.executeWithin(connection, statement, values, around);
      const alone = await statements.executeWithin(connection, statement, values, { before: [], after: [] });
      if (statements.oneSession) {
        // The embedded database serves every connection from one session: statements stay unnamed there.
        expect([executed, alone]).toEqual([undefined, undefined]);
      } else {
        expect(executed).toEqual(prepared.rows);
        expect(alone).toEqual(prepared.rows);
        expect(executed).toEqual([{ s: AWKWARD.join('|'), a: [...AWKWARD, null], n: '1200.125', z: null }]);
      }
    } finally {
      connection.release();
    }
  });

  it('stores awkward material names exactly, one revision per POST, on connections that have prepared the statement', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EPRO'] });
    const period = '2026-S2';
    // Professional packaging is declared in kg only. One after another: the pool hands back the connection
    // just released, which prepared the statement on the first POST; each later revision supersedes the one before.
    for (let i = 0; i < 5; i++) {
      const lines = AWKWARD.filter((m) => m.trim() !== '').map((material, j) => ({
        stream: 'EPRO',
        material,
        unit: 'kg',
        quantity: Number(`${i + 1}${j}.125`),
      }));
      const res = await post(token, { period, lines });
      expect([res.status, res.body.revision, res.body.errors]).toEqual([201, i + 1, undefined]);
      expect(res.body.receipt).toMatch(new RegExp(`^EPR-2026S2-R${i + 1}-[0-9A-Z]{8}$`));
      const stored = await request(t.url).get(`${PATH}/${res.body.id}`).set('authorization', `Bearer ${token}`);
      expect(stored.status).toBe(200);
      expect(stored.body.lines.map((l: { material: string; quantity: number }) => [l.material, l.quantity])).toEqual(
        lines.map((l) => [l.material, l.quantity]),
      );
    }
    const rows = await t.pool.query(`SELECT revision, status FROM declarations WHERE client_id = $1 ORDER BY revision`, [clientId]);
    expect(rows.rows).toEqual([1, 2, 3, 4, 5].map((revision) => ({ revision, status: revision === 5 ? 'current' : 'superseded' })));
  });

  it('answers the record of a new revision, and the revision in force, as the database reads them back, lines and totals alike, by either way of writing it', async () => {
    const { clientId } = await createClientWithToken(t, { streams: ['EMB'] });
    const repository = t.app.get(DeclarationsRepository);
    const scope = { clientId, mode: 'live' as const };
    const period = '2025-S1';
    const lines: ValidLine[] = [
      { stream: 'EMB', material: 'Verre', materialCode: 'glass', unit: 'kg', quantity: '1200.5' },
      { stream: 'EMB', material: 'Verre', materialCode: 'glass', unit: 'uvc', quantity: '4800' },
      { stream: 'EMB', material: AWKWARD[0]!, materialCode: null, unit: 'kg', quantity: '0.125' },
      { stream: 'EMB', material: AWKWARD[0]!, materialCode: null, unit: 'uvc', quantity: '0' },
      { stream: 'EMB', material: AWKWARD[1]!, materialCode: null, unit: 'kg', quantity: '1000000000000' },
      { stream: 'EMB', material: AWKWARD[1]!, materialCode: null, unit: 'uvc', quantity: '7' },
    ];
    const audit = { ...actorColumns({ operator: { kind: 'admin' }, requestId: null }), requestId: null };
    const content = (revision: number): NewContent => ({
      ...scope,
      period,
      contentHash: `hash ${revision}`,
      identityHash: declarationIdentity(lines.slice(0, revision + 3)),
      catalogueVersion: 1,
      submitter: { type: 'operator', name: 'ADMIN_TOKEN' },
      declaredByName: null,
      unitsSold: [],
    });

    // Revision 1 by the statement that numbers it, 2 under the lock as a caller with more to write does, 3 by the statement again.
    let previous: DeclarationRecord | undefined;
    for (const revision of [1, 2, 3]) {
      const written = lines.slice(0, revision + 3);
      let record: DeclarationRecord;
      if (revision === 2) {
        record = await repository.withPeriodLock(scope, period, (manager, current) => {
          // The revision in force, as the lock's holder reads it: the record read back, fields in the same order.
          expect(current).toEqual(previous);
          expect(current && Object.keys(current)).toEqual(previous && Object.keys(previous));
          const place = { revision, supersedes: current!.id, receipt: receiptFor(period, revision) };
          return repository.insert(manager, { ...content(revision), ...place }, written, audit);
        });
      } else {
        const filed = await repository.file(content(revision), written, audit);
        expect(filed?.stored).toBe(true);
        record = filed!.record;
      }
      const readBack = await repository.findRecord(scope, record.id);
      expect(record).toEqual(readBack);
      expect(Object.keys(record)).toEqual(Object.keys(readBack!));
      expect([record.revision, record.supersedes]).toEqual([revision, previous?.id ?? null]);
      expect(record.receipt).toMatch(new RegExp(`^EPR-2025S1-R${revision}-[0-9A-Z]{8}$`));
      previous = readBack;
    }
    expect(previous!.lines.map((line) => line.quantity)).toEqual(['1200.500', '4800.000', '0.125', '0.000', '1000000000000.000', '7.000']);
    expect(await repository.withPeriodLock(scope, period, async (_, current) => current)).toEqual(previous);

    // The same figures again: nothing is written, the answer is the revision in force as read back.
    const again = await repository.file({ ...content(3), contentHash: 'another hash' }, lines, audit);
    expect(again).toEqual({ stored: false, record: previous });
    const { rows } = await t.pool.query(`SELECT revision, identity_hash FROM declarations WHERE client_id = $1 ORDER BY revision`, [
      clientId,
    ]);
    expect(rows).toEqual([1, 2, 3].map((revision) => ({ revision, identity_hash: declarationIdentity(lines.slice(0, revision + 3)) })));
  });

  it('stores with each revision the identity of its figures as read back, and refuses what is not one', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    const lines = [...emb('Papier-carton', 12.5), ...emb('Mousse « maison »', 3)];
    const res = await post(token, { period: '2025-S2', lines });
    expect(res.status).toBe(201);
    const stored = await t.app.get(DeclarationsRepository).findRecord({ clientId, mode: 'live' }, res.body.id);
    const { rows } = await t.pool.query(`SELECT identity_hash FROM declarations WHERE client_id = $1`, [clientId]);
    expect(rows).toEqual([{ identity_hash: declarationIdentity(stored!.lines, stored!.unitsSold) }]);
    await expect(t.pool.query(`UPDATE declarations SET identity_hash = 'not a hash' WHERE client_id = $1`, [clientId])).rejects.toThrow(
      /ck_declarations_identity_hash/,
    );
  });

  it('compares a revision filed before identities were stored by its lines: the same figures are no new revision, others are the next', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    const period = '2025-S1';
    const first = await post(token, { period, lines: emb('paper_cardboard', 10) });
    expect(first.status).toBe(201);
    // As a revision filed before the column existed holds it.
    await t.pool.query(`UPDATE declarations SET identity_hash = NULL WHERE client_id = $1`, [clientId]);

    // The same figures, the material by its French name: the revision in force, nothing written.
    const same = await post(token, { period, lines: emb('Papier-carton', 10.0) });
    expect([same.status, same.body.id, same.body.revision]).toEqual([200, first.body.id, 1]);
    const changed = await post(token, { period, lines: emb('Papier-carton', 11) });
    expect([changed.status, changed.body.revision, changed.body.supersedes]).toEqual([201, 2, first.body.id]);
    const { rows } = await t.pool.query(
      `SELECT revision, status, identity_hash IS NOT NULL AS identified FROM declarations WHERE client_id = $1 ORDER BY revision`,
      [clientId],
    );
    expect(rows).toEqual([
      { revision: 1, status: 'superseded', identified: false },
      { revision: 2, status: 'current', identified: true },
    ]);
    // From then on the statement compares by the stored identity: the same figures again are revision 2.
    const again = await post(token, { period, lines: emb('paper_cardboard', 11) });
    expect([again.status, again.body.id]).toEqual([200, changed.body.id]);
  });

  it('numbers revisions one after another when filings alone and filings with an Idempotency-Key (under the lock) meet on one period', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    const period = '2026-S1';
    const body = (i: number) => ({ period, lines: emb('Verre', i + 1) });
    const responses = await Promise.all(Array.from({ length: 16 }, (_, i) => post(token, body(i), i % 2 === 0 ? `key-${i}` : undefined)));
    expect(responses.map((r) => r.status)).toEqual(Array(16).fill(201));
    const { rows } = await t.pool.query(
      `SELECT id, revision, status, supersedes FROM declarations WHERE client_id = $1 AND period = $2 ORDER BY revision`,
      [clientId, period],
    );
    expect(rows.map((r) => r.revision)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(rows.filter((r) => r.status === 'current')).toHaveLength(1);
    rows.forEach((row, i) => expect(row.supersedes).toBe(i === 0 ? null : rows[i - 1].id));
  });
});
