import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
import type { AppConfig } from '../config/config.js';

/** A client-supplied X-Request-Id is kept only if it is short and plain. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Anything shaped like one of our client tokens (see auth/token-format.ts) or a bearer credential. */
const TOKEN_LIKE = /\b[a-z]{2,10}_[A-Za-z0-9]{20,}_[A-Za-z0-9]{6}\b|(bearer\s+)\S+/gi;

export function scrubTokens(text: string): string {
  return text.replace(TOKEN_LIKE, (_match, bearer?: string) => `${bearer ?? ''}[REDACTED]`);
}

export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/** nestjs-pino options: one JSON line per request, request id on every line, secrets redacted. */
export function loggerParams(config: AppConfig, stream?: DestinationStream): Params {
  const options: Options = {
    level: config.logLevel,
    genReqId: requestId,
    customAttributeKeys: { reqId: 'request_id', responseTime: 'duration_ms' },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]', 'res.headers["set-cookie"]'],
      censor: '[REDACTED]',
    },
    serializers: {
      req: (req: { id: string; method: string; url: string; headers: Record<string, unknown>; raw?: IncomingMessage }) => ({
        method: req.method,
        url: scrubTokens(req.url),
        user_agent: req.headers['user-agent'],
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customProps: (req) => {
      const express = req as IncomingMessage & { route?: { path?: string }; baseUrl?: string; clientId?: string };
      return {
        route: express.route?.path ? `${express.baseUrl ?? ''}${express.route.path}` : undefined,
        client_id: express.clientId,
      };
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    // Keep the log free of anything a client sent in a message.
    customErrorMessage: (_req, res) => `request failed with ${res.statusCode}`,
    quietReqLogger: true,
  };
  return { pinoHttp: stream ? [options, stream] : options };
}
