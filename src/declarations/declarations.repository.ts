import { hash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { PreparedStatements, type Statement } from '../database/prepared-statements.js';
import type { CursorPosition } from './declaration-cursor.js';
import type { ValidLine } from './declaration-validator.js';
import type {
  Declaration,
  DeclarationLine,
  DeclarationRecord,
  DeclarationStatus,
  DeclarationSummary,
  DeclarationTotal,
  UnitsSold,
} from './declaration.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import type { TokenMode } from '../common/token-format.js';
import { AUDIT_ENTRY_INSERT } from '../audit/audit-trail.js';
import { receiptAround } from './receipt.js';

/** Whose data a client query reaches: one client, in one mode (its live data or its sandbox). */
export interface DataScope {
  clientId: string;
  mode: TokenMode;
}

/** The advisory lock key of one (client, period): the first 64 bits of SHA-256 of "client/period", signed ("client/test/period" in the sandbox). */
export function periodLockKey(clientId: string, period: string, mode: TokenMode = 'live'): bigint {
  const name = mode === 'live' ? `${clientId}/${period}` : `${clientId}/${mode}/${period}`;
  return BigInt.asIntN(64, BigInt(`0x${hash('sha256', name, 'hex').slice(0, 16)}`));
}

/** A timestamptz as UTC text with its full microsecond precision (a JS Date would drop three digits). */
export const utcText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Who files, as the caller layer knows it (the token prefix is read from the token's row in the insert). */
export type Submitter =
  { type: 'token'; tokenId: string } | { type: 'dashboard'; sessionId: string | null } | { type: 'operator'; name: string };

export interface CurrentDeclarationRow {
  id: string;
  period: string;
  revision: number;
  receipt: string;
  /** The streams its lines declare. */
  streams: string[];
}

/** What a new revision declares, and who files it: everything of it but its place among the period's revisions. */
export interface NewContent {
  clientId: string;
  mode: TokenMode;
  period: string;
  contentHash: string;
  /** `declarationIdentity` of its lines and units sold: what `file` compares with the revision in force. */
  identityHash: string;
  catalogueVersion: number;
  submitter: Submitter;
  /** The person who declared it in the dashboard, by the full name typed next to the statement; null through the API. */
  declaredByName: string | null;
  /** The consumer sales units stated, once per stream; empty when not stated. */
  unitsSold: UnitsSold[];
}

/** A new revision with its place among the period's revisions, as read under the period lock (`insert`). */
export interface NewDeclaration extends NewContent {
  revision: number;
  supersedes: string | null;
  receipt: string;
}

/**
 * What `file` did: stored a new revision (`stored`), or found the same figures in force and wrote
 * nothing (`unchanged`, the revision in force); undefined when the revision in force was filed before
 * identities were stored, which `file` cannot compare (the caller compares their lines under the lock).
 */
export type Filed = { stored: boolean; record: DeclarationRecord } | undefined;

/** The `submitted_by` JSON the insert stores; a token's prefix is added there from its row. */
function submittedByJson(submitter: Submitter): string {
  switch (submitter.type) {
    case 'token':
      return JSON.stringify({ type: 'token', token_id: submitter.tokenId });
    case 'dashboard':
      return JSON.stringify({ type: 'dashboard', session_id: submitter.sessionId });
    case 'operator':
      return JSON.stringify({ type: 'operator', name: submitter.name });
  }
}

/**
 * The actor of the `declaration.submitted` entry the insert writes in the audit trail (AuditTrail's
 * `actorColumns`); `actorName` null for a client's token, named `token <prefix>` from its row there.
 */
export interface AuditedBy {
  actorType: string;
  operatorId: string | null;
  actorName: string | null;
  requestId: string | null;
}

export interface ListQuery {
  clientId: string;
  mode: TokenMode;
  period?: string;
  status?: DeclarationStatus;
  after?: CursorPosition;
  limit: number;
}

/** The statement of one page of a client's list, as the repository sends it (a test EXPLAINs it). */
export function listPageStatement(query: ListQuery): { text: string; values: unknown[] } {
  const where = ['client_id = $1', 'mode = $2'];
  const values: unknown[] = [query.clientId, query.mode];
  if (query.period !== undefined) where.push(`period = $${values.push(query.period)}`);
  if (query.status !== undefined) where.push(`status = $${values.push(query.status)}`);
  if (query.after) {
    where.push(`(submitted_at, id) < ($${values.push(query.after.submittedAt)}::timestamptz, $${values.push(query.after.id)}::uuid)`);
  }
  const text = `SELECT ${DECLARATION_COLUMNS} FROM declarations
        WHERE ${where.join(' AND ')}
        ORDER BY submitted_at DESC, id DESC
        LIMIT $${values.push(query.limit)}`;
  return { text, values };
}

/** Who filed a declaration (columns qualified by `d`, e.g. `declaration.`), as answers and the audit trail give it: `submitted_by` with the name the person typed, if any. */
const SUBMITTED_BY = (d = '') =>
  `CASE WHEN ${d}declared_by_name IS NULL THEN ${d}submitted_by ELSE ${d}submitted_by || jsonb_build_object('declared_by_name', ${d}declared_by_name) END`;

/** A declaration's fields as the code names them, each with its SQL. */
const DECLARATION_FIELDS: [name: string, sql: string][] = [
  ['id', 'id'],
  ['clientId', 'client_id'],
  ['period', 'period'],
  ['revision', 'revision'],
  ['status', 'status'],
  ['supersedes', 'supersedes'],
  ['submittedAt', utcText('submitted_at')],
  ['receipt', 'receipt'],
  ['catalogueVersion', 'catalogue_version'],
  ['mode', 'mode'],
  ['submittedBy', SUBMITTED_BY()],
  ['unitsSold', 'units_sold'],
];

export const DECLARATION_COLUMNS = DECLARATION_FIELDS.map(([name, sql]) => (name === sql ? sql : `${sql} AS "${name}"`)).join(', ');

/**
 * The same fields (and `more`) as ONE JSON column, `record`: the values `pg` would give for the columns (integers,
 * texts, JSON), in their order. The write path's statements answer so: `pg` describes and reads one column rather
 * than a dozen, each of whose names it stores anew in an object of its own (some 5 µs a statement).
 */
const declarationRecord = (...more: [name: string, sql: string][]) =>
  `json_build_object(${[...DECLARATION_FIELDS, ...more].map(([name, sql]) => `'${name}', ${sql}`).join(', ')}) AS record`;

/**
 * The `totals` (exact sums per stream and unit, by PostgreSQL's numeric; the caller keeps those of units
 * that add up across materials, `additiveTotals`) of ONE declaration, as JSON, from a relation `source` of its `declaration_lines` rows.
 */
const RECORD_TOTALS = (source: string) => `
  (SELECT coalesce(json_agg(json_build_object('stream', stream, 'unit', unit, 'quantity', quantity) ORDER BY stream, unit), '[]')
     FROM (SELECT stream, unit, trim_scale(sum(quantity))::text AS quantity FROM ${source} GROUP BY stream, unit) AS sums)`;

/** The `lines` of ONE declaration, in order, as JSON, from a relation `source` of its `declaration_lines` rows. */
const RECORD_LINES = (source: string) => `
  (SELECT coalesce(json_agg(json_build_object('stream', stream, 'material', material, 'materialCode', material_code,
                                              'unit', unit, 'quantity', quantity::text) ORDER BY position), '[]')
     FROM ${source})`;

/** The `lines` (RECORD_LINES) and `totals` (RECORD_TOTALS) of ONE declaration, as JSON columns. */
export const RECORD_LINES_AND_TOTALS = (source: string) => `${RECORD_LINES(source)} AS lines, ${RECORD_TOTALS(source)} AS totals`;

/** The revision in force of (client, period, mode), with its lines: the three as SQL literals. */
const currentRecordText = (clientId: string, period: string, mode: string) =>
  `WITH declaration AS (SELECT * FROM declarations WHERE client_id = ${clientId} AND mode = ${mode} AND period = ${period} AND status = 'current'),
              line AS (SELECT l.* FROM declaration_lines l JOIN declaration ON declaration.id = l.declaration_id)
         SELECT ${declarationRecord(['lines', RECORD_LINES('line')], ['totals', RECORD_TOTALS('line')])} FROM declaration`;

/**
 * See `inForce`: the revision in force as a list shows it (its line count, its totals), its stored identity,
 * and its lines only when it has none.
 */
const IN_FORCE: Statement = {
  name: 'declarations.in-force',
  text: `WITH declaration AS (SELECT * FROM declarations WHERE client_id = $1 AND mode = $3 AND period = $2 AND status = 'current'),
              line AS (SELECT l.* FROM declaration_lines l JOIN declaration ON declaration.id = l.declaration_id)
         SELECT ${DECLARATION_COLUMNS}, identity_hash AS "identityHash", (SELECT count(*)::int FROM line) AS "lineCount",
                ${RECORD_TOTALS('line')} AS totals, CASE WHEN identity_hash IS NULL THEN ${RECORD_LINES('line')} END AS lines
           FROM declaration`,
};

/** The revision in force of a period, as `inForce` reads it. */
export interface InForce {
  summary: DeclarationSummary;
  /** `declarationIdentity` of its figures, as stored; null for a revision filed before it was stored. */
  identityHash: string | null;
  /** Its lines when it has no stored identity (to compare them); null otherwise. */
  lines: DeclarationLine[] | null;
}

/** A half-year as the validator accepts it (the only form a period may take in SQL text). */
const PERIOD = /^\d{4}-S[12]$/;

/**
 * The statements that start a READ COMMITTED transaction and take the advisory lock of (client, period),
 * to send with the statements that follow in one simple-protocol query: the lock key a number computed
 * here, the period and mode checked against their only forms (they go into the SQL text).
 */
function lockedTransaction(scope: DataScope, period: string): string[] {
  if (!PERIOD.test(period) || !['live', 'test'].includes(scope.mode)) throw new Error(`not a period or mode: ${period} ${scope.mode}`);
  return [
    'START TRANSACTION ISOLATION LEVEL READ COMMITTED',
    `SELECT pg_advisory_xact_lock(${periodLockKey(scope.clientId, period, scope.mode)})`,
  ];
}

/** A row `FILE` answers: the new record without its lines (`stored`), the revision in force (`unchanged`), or none (`undecided`). */
interface FileRow {
  outcome: 'stored' | 'unchanged' | 'undecided';
  record: Omit<DeclarationRecord, 'lines'> & Partial<Pick<DeclarationRecord, 'lines'>>;
}

/**
 * The statements that write a revision, after `WITH`: the revision in force (`supersedes`, SQL) superseded,
 * the new current revision inserted (its `revision` and `receipt`, SQL) with its lines and its
 * `declaration.submitted` entry in the audit trail, each only `when` (SQL) holds. Their parameters are
 * `contentValues`' ($1–$18). The lines go as arrays whatever their number (up to 1000): one statement,
 * not 7000 parameters; they do not come back (the record's are those sent: `insertedRecord`), their
 * totals do. `supersedes` is read from the UPDATE's result, so PostgreSQL runs it before the insert, and
 * the new current row then meets no other current one in the partial unique index.
 */
const writeRevision = (place: { supersedes: string; revision: string; receipt: string }, when: string) => `superseded AS (
           UPDATE declarations SET status = 'superseded' WHERE id = ${place.supersedes} AND status = 'current' AND ${when} RETURNING id
         ), declaration AS (
           INSERT INTO declarations (client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash, identity_hash, catalogue_version, mode, submitted_by, declared_by_name, units_sold)
           SELECT $1, $2, ${place.revision}, 'current', (SELECT id FROM superseded), clock_timestamp(), ${place.receipt}, $4, $5, $6, $3,
                  CASE WHEN $7::jsonb->>'type' = 'token'
                       THEN $7::jsonb || jsonb_build_object('token_prefix',
                              (SELECT t.prefix FROM client_tokens t WHERE t.id = ($7::jsonb->>'token_id')::uuid AND t.client_id = $1))
                       ELSE $7::jsonb END, $8, $9::jsonb
            WHERE ${when}
           RETURNING *
         ), line AS (
           INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
           SELECT declaration.id, l.position - 1, l.stream, l.material, l.material_code, l.unit, l.quantity
             FROM declaration, unnest($10::text[], $11::text[], $12::text[], $13::text[], $14::numeric[])
                  WITH ORDINALITY AS l (stream, material, material_code, unit, quantity, position)
           RETURNING stream, unit, quantity
         ), audit AS (
           ${AUDIT_ENTRY_INSERT}
           SELECT $15, $16::uuid, coalesce($17, 'token ' || coalesce(declaration.submitted_by->>'token_prefix', declaration.submitted_by->>'token_id')),
                  'declaration.submitted', 'declaration', declaration.id::text, declaration.client_id,
                  jsonb_build_object('period', declaration.period, 'revision', declaration.revision, 'receipt', declaration.receipt,
                                     'submitted_by', ${SUBMITTED_BY('declaration.')}, 'mode', declaration.mode),
                  $18
             FROM declaration
         )`;

/** See `insert`: the revision, the one it supersedes and the receipt as read under the lock ($19–$21). */
const INSERT: Statement = {
  name: 'declarations.insert',
  text: `WITH ${writeRevision({ supersedes: '$20::uuid', revision: '$19', receipt: '$21' }, 'true')}
         SELECT ${declarationRecord(['totals', RECORD_TOTALS('line')])} FROM declaration`,
};

/**
 * See `file`: the revision in force read by the statement itself, compared by its identity, then the next
 * revision written when the figures differ (its receipt $19 || revision || $20). It answers one row:
 * `outcome` `stored` with the new record (its totals, not its lines), `unchanged` with the revision in
 * force (its lines and totals), or `undecided` (no identity stored with the revision in force: nothing written, no record).
 */
const FILE: Statement = {
  name: 'declarations.file',
  text: `WITH current AS (
           SELECT * FROM declarations WHERE client_id = $1 AND mode = $3 AND period = $2 AND status = 'current'
         ), decision AS (
           SELECT coalesce((SELECT CASE WHEN identity_hash IS NULL THEN 'undecided' WHEN identity_hash = $5 THEN 'unchanged' END FROM current),
                           'stored') AS outcome
         ), ${writeRevision(
           {
             supersedes: '(SELECT id FROM current)',
             revision: 'coalesce((SELECT revision FROM current), 0) + 1',
             receipt: '$19 || (coalesce((SELECT revision FROM current), 0) + 1) || $20',
           },
           `(SELECT outcome FROM decision) = 'stored'`,
         )}, current_line AS (
           SELECT l.* FROM declaration_lines l JOIN current ON current.id = l.declaration_id
         )
         SELECT 'stored' AS outcome, ${declarationRecord(['totals', RECORD_TOTALS('line')])} FROM declaration
         UNION ALL
         SELECT decision.outcome,
                (SELECT ${declarationRecord(['lines', RECORD_LINES('current_line')], ['totals', RECORD_TOTALS('current_line')])}
                   FROM current WHERE decision.outcome = 'unchanged')
           FROM decision WHERE decision.outcome <> 'stored'`,
};

/**
 * The record `INSERT` answers, with its lines as PostgreSQL would read them back (`FIND_RECORD`): the values
 * sent, in their order, each quantity as numeric(16, 3) gives it as text (validated: at most 3 decimals;
 * `1200.5` → `1200.500`). The fields in the order of a record read back.
 */
function insertedRecord({ totals, ...row }: Omit<DeclarationRecord, 'lines'>, lines: ValidLine[]): DeclarationRecord {
  const stored = lines.map(({ stream, material, materialCode, unit, quantity }): DeclarationLine => {
    const [whole, fraction = ''] = quantity.split('.');
    return { stream, material, materialCode, unit, quantity: `${whole}.${fraction.padEnd(3, '0')}` };
  });
  return { ...row, lines: stored, totals };
}

/** The values of `writeRevision`'s placeholders ($1–$18). */
function contentValues(declaration: NewContent, lines: ValidLine[], audit: AuditedBy): unknown[] {
  return [
    declaration.clientId,
    declaration.period,
    declaration.mode,
    declaration.contentHash,
    declaration.identityHash,
    declaration.catalogueVersion,
    submittedByJson(declaration.submitter),
    declaration.declaredByName,
    JSON.stringify(declaration.unitsSold),
    lines.map((l) => l.stream),
    lines.map((l) => l.material),
    lines.map((l) => l.materialCode),
    lines.map((l) => l.unit),
    lines.map((l) => l.quantity),
    audit.actorType,
    audit.operatorId,
    audit.actorName,
    audit.requestId,
  ];
}

/** See `findRecord`. */
const FIND_RECORD: Statement = {
  name: 'declarations.find-record',
  text: `WITH declaration AS (SELECT * FROM declarations WHERE client_id = $1 AND mode = $3 AND id = $2),
              line AS (SELECT l.* FROM declaration_lines l JOIN declaration ON declaration.id = l.declaration_id)
         SELECT ${DECLARATION_COLUMNS}, ${RECORD_LINES_AND_TOTALS('line')} FROM declaration`,
};

/** A filing as other modules point at it. */
export interface Filing {
  id: string;
  mode: TokenMode;
  revision: number;
  receipt: string;
  status: DeclarationStatus;
}

/**
 * The SQL of declarations. Every read is scoped by client id: there is no way to read a
 * declaration without naming its owner. Writes take the transaction's EntityManager.
 */
@Injectable()
export class DeclarationsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statements: PreparedStatements,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  /** The record with the totals of units that add up across materials only (see `additiveTotals`). */
  private additive(record: DeclarationRecord): DeclarationRecord {
    return { ...record, totals: additiveTotals(record.totals, this.catalogue) };
  }

  /**
   * Runs `work` in a READ COMMITTED transaction holding the advisory lock of (client, period), which
   * serialises the submissions of one period across replicas until the transaction ends, with the
   * revision in force of the period (its lines included) as the lock's holder sees it. READ
   * COMMITTED: each statement after the lock sees what the previous holder committed. The
   * transaction starts, takes the lock and reads the revision in force in one round trip: a
   * simple-protocol query of three statements (each with a snapshot of its own, the read's taken once
   * the lock is held), hence its values as literals (`lockedTransaction`; the client id escaped by `pg`).
   */
  async withPeriodLock<T>(
    scope: DataScope,
    period: string,
    work: (manager: EntityManager, current: DeclarationRecord | undefined) => Promise<T>,
  ): Promise<T> {
    const lock = lockedTransaction(scope, period);
    return this.onConnection(async (connection, manager) => {
      const results = (await connection.query(
        [...lock, currentRecordText(pg.escapeLiteral(scope.clientId), `'${period}'`, `'${scope.mode}'`)].join('; '),
      )) as unknown as pg.QueryResult<{ record: DeclarationRecord }>[];
      const [row] = results.at(-1)!.rows;
      const result = await work(manager, row && this.additive(row.record));
      await connection.query('COMMIT');
      return result;
    });
  }

  /**
   * Files a revision that nothing else is written with: under the period's lock (as `withPeriodLock`),
   * one statement reads the revision in force and, unless it declares the same figures (its stored
   * identity), supersedes it and inserts the next revision with its lines and audit entry (`FILE`). On a
   * connection that has prepared the statement, in ONE round trip: `START TRANSACTION …; SELECT
   * pg_advisory_xact_lock(…); EXECUTE "declarations.file"(…); COMMIT` as one simple-protocol query
   * (PreparedStatements.executeWithin; the statement after the lock has a snapshot of its own, so it sees
   * what the lock's previous holder committed). Otherwise (the first time on a connection, and on PGlite)
   * the same in three. An error stops the query where it is and the transaction is rolled back; the
   * answer is sent by the caller after the COMMIT answered. Undefined, with nothing written, when the
   * revision in force has no identity stored (filed before it was): the caller compares under the lock.
   */
  async file(content: NewContent, lines: ValidLine[], audit: AuditedBy): Promise<Filed> {
    const lock = lockedTransaction(content, content.period);
    const values = [...contentValues(content, lines, audit), ...receiptAround(content.period, content.mode)];
    return this.onConnection(async (connection, manager) => {
      let rows = await this.statements.executeWithin<FileRow>(connection, FILE, values, { before: lock, after: ['COMMIT'] });
      if (rows === undefined) {
        await connection.query(lock.join('; '));
        rows = await this.statements.query<FileRow>(FILE, values, manager);
        await connection.query('COMMIT');
      }
      const [{ outcome, record }] = rows as [FileRow];
      if (outcome === 'undecided') return undefined;
      return outcome === 'stored'
        ? { stored: true, record: this.additive(insertedRecord(record, lines)) }
        : { stored: false, record: this.additive(record as DeclarationRecord) };
    });
  }

  /** `work` on a connection of its own, released at the end; a transaction it leaves open on an error is rolled back. */
  private async onConnection<T>(work: (connection: pg.PoolClient, manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const connection = (await runner.connect()) as pg.PoolClient;
    try {
      return await work(connection, runner.manager);
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** What other modules show of some of the client's filings (products/: the filing a derivation made), by id. */
  async filings(clientId: string, ids: string[]): Promise<Filing[]> {
    if (ids.length === 0) return [];
    return this.dataSource.query(
      `SELECT id, mode, revision, receipt, status FROM declarations WHERE client_id = $1 AND id = ANY($2::uuid[])`,
      [clientId, ids],
    );
  }

  /** The ids of the client's test declarations (the sandbox's wipe removes what products/ recorded of them first). */
  async testDeclarationIds(manager: EntityManager, clientId: string): Promise<string[]> {
    const rows: { id: string }[] = await manager.query(`SELECT id FROM declarations WHERE client_id = $1 AND mode = 'test'`, [clientId]);
    return rows.map((row) => row.id);
  }

  /**
   * Deletes every test declaration of the client (lines go with them: ON DELETE CASCADE; a revision
   * and the one it supersedes go in one statement, so the self-reference never blocks) and its test
   * Idempotency-Keys, in `manager`'s transaction.
   */
  async deleteTestData(manager: EntityManager, clientId: string): Promise<{ declarations: number; idempotencyKeys: number }> {
    const [counts] = (await manager.query(
      `WITH declarations_wiped AS (DELETE FROM declarations WHERE client_id = $1 AND mode = 'test' RETURNING 1),
            keys_wiped AS (DELETE FROM idempotency_keys WHERE client_id = $1 AND mode = 'test' RETURNING 1)
       SELECT (SELECT count(*)::int FROM declarations_wiped) AS declarations, (SELECT count(*)::int FROM keys_wiped) AS "idempotencyKeys"`,
      [clientId],
    )) as { declarations: number; idempotencyKeys: number }[];
    return counts!;
  }

  /**
   * The revision in force of the period as a check page shows it and compares it, in one statement (outside any
   * transaction): its summary, its stored identity, and its lines only for a revision filed before identities were stored.
   */
  async inForce(scope: DataScope, period: string): Promise<InForce | undefined> {
    type Row = Declaration & {
      identityHash: string | null;
      lineCount: number;
      totals: DeclarationTotal[];
      lines: DeclarationLine[] | null;
    };
    const [row] = await this.statements.query<Row>(IN_FORCE, [scope.clientId, period, scope.mode]);
    if (!row) return undefined;
    const { identityHash, lineCount, totals, lines, ...declaration } = row;
    return { summary: { ...declaration, lineCount, totals: additiveTotals(totals, this.catalogue) }, identityHash, lines };
  }

  /**
   * Supersedes the revision in force (`declaration.supersedes`, if any), inserts the new current
   * revision and its lines and its `declaration.submitted` entry in the audit trail, and answers the
   * record as stored (what PostgreSQL returned from the inserts, with the lines it was sent: `insertedRecord`), in one statement. Call with the period lock held (`withPeriodLock`). `submitted_at` is the wall-clock time
   * once the period lock is held, so that revisions of a period are in submission order.
   */
  async insert(manager: EntityManager, declaration: NewDeclaration, lines: ValidLine[], audit: AuditedBy): Promise<DeclarationRecord> {
    const [{ record }] = (await this.statements.query<{ record: Omit<DeclarationRecord, 'lines'> }>(
      INSERT,
      [...contentValues(declaration, lines, audit), declaration.revision, declaration.supersedes, declaration.receipt],
      manager,
    )) as [{ record: Omit<DeclarationRecord, 'lines'> }];
    // Under the period lock the revision in force cannot have changed since it was read; if it had, nothing is kept.
    if (record.supersedes !== declaration.supersedes) throw new Error(`revision ${declaration.supersedes} was not the one in force`);
    return this.additive(insertedRecord(record, lines));
  }

  /** The full record, or undefined if `id` is not a declaration of this client in this mode. */
  async findRecord(scope: DataScope, id: string, manager?: EntityManager): Promise<DeclarationRecord | undefined> {
    const [record] = await this.statements.query<DeclarationRecord>(FIND_RECORD, [scope.clientId, id, scope.mode], manager);
    return record && this.additive(record);
  }

  /** The client's current declarations with the streams each declares: what GET /me/obligations needs. */
  async currentDeclarations(scope: DataScope): Promise<CurrentDeclarationRow[]> {
    return this.dataSource.query(
      `SELECT d.id, d.period, d.revision, d.receipt, array_agg(DISTINCT l.stream ORDER BY l.stream) AS streams
         FROM declarations d JOIN declaration_lines l ON l.declaration_id = d.id
        WHERE d.client_id = $1 AND d.mode = $2 AND d.status = 'current'
        GROUP BY d.id, d.period, d.revision, d.receipt`,
      [scope.clientId, scope.mode],
    );
  }

  /**
   * One page (plus one row, to tell whether more follow), newest first. The keyset condition
   * `(submitted_at, id) < cursor` and the order match an index, so each page is an index range scan.
   */
  async listPage(query: ListQuery): Promise<DeclarationSummary[]> {
    const rows = await this.listRows(query);
    const aggregates = await this.aggregate(
      query,
      rows.map((r) => r.id),
    );
    return rows.map((row) => ({ ...row, lineCount: aggregates.get(row.id)?.lineCount ?? 0, totals: aggregates.get(row.id)?.totals ?? [] }));
  }

  /** One page as listPage reads it, without the lines' counts and totals. */
  listRows(query: ListQuery): Promise<Declaration[]> {
    const { text, values } = listPageStatement(query);
    return this.dataSource.query(text, values);
  }

  /** Line counts and exact totals per stream and unit, summed as numeric by PostgreSQL. */
  private async aggregate(scope: DataScope, ids: string[]): Promise<Map<string, LineAggregate>> {
    if (ids.length === 0) return new Map();
    const rows: LineAggregateRow[] = await this.dataSource.query(
      `SELECT l.declaration_id AS "declarationId", l.stream, l.unit,
              trim_scale(sum(l.quantity))::text AS quantity, count(*)::int AS lines
         FROM declaration_lines l JOIN declarations d ON d.id = l.declaration_id
        WHERE d.client_id = $1 AND d.mode = $3 AND l.declaration_id = ANY($2::uuid[])
        GROUP BY l.declaration_id, l.stream, l.unit
        ORDER BY l.declaration_id, l.stream, l.unit`,
      [scope.clientId, ids, scope.mode],
    );
    return lineAggregates(rows, this.catalogue);
  }
}

/** A declaration's line count and exact totals per stream and unit. */
export interface LineAggregate {
  lineCount: number;
  totals: DeclarationTotal[];
}

/** One row of a `GROUP BY declaration_id, stream, unit` over declaration lines. */
export interface LineAggregateRow {
  declarationId: string;
  stream: string;
  unit: string;
  quantity: string;
  lines: number;
}

/**
 * The totals a declaration shows: those of units that add up across materials (kg). A `uvc` line counts
 * the units whose packaging contains its material, so the sum of a stream's `uvc` lines counts a unit once
 * per material: it is no count of anything, and the units sold are stated on their own (`unitsSold`).
 */
export function additiveTotals(totals: DeclarationTotal[], catalogue: ReferenceCatalogue): DeclarationTotal[] {
  return totals.filter((total) => catalogue.addsAcrossMaterials(total.unit));
}

/** The rows of such a query, by declaration (the totals of units that add up across materials only). */
export function lineAggregates(rows: LineAggregateRow[], catalogue: ReferenceCatalogue): Map<string, LineAggregate> {
  const result = new Map<string, LineAggregate>();
  for (const row of rows) {
    const entry = result.get(row.declarationId) ?? { lineCount: 0, totals: [] };
    entry.lineCount += row.lines;
    if (catalogue.addsAcrossMaterials(row.unit)) entry.totals.push({ stream: row.stream, unit: row.unit, quantity: row.quantity });
    result.set(row.declarationId, entry);
  }
  return result;
}
