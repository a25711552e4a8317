import type { DataSource, EntityManager } from 'typeorm';
import { inProcessDatabase } from '../../test/support/in-process-database.js';
import type { ProcessPresence } from '../database/process-presence.js';
import { type Claim, IdempotencyStore } from './idempotency-store.js';

// The store's rules are its SQL statements: they run here on PostgreSQL in this process (PGlite,
// the real migrations); test/declarations.e2e-spec.ts (`Idempotency-Key`) covers them through HTTP on the server.
// A claim's owner is a process's advisory lock key (ProcessPresence): here the one session holds and frees them.

/** A process's presence: none (`undefined`, claims without an owner), or a lock key this session holds until `die`. */
async function presence(key?: string) {
  if (key !== undefined) await database.db.query('SELECT pg_advisory_lock($1)', [key]);
  return {
    presence: { key } as ProcessPresence,
    die: () => database.db.query('SELECT pg_advisory_unlock($1)', [key]),
  };
}

type Database = Awaited<ReturnType<typeof inProcessDatabase>>;
let database: Database;
let store: IdempotencyStore;

beforeAll(async () => {
  database = await inProcessDatabase();
  await database.db.exec(`INSERT INTO clients (client_id) VALUES ('acme'), ('other')`);
});
afterAll(() => database.close());
beforeEach(async () => {
  await database.db.exec('DELETE FROM idempotency_keys');
  store = new IdempotencyStore(database.dataSource, (await presence()).presence);
});

async function rows() {
  const result = await database.db.query<{
    client_id: string;
    key: string;
    state: string;
    request_hash: string;
    status: number | null;
    body: unknown;
    ttl: number;
  }>(
    `SELECT client_id, key, state, request_hash, response_status AS status, response_body AS body,
            EXTRACT(EPOCH FROM expires_at - created_at)::integer AS ttl
       FROM idempotency_keys ORDER BY client_id, key`,
  );
  return result.rows;
}

/** Moves a key's clock: its claim made `age` ago, its expiry `expiresIn` from now (SQL intervals). */
async function age(key: string, { claimedAgo, expiresIn }: { claimedAgo: string; expiresIn?: string }) {
  await database.db.query(
    `UPDATE idempotency_keys SET created_at = clock_timestamp() - $2::interval,
            expires_at = clock_timestamp() + COALESCE($3::interval, interval '24 hours' - $2::interval)
      WHERE key = $1`,
    [key, claimedAgo, expiresIn ?? null],
  );
}

async function completed(claim: Claim, status: number, body: unknown): Promise<boolean> {
  return database.db.transaction((tx) => store.complete(database.managerOf(tx), claim, status, body));
}

describe('IdempotencyStore (PostgreSQL in process)', () => {
  it('claims a new key for 24 hours, with the claim time in UTC microseconds', async () => {
    const outcome = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    expect(outcome).toEqual({
      kind: 'claimed',
      claim: { clientId: 'acme', mode: 'live', key: 'k1', claimedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) },
    });
    expect(await rows()).toEqual([
      { client_id: 'acme', key: 'k1', state: 'in_flight', request_hash: 'hash-1', status: null, body: null, ttl: 86_400 },
    ]);
    const [row] = (
      await database.db.query<{ t: string }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t FROM idempotency_keys`,
      )
    ).rows;
    expect(outcome.kind === 'claimed' && outcome.claim.claimedAt).toBe(row!.t);
  });

  it('answers in_flight to the same request while the first is running, and reused to another body', async () => {
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'in_flight' });
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2')).toEqual({ kind: 'reused' });
    expect(await rows()).toEqual([expect.objectContaining({ request_hash: 'hash-1', state: 'in_flight' })]);
  });

  it('keeps keys per client and mode: a sandbox request never meets a live key', async () => {
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    expect(await store.claim({ clientId: 'acme', mode: 'test' }, 'k1', 'hash-2')).toMatchObject({
      kind: 'claimed',
      claim: { mode: 'test' },
    });
    expect(await store.claim({ clientId: 'acme', mode: 'test' }, 'k1', 'hash-2')).toEqual({ kind: 'in_flight' });
    expect((await rows()).map((r) => [r.client_id, r.request_hash])).toEqual([
      ['acme', 'hash-1'],
      ['acme', 'hash-2'],
    ]);
  });

  it('keeps keys per client', async () => {
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    expect(await store.claim({ clientId: 'other', mode: 'live' }, 'k1', 'hash-2')).toMatchObject({ kind: 'claimed' });
    expect((await rows()).map((r) => [r.client_id, r.request_hash])).toEqual([
      ['acme', 'hash-1'],
      ['other', 'hash-2'],
    ]);
  });

  it('replays a completed request: its status and body', async () => {
    const outcome = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (outcome.kind !== 'claimed') throw new Error(outcome.kind);
    const body = { id: 'd-1', lines: [{ quantity: '1.5' }] };
    expect(await completed(outcome.claim, 200, body)).toBe(true);
    expect(await rows()).toEqual([expect.objectContaining({ state: 'completed', status: 200, body })]);
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'replay', status: 200, body });
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2')).toEqual({ kind: 'reused' });
  });

  it('completes only its own claim: not after a takeover, not twice, not a released one', async () => {
    const first = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (first.kind !== 'claimed') throw new Error(first.kind);
    await age('k1', { claimedAgo: '61 seconds' });
    const second = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (second.kind !== 'claimed') throw new Error(second.kind);
    expect(second.claim.claimedAt).not.toBe(first.claim.claimedAt);
    expect(await completed(first.claim, 201, { n: 1 })).toBe(false);
    expect(await rows()).toEqual([expect.objectContaining({ state: 'in_flight' })]);
    expect(await completed(second.claim, 201, { n: 2 })).toBe(true);
    expect(await completed(second.claim, 201, { n: 3 })).toBe(false);
    expect(await rows()).toEqual([expect.objectContaining({ state: 'completed', body: { n: 2 } })]);
    await store.release(second.claim); // a completed key is not released
    expect(await rows()).toHaveLength(1);
  });

  it('takes over a claim whose request died (older than 60 seconds), not a younger one', async () => {
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    await age('k1', { claimedAgo: '50 seconds' });
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2')).toEqual({ kind: 'reused' });
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'in_flight' });
    await age('k1', { claimedAgo: '61 seconds' });
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2')).toMatchObject({ kind: 'claimed' });
    expect(await rows()).toEqual([expect.objectContaining({ request_hash: 'hash-2', state: 'in_flight', ttl: 86_400 })]);
  });

  it('takes over at once a claim whose process is gone (its lock free), never one whose process lives', async () => {
    const first = await presence('1001');
    const second = await presence('1002');
    const mine = new IdempotencyStore(database.dataSource, first.presence);
    const theirs = new IdempotencyStore(database.dataSource, second.presence);
    const claimed = await mine.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (claimed.kind !== 'claimed') throw new Error(claimed.kind);
    expect((await database.db.query(`SELECT owner::text FROM idempotency_keys`)).rows).toEqual([{ owner: '1001' }]);
    await age('k1', { claimedAgo: '50 seconds' });
    expect(await theirs.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'in_flight' });
    expect(await theirs.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2')).toEqual({ kind: 'reused' });
    await first.die();
    expect(await theirs.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toMatchObject({ kind: 'claimed' });
    expect((await database.db.query(`SELECT owner::text, state FROM idempotency_keys`)).rows).toEqual([
      { owner: '1002', state: 'in_flight' },
    ]);
    // Had the first process lived on (its lock lost, not its life), its answer is refused: one key, one declaration.
    expect(await completed(claimed.claim, 201, { n: 1 })).toBe(false);
    await second.die();
  });

  it('a claim without an owner (a process that held no lock) is taken over only once stale', async () => {
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    const other = await presence('1003');
    const theirs = new IdempotencyStore(database.dataSource, other.presence);
    expect(await theirs.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'in_flight' });
    await age('k1', { claimedAgo: '61 seconds' });
    expect(await theirs.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toMatchObject({ kind: 'claimed' });
    await other.die();
  });

  it('a completed key is replayed even when its process is gone', async () => {
    const gone = await presence('1004');
    const mine = new IdempotencyStore(database.dataSource, gone.presence);
    const outcome = await mine.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (outcome.kind !== 'claimed') throw new Error(outcome.kind);
    await completed(outcome.claim, 201, { n: 1 });
    await gone.die();
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'replay', status: 201, body: { n: 1 } });
  });

  it('never takes over a completed key before it expires, however old', async () => {
    const outcome = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (outcome.kind !== 'claimed') throw new Error(outcome.kind);
    await completed(outcome.claim, 201, { n: 1 });
    await age('k1', { claimedAgo: '23 hours' });
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'replay', status: 201, body: { n: 1 } });
  });

  it('forgets a key at its expiry: a new request with it is processed', async () => {
    const outcome = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (outcome.kind !== 'claimed') throw new Error(outcome.kind);
    await completed(outcome.claim, 201, { n: 1 });
    await age('k1', { claimedAgo: '2 seconds', expiresIn: '-1 second' });
    // Swept first (it has expired), then claimed again as new.
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2')).toMatchObject({ kind: 'claimed' });
    expect(await rows()).toEqual([expect.objectContaining({ request_hash: 'hash-2', state: 'in_flight', status: null, body: null })]);
  });

  it('releases a failed claim so that a retry with the same key is processed', async () => {
    const outcome = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (outcome.kind !== 'claimed') throw new Error(outcome.kind);
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k2', 'hash-1');
    await store.release(outcome.claim);
    expect((await rows()).map((r) => r.key)).toEqual(['k2']);
    expect(await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2')).toMatchObject({ kind: 'claimed' });
  });

  it('does not release a claim taken over by another request', async () => {
    const first = await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    if (first.kind !== 'claimed') throw new Error(first.kind);
    await age('k1', { claimedAgo: '61 seconds' });
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-2');
    await store.release(first.claim);
    expect(await rows()).toEqual([expect.objectContaining({ request_hash: 'hash-2' })]);
    await store.release({ ...first.claim, clientId: 'other' });
    await store.release({ ...first.claim, key: 'k2' });
    expect(await rows()).toHaveLength(1);
  });

  it('sweeps expired keys of every client, at most 100 per claim, and never a live one', async () => {
    await database.db.exec(`
      INSERT INTO idempotency_keys (client_id, key, request_hash, state, created_at, expires_at)
      SELECT 'other', 'old-' || n, 'h', 'in_flight', now() - interval '2 days', now() - interval '1 day' - n * interval '1 second'
        FROM generate_series(1, 101) AS n;
      INSERT INTO idempotency_keys (client_id, key, request_hash, state, created_at, expires_at)
      VALUES ('other', 'live', 'h', 'in_flight', now(), now() + interval '1 hour')`);
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1');
    // The oldest expiry first: the one left is the one that expired last.
    expect((await rows()).map((r) => r.key)).toEqual(['k1', 'live', 'old-1']);
    await store.claim({ clientId: 'acme', mode: 'live' }, 'k2', 'hash-1');
    expect((await rows()).map((r) => r.key)).toEqual(['k1', 'k2', 'live']);
  });
});

describe('IdempotencyStore.claim, when the row that kept its key out is not in its snapshot', () => {
  /**
   * A data source on which the claim's statement meets, `times` times, a row committed after its
   * snapshot was taken: no claim, and no row read (what PostgreSQL answers then).
   */
  function racing(times: number) {
    let inserts = 0;
    const dataSource = {
      query: async (sql: string, params?: unknown[]) => {
        if (sql.includes('INSERT INTO idempotency_keys') && ++inserts <= times) return [];
        return database.dataSource.query(sql, params);
      },
    } as unknown as DataSource;
    return { store: new IdempotencyStore(dataSource, { key: undefined } as ProcessPresence), inserts: () => inserts };
  }

  it('tries again and claims it', async () => {
    const { store: racy, inserts } = racing(2);
    expect(await racy.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toMatchObject({ kind: 'claimed' });
    expect(inserts()).toBe(3);
  });

  it('gives up after three attempts, answering in_flight', async () => {
    const { store: racy, inserts } = racing(Infinity);
    expect(await racy.claim({ clientId: 'acme', mode: 'live' }, 'k1', 'hash-1')).toEqual({ kind: 'in_flight' });
    expect(inserts()).toBe(3);
  });
});

describe('IdempotencyStore.complete', () => {
  // TypeORM answers UPDATE … RETURNING with [rows, affected] on PostgreSQL; other drivers with the rows.
  it.each([
    ['[rows, affected] with one row', [[{ '?column?': 1 }], 1], true],
    ['[rows, affected] with none', [[], 0], false],
    ['rows: one', [{ '?column?': 1 }], true],
    ['rows: none', [], false],
  ])('reads the answer %s', async (_label, answer, expected) => {
    const manager = { query: async () => answer } as unknown as EntityManager;
    const claim = { clientId: 'acme', mode: 'live' as const, key: 'k', claimedAt: '2026-01-01T00:00:00.000000Z' };
    expect(await new IdempotencyStore({} as DataSource, {} as ProcessPresence).complete(manager, claim, 201, {})).toBe(expected);
  });
});
