import type { EntityManager } from 'typeorm';
import { inProcessDatabase } from '../../../test/support/in-process-database.js';
import type { AccountsService, ConfirmingListener } from '../../accounts/accounts.service.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import { AuditRepository } from '../../audit/audit.repository.js';
import type { AppConfig } from '../../config/config.js';
import type { PreparedStatements, Statement } from '../../database/prepared-statements.js';
import { generateToken, hashToken, SESSION_PREFIX, SIGN_IN_LINK_PREFIX } from '../../common/token-format.js';
import type { Actor } from '../../caller/actor.js';
import { SignInLinksRepository } from '../sign-in-links/sign-in-links.repository.js';
import { SESSION_IDLE_MS } from './session-cookie.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

// The session rules are SQL statements: they run here on PostgreSQL in this process (PGlite, the
// real migrations); test/dashboard/*.e2e-spec.ts cover them through HTTP on the server.

type Database = Awaited<ReturnType<typeof inProcessDatabase>>;
let database: Database;
let sessions: SessionsService;
let links: SignInLinksRepository;
const listeners: ConfirmingListener[] = [];
const operator: Actor = { operator: { kind: 'admin' }, requestId: 'req-1' };

beforeAll(async () => {
  database = await inProcessDatabase();
  await database.db.exec(
    `INSERT INTO clients (client_id, confirmed_at, confirmed_email, confirmed_company, confirmed_country, confirmed_plan, confirmed_streams, confirmed_idus)
     VALUES ('acme', now(), 'a@acme.fr', 'Acme', 'FR', 'business', '{EMB}', '{X}'), ('other', NULL, NULL, NULL, NULL, NULL, '{}', '{}')`,
  );
  const statements = {
    query: (statement: Statement, values: unknown[]) => database.dataSource.query(statement.text, values),
  } as unknown as PreparedStatements;
  const accounts = {
    onConfirming: (listener: ConfirmingListener) => listeners.push(listener),
    onStatusChanging: () => {},
  } as unknown as AccountsService;
  links = new SignInLinksRepository(database.dataSource, statements);
  sessions = new SessionsService(
    new SessionsRepository(statements, database.dataSource),
    new AuditTrail(new AuditRepository(database.dataSource)),
    database.dataSource,
    { publicBaseUrl: 'https://epr.example.org' } as AppConfig,
    accounts,
  );
});
afterAll(() => database.close());
beforeEach(async () => {
  await database.db.exec('DELETE FROM dashboard_sessions; DELETE FROM sign_in_links');
});

/** A session started as a sign-in link starts one: the link spent and the session recorded in one statement. */
const started = async (clientId = 'acme') => {
  const link = generateToken(SIGN_IN_LINK_PREFIX);
  await database.db.query(
    `INSERT INTO sign_in_links (client_id, token_hash, issued_via, expires_at) VALUES ($1, $2, 'operator', now() + interval '1 hour')`,
    [clientId, hashToken(link)],
  );
  const secret = generateToken(SESSION_PREFIX);
  const session = await links.startSession(hashToken(link), hashToken(secret), 'req-start');
  // Spent, it is of no more interest here: the tests of links count their own.
  await database.db.query(`DELETE FROM sign_in_links WHERE token_hash = $1`, [hashToken(link)]);
  return { sessionId: session!.sessionId, secret };
};
const audit = async () =>
  (
    await database.db.query<Record<string, unknown>>(
      `SELECT actor_type, actor_name, action, target_type, target_id, client_id, changes, request_id FROM audit_events ORDER BY occurred_at DESC, id DESC LIMIT 1`,
    )
  ).rows[0];
const auditCount = async () => (await database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events')).rows[0]!.n;
/** Moves a session's clock: signed in and last seen that long ago (SQL intervals). */
const age = (id: string, seen: string, signedIn = seen) =>
  database.db.query(
    `UPDATE dashboard_sessions SET last_seen_at = now() - $2::interval, created_at = now() - $3::interval, expires_at = now() - $3::interval + interval '12 hours' WHERE id = $1`,
    [id, seen, signedIn],
  );
const mailedLink = (clientId: string, options: { via?: string; used?: boolean; expired?: boolean } = {}) =>
  database.db.query(
    `INSERT INTO sign_in_links (client_id, token_hash, issued_via, expires_at, used_at) VALUES ($1, md5(random()::text) || md5(random()::text), $2, now() + $3::interval, $4)`,
    [clientId, options.via ?? 'email', options.expired ? '-1 minute' : '10 minutes', options.used ? new Date() : null],
  );
const liveLinks = async (clientId: string) =>
  (
    await database.db.query<{ via: string }>(
      `SELECT issued_via AS via FROM sign_in_links WHERE client_id = $1 AND expires_at > now() ORDER BY issued_via`,
      [clientId],
    )
  ).rows.map((r) => r.via);

describe('SessionsService (PostgreSQL in process)', () => {
  it('start: a row holding the secret’s SHA-256 only, 12 hours at most, and session.started in the same statement', async () => {
    const { sessionId, secret } = await started();
    expect(secret).toMatch(/^eprs_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    const [row] = (
      await database.db.query<{ hash: string; life: number; ended: boolean }>(
        `SELECT session_hash AS hash, EXTRACT(EPOCH FROM expires_at - created_at)::int AS life, ended_at IS NOT NULL AS ended FROM dashboard_sessions WHERE id = $1`,
        [sessionId],
      )
    ).rows;
    expect(row).toEqual({ hash: hashToken(secret), life: 12 * 3600, ended: false });
    expect(await audit()).toEqual({
      actor_type: 'client',
      actor_name: 'dashboard',
      action: 'session.started',
      target_type: 'session',
      target_id: sessionId,
      client_id: 'acme',
      changes: {},
      request_id: 'req-start',
    });
  });

  it('resolve: the live session of a cookie with its account, and it is seen now (the idle timeout slides)', async () => {
    const { sessionId, secret } = await started();
    await age(sessionId, '29 minutes', '40 minutes');
    const session = await sessions.resolve(secret);
    expect(session).toEqual({
      sessionId,
      clientId: 'acme',
      suspended: false,
      account: expect.objectContaining({ clientId: 'acme', profile: expect.objectContaining({ email: 'a@acme.fr', company: 'Acme' }) }),
    });
    const [row] = (
      await database.db.query<{ idle: number }>(
        `SELECT EXTRACT(EPOCH FROM now() - last_seen_at)::int AS idle FROM dashboard_sessions WHERE id = $1`,
        [sessionId],
      )
    ).rows;
    expect(row!.idle).toBeLessThan(2);
  });

  it('resolve: a page view is a read — a session seen under a minute ago is not written again', async () => {
    const { sessionId, secret } = await started();
    await age(sessionId, '50 seconds', '1 hour');
    const before = (
      await database.db.query<{ seen: string }>(`SELECT last_seen_at::text AS seen FROM dashboard_sessions WHERE id = $1`, [sessionId])
    ).rows[0]!.seen;
    for (let i = 0; i < 3; i++) expect(await sessions.resolve(secret)).toMatchObject({ sessionId });
    const after = (
      await database.db.query<{ seen: string }>(`SELECT last_seen_at::text AS seen FROM dashboard_sessions WHERE id = $1`, [sessionId])
    ).rows[0]!.seen;
    expect(after).toBe(before);
    // Past the minute, the next view marks it seen, once.
    await age(sessionId, '61 seconds', '1 hour');
    await sessions.resolve(secret);
    const [row] = (
      await database.db.query<{ idle: number }>(
        `SELECT EXTRACT(EPOCH FROM now() - last_seen_at)::int AS idle FROM dashboard_sessions WHERE id = $1`,
        [sessionId],
      )
    ).rows;
    expect(row!.idle).toBeLessThan(2);
  });

  it('resolve: nothing for a cookie that is not one, unknown, ended, idle 30 minutes or past its 12 hours', async () => {
    for (const cookie of [undefined, 42, '', 'eprs_x', generateToken(SESSION_PREFIX), generateToken()])
      expect(await sessions.resolve(cookie)).toBeUndefined();
    const idle = await started();
    await age(idle.sessionId, '30 minutes 1 second');
    expect(await sessions.resolve(idle.secret)).toBeUndefined();
    const old = await started();
    await age(old.sessionId, '1 minute', '12 hours 1 second');
    expect(await sessions.resolve(old.secret)).toBeUndefined();
    const ended = await started();
    await sessions.endById({ sessionId: ended.sessionId, clientId: 'acme' }, 'req-out');
    expect(await sessions.resolve(ended.secret)).toBeUndefined();
    expect(await audit()).toMatchObject({
      action: 'session.ended',
      target_type: 'session',
      target_id: ended.sessionId,
      actor_type: 'client',
      request_id: 'req-out',
    });
    const live = await started();
    expect((await sessions.resolve(live.secret))?.sessionId).toBe(live.sessionId);
  });

  it('list: the live sessions of the client, newest first, with when each ends if left idle', async () => {
    const first = await started();
    const second = await started();
    const idle = await started();
    await started('other');
    await age(first.sessionId, '10 minutes', '1 hour');
    await age(second.sessionId, '5 minutes', '30 minutes');
    await age(idle.sessionId, '31 minutes');
    const list = await sessions.list('acme');
    expect(list.map((s) => s.id)).toEqual([second.sessionId, first.sessionId]);
    for (const s of list) {
      expect(s.idleExpiresAt.getTime() - s.lastSeenAt.getTime()).toBe(SESSION_IDLE_MS);
      expect(s.expiresAt.getTime() - s.createdAt.getTime()).toBe(12 * 3_600_000);
    }
    // Near its 12 hours, a session ends at its expiry, not 30 minutes after it was last seen.
    await age(first.sessionId, '1 minute', '11 hours 50 minutes');
    const near = (await sessions.list('acme')).find((s) => s.id === first.sessionId)!;
    expect(near.idleExpiresAt).toEqual(near.expiresAt);
    expect(await sessions.list('nobody')).toEqual([]);
  });

  it('endAll: ends the client’s live sessions and voids its unused sign-in links whoever issued them, recorded once with the counts; nobody else’s', async () => {
    const mine = [await started(), await started()];
    const idle = await started();
    await age(idle.sessionId, '31 minutes');
    const theirs = await started('other');
    await mailedLink('acme');
    await mailedLink('acme', { via: 'operator' });
    await mailedLink('acme', { used: true });
    await mailedLink('other');
    const ended = await database.dataSource.transaction((manager) => sessions.endAll(manager, 'acme', operator, 'operator'));
    expect(ended).toBe(2);
    for (const { secret } of mine) expect(await sessions.resolve(secret)).toBeUndefined();
    expect((await sessions.resolve(theirs.secret))?.clientId).toBe('other');
    // Only the used link keeps its expiry; the mailed one and the operator's are void.
    expect(await liveLinks('acme')).toEqual(['email']);
    expect(
      (
        await database.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = 'acme' AND used_at IS NULL AND expires_at > now()`,
        )
      ).rows[0]!.n,
    ).toBe(0);
    expect(await liveLinks('other')).toEqual(['email']);
    expect(await audit()).toEqual({
      actor_type: 'admin',
      actor_name: 'ADMIN_TOKEN',
      action: 'session.ended_all',
      target_type: 'client',
      target_id: 'acme',
      client_id: 'acme',
      changes: { reason: 'operator', sessions: 2, links_voided: 2 },
      request_id: 'req-1',
    });
    // Nothing left: nothing recorded.
    const before = await auditCount();
    expect(await sessions.endAllNow('acme', operator, 'operator')).toBe(0);
    expect(await auditCount()).toBe(before);
    // A mailed link alone is enough to record it.
    await mailedLink('acme');
    expect(await sessions.endAllNow('acme', operator, 'sign_out_everywhere')).toBe(0);
    expect(await audit()).toMatchObject({ changes: { reason: 'sign_out_everywhere', sessions: 0, links_voided: 1 } });
  });

  it('a confirmation that changes the confirmed address ends the sessions, in its transaction; a first address or another change does not', async () => {
    expect(listeners).toHaveLength(1);
    const confirm = (changes: Record<string, { from: unknown; to: unknown }>) =>
      database.dataSource.transaction((manager: EntityManager) => listeners[0]!(manager, 'acme', changes, operator));
    const { secret } = await started();
    await confirm({ company: { from: 'Acme', to: 'Acme SAS' } });
    await confirm({ email: { from: null, to: 'a@acme.fr' } });
    expect(await sessions.resolve(secret)).toBeDefined();
    await confirm({ email: { from: 'a@acme.fr', to: 'b@acme.fr' } });
    expect(await sessions.resolve(secret)).toBeUndefined();
    expect(await audit()).toMatchObject({
      action: 'session.ended_all',
      changes: { reason: 'email_changed', sessions: 1, links_voided: 0 },
    });
  });

  it('a sign-in forgets the client’s sessions and links expired over 30 days ago, keeps the others and other clients’', async () => {
    const old = await started();
    const recent = await started();
    const live = await started();
    const theirs = await started('other');
    await age(old.sessionId, '31 days', '31 days 12 hours');
    await age(recent.sessionId, '29 days', '29 days 12 hours');
    await age(theirs.sessionId, '31 days', '31 days 12 hours');
    await mailedLink('acme');
    await mailedLink('other');
    await database.db.query(`UPDATE sign_in_links SET expires_at = now() - interval '31 days'`);
    const next = await started();
    const ids = (await database.db.query<{ id: string }>('SELECT id FROM dashboard_sessions ORDER BY id')).rows.map((r) => r.id);
    expect(ids).toEqual([recent.sessionId, live.sessionId, theirs.sessionId, next.sessionId].sort());
    const kept = await database.db.query<{ client_id: string }>('SELECT client_id FROM sign_in_links ORDER BY client_id');
    expect(kept.rows.map((r) => r.client_id)).toEqual(['other']);
  });

  it('a link starts one session only: spent, it starts no other and writes nothing', async () => {
    const link = generateToken(SIGN_IN_LINK_PREFIX);
    await database.db.query(
      `INSERT INTO sign_in_links (client_id, token_hash, issued_via, expires_at) VALUES ('acme', $1, 'operator', now() + interval '1 hour')`,
      [hashToken(link)],
    );
    const [first, second] = await Promise.all([
      links.startSession(hashToken(link), hashToken(generateToken(SESSION_PREFIX)), 'req-a'),
      links.startSession(hashToken(link), hashToken(generateToken(SESSION_PREFIX)), 'req-b'),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const before = await auditCount();
    expect(await links.startSession(hashToken(link), hashToken(generateToken(SESSION_PREFIX)), 'req-c')).toBeUndefined();
    expect(await auditCount()).toBe(before);
    expect((await database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM dashboard_sessions')).rows[0]!.n).toBe(1);
  });

  it('cookies as configured: __Host- on https', () => {
    expect(sessions.cookies.session).toBe('__Host-epr_session');
  });
});
