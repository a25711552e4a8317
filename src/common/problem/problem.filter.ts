import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { allowedMethods } from '../http/allowed-methods.js';
import { declaresBody } from '../http/request-body.js';
import { requestId } from '../logging.js';
import { PAGE_PROBLEMS, type PageProblems, SITE_NOT_FOUND } from './page-problems.js';
import { type FieldError, PROBLEM_TYPES, Problem, type ProblemCode, publicFieldError } from './problem.js';
import { isDatabaseUnavailable, isStatementTimeout } from './database-errors.js';
import { PROBLEM_CONTENT_TYPE } from './problem-content-type.js';

/**
 * Turns every error into `application/problem+json` (RFC 9457), or into a page where PAGE_PROBLEMS
 * says a person reads the answer (the pages layer provides it: AppModule). Client mistakes keep their
 * 4xx; anything unexpected becomes a generic 500 that carries only the request id (the error itself
 * goes to the request's log line).
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(PAGE_PROBLEMS) private readonly pages: PageProblems,
    @Optional() @Inject(SITE_NOT_FOUND) private readonly siteNotFound?: PageProblems,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const problem = this.toProblem(exception, req);
    if (problem.status >= 500) {
      // pino-http logs `res.err` with the request line, at error level.
      (res as Response & { err?: Error }).err = exception instanceof Error ? exception : new Error(String(exception));
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    const instance = `urn:request:${String(req.id ?? (req.id = requestId(req, res)))}`;
    const body = {
      type: `${this.config.publicBaseUrl}/problems/${problem.code.replace(/_/g, '-')}`,
      title: problem.title,
      status: problem.status,
      detail: problem.detail,
      instance,
      code: problem.code,
      ...problem.extensions,
      // `params` of each field error are for the dashboard's messages, not part of the API's answer.
      ...(Array.isArray(problem.extensions.errors) ? { errors: (problem.extensions.errors as FieldError[]).map(publicFieldError) } : {}),
    };
    res.status(problem.status);
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    // A body still arriving (refused before it was read: 401, 404, 413 on its Content-Length…):
    // close the connection after this answer rather than read and discard whatever is sent.
    if (!req.complete && declaresBody(req)) res.setHeader('Connection', 'close');
    if (this.pages.handles(req)) {
      // A dashboard page: the problem as a page (or a redirect to sign in).
      this.pages.render(req, res, problem, instance);
      return;
    }
    if (problem.code === 'not_found' && this.siteNotFound?.handles(req)) {
      // A person who mistyped a site address: a page in the path's language, with links back.
      this.siteNotFound.render(req, res, problem, instance);
      return;
    }
    res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
    if (!res.getHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
    res.send(req.method === 'HEAD' ? undefined : JSON.stringify(body));
  }

  private toProblem(exception: unknown, req: Request): Problem {
    if (exception instanceof Problem) return exception;
    if (isDatabaseUnavailable(exception)) {
      return new Problem('service_unavailable', 'The database is unreachable; retry shortly.', {
        headers: { 'Retry-After': '5' },
      });
    }
    if (isStatementTimeout(exception)) {
      // The database is busy (a statement waited or ran past its timeout): not the client's fault, worth retrying.
      return new Problem('service_unavailable', 'The database took too long to answer; retry shortly.', {
        headers: { 'Retry-After': '5' },
      });
    }
    if (exception instanceof HttpException) return this.fromHttpException(exception, req);
    return new Problem('internal_error', 'An unexpected error occurred. Quote the request id when reporting it.');
  }

  private fromHttpException(exception: HttpException, req: Request): Problem {
    const status = exception.getStatus();
    const cause = exception.cause as { type?: string } | undefined;
    switch (status) {
      case 400:
        if (cause instanceof SyntaxError || cause?.type === 'entity.parse.failed') {
          return new Problem('malformed_json', 'The request body is not valid JSON.');
        }
        if (cause instanceof URIError) return new Problem('bad_request', 'The request path is not correctly encoded.');
        return new Problem('bad_request', messageOf(exception));
      case 404: {
        const allow = allowedMethods(this.adapterHost.httpAdapter.getInstance(), req.path);
        // A route of this method that found nothing (e.g. a file refused under /docs) is a 404, not a 405.
        if (allow.length > 0 && !allow.includes(req.method)) {
          return new Problem('method_not_allowed', `${req.method} is not supported on ${req.path}; use ${allow.join(', ')}.`, {
            headers: { Allow: allow.join(', ') },
          });
        }
        return new Problem('not_found', `No route matches ${req.method} ${req.path}.`);
      }
      case 413:
        return new Problem('payload_too_large', 'The request body exceeds the limit of 1 MiB.');
      case 415:
        return new Problem('unsupported_media_type', messageOf(exception));
      case 503: {
        // Terminus readiness: report each check's status, never its error text.
        const details = (exception.getResponse() as { details?: Record<string, { status?: string }> }).details ?? {};
        const checks = Object.fromEntries(Object.entries(details).map(([name, value]) => [name, { status: value.status ?? 'down' }]));
        return new Problem('service_unavailable', 'A dependency of the service is unavailable.', {
          extensions: { checks },
          headers: { 'Retry-After': '5' },
        });
      }
      case 429:
        return new Problem('rate_limited', 'Too many requests; slow down and retry after the delay given in Retry-After.');
      default: {
        const code = (Object.keys(PROBLEM_TYPES) as ProblemCode[]).find((key) => PROBLEM_TYPES[key].status === status);
        if (code && status < 500) return new Problem(code, messageOf(exception));
        return new Problem('internal_error', 'An unexpected error occurred. Quote the request id when reporting it.');
      }
    }
  }
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return Array.isArray(message) ? message.join('; ') : String(message ?? exception.message);
}
