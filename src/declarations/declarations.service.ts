import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Account } from '../accounts/account.js';
import { describeErrors, type FieldError, NotFoundProblem, Problem, ValidationProblem } from '../common/problem/problem.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { canonicalJson, sha256Hex, TooDeepError } from './canonical-json.js';
import { type DeclarationFile, pointAtCells, readDeclarationCsv } from './csv/declaration-csv.js';
import { Clock, parisDate } from '../calendar/clock.js';
import { DeclarationCursor, type ListFilters } from './declaration-cursor.js';
import {
  declarationIdentity,
  DeclarationValidator,
  MAX_LINES,
  MAX_REPORTED_ERRORS,
  type ValidationResult,
  type ValidDeclaration,
} from './declaration-validator.js';
import type { Declaration, DeclarationRecord, DeclarationsQuery, DeclarationSummary } from './declaration.js';
import { type AuditedBy, type DataScope, DeclarationsRepository, type NewContent, type NewDeclaration } from './declarations.repository.js';
import type { TokenMode } from '../common/token-format.js';
import type { Page } from '../common/paging/keyset-cursor.js';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { type Claim, IdempotencyStore, parseIdempotencyKey } from './idempotency-store.js';
import { receiptFor } from './receipt.js';
import { declarationWarnings, warningsInBrief } from './declaration-warnings.js';
import { isUuid } from '../common/uuid.js';
import { actorColumns } from '../audit/audit-trail.js';
import type { Actor } from '../caller/actor.js';
import type { SubmissionOrigin } from './submission-origin.js';

/** The answer to a filing as the API gives it, stored with its Idempotency-Key for the key's replays. */
export interface StoredAnswer {
  id: string;
}

/**
 * What a filing gives: 201 for a new revision, 200 for content identical to the current one; the
 * revision, or on a replay the answer stored with the same Idempotency-Key.
 */
export type SubmitResult = {
  status: 200 | 201;
  /**
   * What to check in the declaration, never an error (declaration-warnings.ts): with `params` for the
   * dashboard's messages, except on a replay (the stored answer's warnings, as the API gave them).
   */
  warnings: FieldError[];
} & ({ replayed: false; declaration: DeclarationRecord } | { replayed: true; answer: StoredAnswer });

const RECEIPT_CONSTRAINT = 'uq_declarations_receipt';

/** How `check` and `checkCsv` answer. */
export interface CheckOptions {
  /** Warnings of each code built at most, the others only counted: what a page shows. Default: all. */
  warningsPerCode?: number;
}

/** A declaration checked before it is filed (the dashboard's check page): valid, nothing stored. */
export interface CheckedDeclaration {
  declaration: ValidDeclaration;
  /** As `submit` would answer them (a CSV file's point at its cells); with `warningsPerCode`, the first of each code only. */
  warnings: FieldError[];
  /** How many warnings of each code there are, those not in `warnings` included. */
  warningCounts: Map<string, number>;
  /** Exact sums per stream and unit that adds up across materials (kg), as the stored record would give them. */
  totals: { stream: string; unit: string; quantity: string }[];
  /** The revision in force for the period, which filing this would replace; null for the first. */
  current: DeclarationSummary | null;
  /** The revision in force declares the same figures: filing this changes nothing (no new revision). */
  unchanged: boolean;
}

/** What a caller of `submit` may add to the transaction of a new revision (products/ records a derivation there). */
export interface SubmitOptions {
  /** The Idempotency-Key header, and the answer the API gives (its DTO), stored with the key in the revision's transaction. */
  idempotency?: { key: string | undefined; answer: (declaration: DeclarationRecord) => StoredAnswer };
  /** Runs in the revision's transaction once it is inserted (not for an identical resubmission); a throw rolls everything back. */
  onStored?: (manager: EntityManager, declaration: DeclarationRecord) => Promise<void>;
}

/**
 * Declarations: validation against the reference data and the account, revisions that never
 * overwrite, Idempotency-Key, listing. Everything of one submission commits in one transaction.
 */
@Injectable()
export class DeclarationsService {
  private readonly logger = new Logger(DeclarationsService.name);

  constructor(
    private readonly repository: DeclarationsRepository,
    private readonly idempotency: IdempotencyStore,
    private readonly validator: DeclarationValidator,
    private readonly catalogue: ReferenceCatalogue,
    private readonly clock: Clock,
  ) {}

  /** `origin`: who files, in which request, and the caller's data (`test` with a sandbox token; the dashboard is live). */
  async submit(account: Account, body: unknown, origin: SubmissionOrigin, options: SubmitOptions = {}): Promise<SubmitResult> {
    const scope: DataScope = { clientId: account.clientId, mode: origin.mode };
    const parsedKey = parseIdempotencyKey(options.idempotency?.key);
    const keyError = parsedKey && 'error' in parsedKey ? parsedKey.error : undefined;
    const key = parsedKey && 'key' in parsedKey ? parsedKey.key : undefined;
    const requestHash = key === undefined ? undefined : requestHashOf(body);
    if (keyError || (key !== undefined && requestHash === undefined)) {
      // Report the body's problems with the key's (every problem at once). A body too deep to
      // hash is never a valid declaration, so it always has problems of its own.
      const result = this.validate(account, body);
      const errors = [...(keyError ? [keyError] : []), ...(result.ok ? [] : result.errors)];
      throw validationProblem(errors, errors.length + (result.ok ? 0 : result.total - result.errors.length));
    }

    let claim: Claim | undefined;
    if (key !== undefined && requestHash !== undefined) {
      const outcome = await this.idempotency.claim(scope, key, requestHash);
      switch (outcome.kind) {
        case 'replay': {
          // Answers stored before warnings existed had none to give.
          const warnings = (outcome.body as { warnings?: FieldError[] }).warnings ?? [];
          return {
            status: outcome.status as 200 | 201,
            answer: outcome.body as StoredAnswer,
            warnings: warnings.map(publicWarning),
            replayed: true,
          };
        }
        case 'in_flight':
          throw inFlight('A request with this Idempotency-Key is still being processed; retry in a moment to get its response.');
        case 'reused': {
          const detail =
            'This Idempotency-Key was used in the last 24 hours with a different request body; use a new key for a different request.';
          // `errors` as in every 422, pointing at the header.
          throw new Problem('idempotency_key_reused', detail, {
            extensions: { errors: [{ pointer: '/headers/idempotency-key', code: 'idempotency_key_reused', detail }] },
          });
        }
        case 'claimed':
          claim = outcome.claim;
      }
    }

    try {
      const result = this.validate(account, body);
      if (!result.ok) throw validationProblem(result.errors, result.total);
      return await this.store(scope, result.declaration, claim, origin, options);
    } catch (error) {
      // A request that did not succeed is not remembered: the key may be used again.
      if (claim)
        await this.idempotency.release(claim).catch((e: unknown) => this.logger.warn(`Idempotency-Key release failed: ${String(e)}`));
      throw error;
    }
  }

  /**
   * A declaration from a CSV file: the file read as the JSON body it stands for, then exactly the
   * JSON path (rules, revisions, idempotency, answers), its problems pointed at the file's cells.
   */
  async submitCsv(
    account: Account,
    csv: DeclarationFile,
    period: string | undefined,
    origin: SubmissionOrigin,
    options: SubmitOptions = {},
  ): Promise<SubmitResult> {
    const sheet = readDeclarationCsv(csv, period, MAX_LINES);
    try {
      if (sheet.errors.length > 0) {
        // Cells that stand for no value: reported with everything else the rules find.
        const result = this.validate(account, sheet.body);
        throw new ValidationProblem(result.ok ? [] : result.errors);
      }
      const result = await this.submit(account, sheet.body, origin, options);
      return { ...result, warnings: pointAtCells(sheet, result.warnings) };
    } catch (error) {
      if (!(error instanceof ValidationProblem)) throw error;
      const errors = pointAtCells(sheet, error.errors);
      throw validationProblem(errors.slice(0, MAX_REPORTED_ERRORS), errors.length);
    }
  }

  /**
   * The dashboard's check step: the declaration judged by exactly the rules of `submit`, with its
   * warnings, totals and the revision it would replace; nothing is stored. Problems throw as `submit`'s.
   */
  async check(account: Account, body: unknown, options: CheckOptions = {}): Promise<CheckedDeclaration> {
    const result = this.validate(account, body);
    if (!result.ok) throw validationProblem(result.errors, result.total);
    return this.checked(account, result.declaration, options);
  }

  /** The revisions of a half-year, newest first (at most 100), without their lines: what a declaration's page lists. */
  revisionsOf(clientId: string, period: string, mode: TokenMode = 'live'): Promise<Declaration[]> {
    return this.repository.listRows({ clientId, mode, period, limit: 100 });
  }

  /** `check` for a CSV file, its problems and warnings pointed at the file's cells (as `submitCsv`). */
  async checkCsv(
    account: Account,
    csv: DeclarationFile,
    period: string | undefined,
    options: CheckOptions = {},
  ): Promise<CheckedDeclaration> {
    const sheet = readDeclarationCsv(csv, period, MAX_LINES);
    const result = this.validate(account, sheet.body);
    if (sheet.errors.length > 0 || !result.ok) {
      const errors = pointAtCells(sheet, result.ok ? [] : result.errors);
      throw validationProblem(errors.slice(0, MAX_REPORTED_ERRORS), errors.length);
    }
    return this.checked(account, result.declaration, options, (warnings) => pointAtCells(sheet, warnings));
  }

  /** A valid declaration as the check page shows it; `point` takes its warnings' pointers to where the person put the values. */
  private async checked(
    account: Account,
    declaration: ValidDeclaration,
    options: CheckOptions,
    point: (warnings: FieldError[]) => FieldError[] = (warnings) => warnings,
  ): Promise<CheckedDeclaration> {
    const { warnings, counts } = warningsInBrief(declaration, this.catalogue, options.warningsPerCode ?? Infinity);
    const inForce = await this.repository.inForce({ clientId: account.clientId, mode: 'live' }, declaration.period);
    return {
      declaration,
      warnings: point(warnings),
      warningCounts: counts,
      totals: totalsOf(declaration.lines.filter((line) => this.catalogue.addsAcrossMaterials(line.unit))),
      current: inForce?.summary ?? null,
      unchanged:
        inForce !== undefined &&
        (inForce.identityHash ?? declarationIdentity(inForce.lines!, inForce.summary.unitsSold)) === declaration.identityHash,
    };
  }

  async findOne(clientId: string, id: string, mode: TokenMode = 'live'): Promise<DeclarationRecord> {
    // A malformed id is "not found" too (and so is a declaration of the other mode): the answer does not tell what exists.
    const record = isUuid(id) ? await this.repository.findRecord({ clientId, mode }, id.toLowerCase()) : undefined;
    if (!record) throw new NotFoundProblem('Declaration');
    return record;
  }

  async list(clientId: string, query: DeclarationsQuery, mode: TokenMode = 'live'): Promise<Page<DeclarationSummary>> {
    const filters: ListFilters = { period: query.period, status: query.status };
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let after;
    if (query.cursor !== undefined) {
      const decoded = DeclarationCursor.decode(query.cursor, filters);
      if (decoded === 'mismatch') {
        throw new Problem(
          'invalid_cursor',
          'This cursor belongs to a listing with other filters: keep period and status unchanged while paging, or start again without cursor.',
        );
      }
      if (!decoded)
        throw new Problem(
          'invalid_cursor',
          'The cursor is not one this API issued: pass next_cursor unchanged, or start again without cursor.',
        );
      after = decoded;
    }
    const rows = await this.repository.listPage({ clientId, mode, period: query.period, status: query.status, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const hasMore = rows.length > limit;
    return {
      items: page,
      hasMore,
      nextCursor: hasMore && last ? DeclarationCursor.encode({ submittedAt: last.submittedAt, id: last.id }, filters) : null,
    };
  }

  private validate(account: Account, body: unknown): ValidationResult {
    const confirmedStreams = account.confirmedAt === null ? null : account.profile.streams;
    return this.validator.validate(body, { confirmedStreams, today: parisDate(this.clock.now()) });
  }

  /**
   * Files the revision: by one statement when nothing else is written with it (`DeclarationsRepository.file`),
   * else in one transaction under the period lock: the revision bookkeeping, the lines, and what the caller
   * adds (the Idempotency-Key's response, `onStored`). Retried only on the (40-bit) receipt colliding.
   */
  private async store(
    scope: DataScope,
    declaration: ValidDeclaration,
    claim: Claim | undefined,
    origin: SubmissionOrigin,
    options: SubmitOptions,
  ): Promise<{ status: 200 | 201; declaration: DeclarationRecord; replayed: false; warnings: FieldError[] }> {
    const content: NewContent = {
      clientId: scope.clientId,
      mode: scope.mode,
      period: declaration.period,
      contentHash: declaration.contentHash,
      identityHash: declaration.identityHash,
      catalogueVersion: declaration.catalogueVersion,
      submitter: origin.submitter,
      declaredByName: origin.declaredByName ?? null,
      unitsSold: declaration.unitsSold,
    };
    const audit = auditedBy(scope.clientId, origin);
    // Warnings are said, not stored: they are no part of the content hash, only of the answer (and its replay).
    // Worked out once the revision is written: a 200-line declaration's are some 100 KB, not to be held over its round trips.
    const answer = (status: 200 | 201, record: DeclarationRecord) => ({
      status,
      declaration: record,
      replayed: false as const,
      warnings: declarationWarnings(declaration, this.catalogue),
    });
    for (let attempt = 1; ; attempt++) {
      try {
        if (!options.onStored && !claim) {
          // Nothing else to write with it: the statement compares it with the revision in force and files it, in one round trip.
          const filed = await this.repository.file(content, declaration.lines, audit);
          if (filed) return answer(filed.stored ? 201 : 200, filed.record);
        }
        return await this.repository.withPeriodLock(scope, declaration.period, async (manager, current) => {
          let record: DeclarationRecord;
          let status: 200 | 201;
          if (current && declarationIdentity(current.lines, current.unitsSold) === declaration.identityHash) {
            // The same figures as the revision in force (a material by its code or either name alike): nothing is written, the answer is that revision.
            record = current;
            status = 200;
          } else {
            // The insert supersedes the revision in force in the same statement.
            const revision = (current?.revision ?? 0) + 1;
            const stored: NewDeclaration = {
              ...content,
              revision,
              supersedes: current?.id ?? null,
              receipt: receiptFor(declaration.period, revision, scope.mode),
            };
            record = await this.repository.insert(manager, stored, declaration.lines, audit);
            await options.onStored?.(manager, record);
            status = 201;
          }
          const result = answer(status, record);
          // A claim comes only with a key, so with the answer to store for it.
          const stored = claim && { ...options.idempotency!.answer(record), warnings: result.warnings.map(publicWarning) };
          if (claim && !(await this.idempotency.complete(manager, claim, status, stored))) {
            // Our claim was taken over as stale by a retry: roll back rather than answer twice for one key.
            throw inFlight('Another request with this Idempotency-Key took over; retry to get its response.');
          }
          return result;
        });
      } catch (error) {
        if (attempt < 3 && (error as { constraint?: unknown } | undefined)?.constraint === RECEIPT_CONSTRAINT) continue;
        throw error;
      }
    }
  }
}

/**
 * Who filed, as the audit trail records it: the client (its token, named from its row by the insert,
 * or its dashboard session), or the operator.
 */
function auditedBy(clientId: string, origin: SubmissionOrigin): AuditedBy {
  const by = origin.submitter;
  if (by.type === 'token') return { actorType: 'client', operatorId: null, actorName: null, requestId: origin.requestId };
  const actor: Actor =
    by.type === 'operator'
      ? { operator: { kind: 'admin' }, requestId: origin.requestId }
      : { operator: { kind: 'client', clientId, sessionId: by.sessionId }, requestId: origin.requestId };
  return { ...actorColumns(actor), requestId: origin.requestId };
}

const inFlight = (detail: string) => new Problem('idempotency_key_in_flight', detail, { headers: { 'Retry-After': '1' } });

/** SHA-256 of the canonical JSON of the body (key order and spacing do not matter); undefined if absurdly nested. */
function requestHashOf(body: unknown): string | undefined {
  try {
    return sha256Hex(canonicalJson(body));
  } catch (error) {
    if (error instanceof TooDeepError) return undefined;
    throw error;
  }
}

/** Exact sums per stream and unit of valid lines (at most 3 decimals each: summed in thousandths), in the order the stored record gives them. */
function totalsOf(lines: ValidDeclaration['lines']): CheckedDeclaration['totals'] {
  const sums = new Map<string, bigint>();
  for (const line of lines) {
    const [whole, fraction = ''] = line.quantity.split('.');
    const key = `${line.stream}\u0000${line.unit}`;
    sums.set(key, (sums.get(key) ?? 0n) + BigInt(whole!) * 1000n + BigInt(fraction.padEnd(3, '0').slice(0, 3)));
  }
  return [...sums]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, thousandths]) => {
      const [stream, unit] = key.split('\u0000') as [string, string];
      const fraction = (thousandths % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
      return { stream, unit, quantity: `${thousandths / 1000n}${fraction ? `.${fraction}` : ''}` };
    });
}

/** A warning as the API answers it (and stores it for a replay): pointer, code, detail. */
function publicWarning({ pointer, code, detail }: FieldError): FieldError {
  return { pointer, code, detail };
}

function validationProblem(errors: FieldError[], total: number): ValidationProblem {
  return new ValidationProblem(errors, describeErrors(errors, total), total);
}
