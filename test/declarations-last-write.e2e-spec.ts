/**
 * A revision with nothing else to write goes to PostgreSQL with its COMMIT, as `EXECUTE` of the plan its
 * connection prepared, its values written as quoted literals (PreparedStatements.executeThen). What a
 * client wrote must come back exactly, whatever the characters, and nothing may be stored twice.
 */
import type pg from 'pg';
import request from 'supertest';
import { actorColumns } from '../src/audit/audit-trail.js';
import { PreparedStatements } from '../src/database/prepared-statements.js';
import type { ValidLine } from '../src/declarations/declaration-validator.js';
import type { DeclarationRecord } from '../src/declarations/declaration.js';
import { DeclarationsRepository, type NewDeclaration } from '../src/declarations/declarations.repository.js';
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

describe('the last write of a declaration, sent with its COMMIT', () => {
  it('answers every value as PostgreSQL would read it as a parameter (strings, arrays, numbers, nulls)', async () => {
    const statements = t.app.get(PreparedStatements);
    const statement = { name: 'test.literals', text: 'SELECT $1::text AS s, $2::text[] AS a, $3::numeric AS n, $4::text AS z' };
    const values = [AWKWARD.join('|'), [...AWKWARD, null], 1200.125, null];
    const connection = (await t.pool.connect()) as pg.PoolClient;
    try {
      // Not prepared on this connection yet: nothing is sent, the caller writes the ordinary way.
      expect(await statements.executeThen(connection, statement, values, 'SELECT 1')).toBeUndefined();
      const prepared = await connection.query({ ...(statements.oneSession ? {} : { name: statement.name }), ...statement, values });
      const executed = await statements.executeThen(connection, statement, values, 'SELECT 1');
      if (statements.oneSession) {
        // The embedded database serves every connection from one session: statements stay unnamed there.
        expect(executed).toBeUndefined();
      } else {
        expect(executed).toEqual(prepared.rows);
        expect(executed).toEqual([{ s: AWKWARD.join('|'), a: [...AWKWARD, null], n: '1200.125', z: null }]);
      }
    } finally {
      connection.release();
    }
  });

  it('stores awkward material names exactly, one revision per POST, on connections that have prepared the insert', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EPRO'] });
    const period = '2026-S2';
    // Professional packaging is declared in kg only. One after another: the pool hands back the connection
    // just released, which prepared the insert on the first POST; each later revision supersedes the one before.
    for (let i = 0; i < 5; i++) {
      const lines = AWKWARD.filter((m) => m.trim() !== '').map((material, j) => ({
        stream: 'EPRO',
        material,
        unit: 'kg',
        quantity: Number(`${i + 1}${j}.125`),
      }));
      const res = await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`).send({ period, lines });
      expect([res.status, res.body.revision, res.body.errors]).toEqual([201, i + 1, undefined]);
      const stored = await request(t.url).get(`/api/v1/declarations/${res.body.id}`).set('authorization', `Bearer ${token}`);
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
    let previous: DeclarationRecord | undefined;
    for (const [revision, last] of [
      [1, true],
      [2, false],
    ] as const) {
      const record = await repository.withPeriodLock(scope, period, (manager, current, lastly) => {
        // The revision in force, as the lock's holder reads it: the record read back, fields in the same order.
        expect(current).toEqual(previous);
        expect(current && Object.keys(current)).toEqual(previous && Object.keys(previous));
        const declaration: NewDeclaration = {
          ...scope,
          period,
          revision,
          supersedes: current?.id ?? null,
          receipt: receiptFor(period, revision),
          contentHash: `hash ${revision}`,
          catalogueVersion: 1,
          submitter: { type: 'operator', name: 'ADMIN_TOKEN' },
          declaredByName: null,
          unitsSold: [],
        };
        // The insert sent with the COMMIT once the connection has prepared it, or the insert alone in the transaction.
        return last ? lastly.insertAndCommit(declaration, lines, audit) : repository.insert(manager, declaration, lines, audit);
      });
      const readBack = await repository.findRecord(scope, record.id);
      expect(record).toEqual(readBack);
      expect(Object.keys(record)).toEqual(Object.keys(readBack!));
      expect(record.lines.map((line) => line.quantity)).toEqual(['1200.500', '4800.000', '0.125', '0.000', '1000000000000.000', '7.000']);
      previous = readBack;
    }
    expect(await repository.currentRecord(scope, period)).toEqual(previous);
  });
});
