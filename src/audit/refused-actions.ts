import { type CallHandler, type ExecutionContext, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { catchError, from, mergeMap, type Observable, throwError } from 'rxjs';
import { DataSource } from 'typeorm';
import { type Actor, AUTHENTICATED_OPERATOR, type RequestWithOperator } from '../caller/actor.js';
import { audienceOf } from '../caller/audience.js';
import { Problem, ValidationProblem } from '../common/problem/problem.js';
import { AuditTrail } from './audit-trail.js';

/** The refusals of an operator's write that the audit trail keeps: a stale version, a conflict, invalid values. */
const RECORDED_STATUSES = new Set([409, 412, 422]);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The actor name of a request to the admin API whose credential was refused. */
export const UNAUTHENTICATED_ACTOR_NAME = 'unauthenticated';

/**
 * Refused operator actions, in the audit trail as `admin.refused` (their own write: the refused
 * action's transaction, if any, rolled back): a write refused with 409, 412 or 422, and a request
 * to the admin API whose credential was refused (401, 403). Target `request` `<METHOD> <path>`
 * (never the query string), the client of the path if any; `changes` hold the status, the problem
 * code and, for 422, each problem's pointer and code. Never a value sent, a token or a detail.
 * A write that fails is logged and does not change the answer.
 */
@Injectable()
export class RefusedActions {
  private readonly logger = new Logger(RefusedActions.name);

  constructor(
    private readonly audit: AuditTrail,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Records a refused request to the admin API; `actor` null when its credential was refused. */
  async record(req: Pick<Request, 'method' | 'path' | 'params'> & { id?: unknown }, problem: Problem, actor: Actor['operator'] | null) {
    const clientId = typeof req.params?.client_id === 'string' ? req.params.client_id.slice(0, 100) : null;
    try {
      await this.audit.record(
        this.dataSource.manager,
        {
          operator: actor ?? { kind: 'anonymous', name: UNAUTHENTICATED_ACTOR_NAME },
          requestId: typeof req.id === 'string' ? req.id : null,
        },
        {
          action: 'admin.refused',
          targetType: 'request',
          targetId: `${req.method} ${req.path}`.slice(0, 300),
          clientId,
          changes: {
            status: problem.status,
            code: problem.code,
            ...(problem instanceof ValidationProblem
              ? { errors: problem.errors.slice(0, 20).map(({ pointer, code }) => ({ pointer, code })) }
              : {}),
          },
        },
      );
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'refused admin action not recorded');
    }
  }
}

/** Records the admin API's writes refused with 409, 412 or 422 (RefusedActions), then lets the refusal go on. */
@Injectable()
export class RefusedActionsInterceptor implements NestInterceptor {
  constructor(private readonly refusals: RefusedActions) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || !['admin', 'operator'].includes(audienceOf(context))) return next.handle();
    const req = context.switchToHttp().getRequest<Request & RequestWithOperator>();
    if (!WRITES.has(req.method)) return next.handle();
    return next.handle().pipe(
      catchError((error: unknown) => {
        const operator = req[AUTHENTICATED_OPERATOR];
        if (!(error instanceof Problem) || !RECORDED_STATUSES.has(error.status) || !operator) return throwError(() => error);
        return from(this.refusals.record(req, error, operator)).pipe(mergeMap(() => throwError(() => error)));
      }),
    );
  }
}
