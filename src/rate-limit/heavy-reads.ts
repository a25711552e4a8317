import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { finalize, type Observable } from 'rxjs';
import type { RequestWithOperator } from '../caller/actor.js';
import type { RequestWithClient } from '../caller/current-client.js';
import { Problem } from '../common/problem/problem.js';
import { POOL_SIZE } from '../database/database-options.js';
import { tracker } from './throttlers.js';

/**
 * Reads whose work grows with a catalogue or a period (the derived preview and its contributions,
 * the operator's derivation and exports) in flight at once per caller (as the rate limits count
 * them: a client, its sandbox, an operator identity). Each is bounded in memory and chunked; this
 * bounds how many one caller can stack on the process and on the database's connections.
 */
export const HEAVY_READS_PER_CALLER = 2;

/**
 * Heavy reads in flight at once in this process, all callers together: fewer than half its
 * database connections (POOL_SIZE), so that however many callers read at once, every other request
 * still finds a connection, and the process's memory and event loop carry at most this many.
 */
export const HEAVY_READS_PER_PROCESS = Math.floor(POOL_SIZE / 2) - 1;

/** What the OpenAPI document says of the process's bound, after the caller's. */
export const HEAVY_READS_PER_PROCESS_TEXT = `At most ${HEAVY_READS_PER_PROCESS} heavy reads of all callers together run at once in a process: another answers 503 \`service_unavailable\` with \`Retry-After\`.`;

/** Seconds a refused heavy read is told to wait: about what one takes at the catalogue's bounds. */
const RETRY_AFTER_S = 2;

/** Heavy reads in flight per caller, in this process (one map whichever module's instance of the interceptor counts). */
const inFlight = new Map<string, number>();
/** Heavy reads in flight in this process. */
let total = 0;

/**
 * Counts the heavy reads in flight per caller and refuses one more with 429 `rate_limited` and
 * `Retry-After` (that caller asks too much); counts them in the process too and refuses one beyond
 * HEAVY_READS_PER_PROCESS with 503 `service_unavailable` and `Retry-After` (the service is busy,
 * whoever asks: no fault of this caller's). The counts are per process: what they protect (memory,
 * event loop, this process's pool of connections) is per process too; N replicas allow N × the
 * bounds, each within its means.
 */
@Injectable()
export class HeavyReadsInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const key = tracker(http.getRequest<Request & RequestWithClient & RequestWithOperator>());
    const count = inFlight.get(key) ?? 0;
    if (count >= HEAVY_READS_PER_CALLER) {
      throw new Problem(
        'rate_limited',
        `At most ${HEAVY_READS_PER_CALLER} heavy reads (derived previews, their contributions, derivations, exports) run at once per caller; retry in ${RETRY_AFTER_S} s.`,
        { headers: { 'Retry-After': String(RETRY_AFTER_S) } },
      );
    }
    if (total >= HEAVY_READS_PER_PROCESS) {
      throw new Problem(
        'service_unavailable',
        `The service is running as many heavy reads (derived previews, their contributions, derivations, exports) as it takes at once; retry in ${RETRY_AFTER_S} s.`,
        { headers: { 'Retry-After': String(RETRY_AFTER_S) } },
      );
    }
    inFlight.set(key, count + 1);
    total++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      total--;
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    };
    // Released once the answer's last byte is handed to the system (`finish`: before the caller can
    // have it, so that a caller reading one after the other is never refused), or the caller is gone,
    // or the handler is done (a streamed answer's handler still commits its snapshot after `finish`).
    const res = http.getResponse<Response>();
    res.once('finish', release);
    res.once('close', release);
    return next.handle().pipe(finalize(release));
  }
}

/** Marks a route as a heavy read (HeavyReadsInterceptor), after authentication. */
export const HeavyRead = () => UseInterceptors(HeavyReadsInterceptor);
