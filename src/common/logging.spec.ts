import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../config/config.js';
import { loggerOptions, RequestLog } from './logging.js';

const ADMIN = 'Adm1n-Secret-Value-0123456789-abcdefghij';

/** A pino logger with the service's options, writing into an array. */
function logger(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { log: pino(loggerOptions(loadConfig({ ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' })), stream), lines };
}

describe('log lines', () => {
  it('never hold the admin token or a token-shaped string, whoever writes them', () => {
    const { log, lines } = logger();
    const token = 'eprc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_BBBBBB';
    log.warn({ detail: `x${ADMIN}y`, nested: { header: `Bearer ${token}` } }, `failed with ${ADMIN} and ${token}`);
    log.error(new Error(`connect failed: password=${ADMIN}`));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toContain(ADMIN);
      expect(line).not.toContain(token);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(JSON.parse(lines[0]!).msg).toBe('failed with [REDACTED] and [REDACTED]');
  });
});

describe('the request serializer', () => {
  it('writes no header but the user agent, so no credential in a header reaches a line', () => {
    const { log, lines } = logger();
    const req = { method: 'GET', url: '/api/v1/me', headers: { authorization: 'Bearer opaque-credential', cookie: 'sid=opaque-cookie', 'user-agent': 'curl/8' } };
    log.info({ req, res: { statusCode: 200 } }, 'request completed');
    const line = JSON.parse(lines[0]!);
    expect(line.req).toEqual({ method: 'GET', url: '/api/v1/me', user_agent: 'curl/8' });
    expect(line.res).toEqual({ status: 200 });
    expect(lines[0]).not.toMatch(/opaque|authorization|cookie/i);
  });
});

describe('lines written while a request is handled', () => {
  it('carry its request id (no child logger per request), and only then', () => {
    const { log, lines } = logger();
    const requestLog = new RequestLog(loadConfig({ LOG_LEVEL: 'info' }), new Writable({ write: (_c, _e, cb) => cb() }));
    requestLog.run('req-42', () => log.warn({ context: 'Tokens' }, 'inside'));
    log.warn('outside');
    requestLog.run('req-43', () => log.info({ request_id: 'own' }, 'own id'));
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ request_id: 'req-42', context: 'Tokens', msg: 'inside' }),
      expect.not.objectContaining({ request_id: expect.anything() }),
      expect.objectContaining({ request_id: 'own', msg: 'own id' }),
    ]);
  });
});
