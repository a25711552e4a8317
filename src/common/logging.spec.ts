import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../config/config.js';
import { loggerOptions, RequestLog, scrubEmails, scrubTokens } from './logging.js';

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

describe('e-mail addresses', () => {
  it.each([
    ['550 5.1.1 <compliance@kiwi.fr>: Recipient address rejected', '550 5.1.1 <[EMAIL]>: Recipient address rejected'],
    ['to compliance@xn--kiwi-rwc.fr and Éloïse.Dupont+rep@exemple.co.uk.', 'to [EMAIL] and [EMAIL].'],
    ['/api/v1/admin/clients?q=compliance%40kiwi.fr&limit=5', '/api/v1/admin/clients?q=[EMAIL]&limit=5'],
    ['"email":"a@b.c","x":1', '"email":"[EMAIL]","x":1'],
    ['kİwi@kİwi.fr', '[EMAIL]'],
    ['a@b.c@d.e', '[EMAIL]@d.e'],
  ])('%j → %j', (text, scrubbed) => {
    expect(scrubEmails(text)).toBe(scrubbed);
  });

  it.each([
    'no address here',
    '@ alone',
    'name@',
    'name@localhost',
    '@example.fr',
    'a@.fr',
    '%40',
    'user agent Mozilla/5.0 (X11; Linux)',
    'x@@y.z',
  ])('leaves %j as it is', (text) => {
    expect(scrubEmails(text)).toBe(text);
  });

  it('reads a long text once: runs of letters and separators without an address come out unchanged', () => {
    const letters = 'a'.repeat(200_000);
    expect(scrubEmails(`${letters}@`)).toBe(`${letters}@`);
    expect(scrubEmails('%40'.repeat(100_000))).toBe('%40'.repeat(100_000));
    expect(scrubEmails(`${'a@'.repeat(100_000)}b.c`)).toBe(`${'a@'.repeat(99_999)}[EMAIL]`);
  });

  it('are scrubbed from every log line, and from the URLs and user agents of the request log', () => {
    const { log, lines } = logger();
    log.error(
      { err: "Can't send mail - all recipients were rejected: 550 <compliance@kiwi.fr>" },
      'could not send mail to Compliance@Kiwi.fr',
    );
    expect(lines[0]).not.toMatch(/kiwi/i);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'could not send mail to [EMAIL]', err: expect.stringContaining('550 <[EMAIL]>') });
    expect(scrubTokens('/dashboard?e=someone@example.fr')).toBe('/dashboard?e=[EMAIL]');
  });
});

describe('the request serializer', () => {
  it('writes no header but the user agent, so no credential in a header reaches a line', () => {
    const { log, lines } = logger();
    const req = {
      method: 'GET',
      url: '/api/v1/me',
      headers: { authorization: 'Bearer opaque-credential', cookie: 'sid=opaque-cookie', 'user-agent': 'curl/8' },
    };
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

describe("a request's line", () => {
  type Fields = { method: string; url: string; headers: Record<string, string>; clientId?: string };
  /** A finished request as the HTTP server hands it over, with what its line reads. */
  function finished(fields: Fields, status: number) {
    const req = { readableAborted: false, ...fields };
    const res = Object.assign(new EventEmitter(), { req, statusCode: status, writableEnded: true });
    return { req, res };
  }
  const capture = () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    return { lines, requestLog: new RequestLog(loadConfig({ ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' }), stream) };
  };

  it.each<[string, Fields, number]>([
    ['a client', { method: 'GET', url: '/api/v1/me?x=1', headers: { 'user-agent': 'curl/8 "q"' }, clientId: 'acme' }, 200],
    ['no user agent, no route, no client', { method: 'POST', url: '/nowhere', headers: {} }, 404],
    [
      'a token-shaped client id, an address in the user agent',
      { method: 'GET', url: '/', headers: { 'user-agent': 'bot (ops@exemple.fr)' }, clientId: `abc_${'A'.repeat(32)}_BBBBBB` },
      200,
    ],
    [
      'a token and an address in the URL',
      { method: 'GET', url: `/x?t=eprc_${'A'.repeat(32)}_BBBBBB&m=a@b.fr&k=${ADMIN}`, headers: {} },
      200,
    ],
  ])('is the line pino writes for it (%s), built without pino', (_, fields, status) => {
    const { lines, requestLog } = capture();
    const { req, res } = finished(fields, status);
    if (fields.clientId) RequestLog.setRoute(req as never, '/api/v1/me');
    const id = requestLog.start(req as never, res as never);
    res.emit('close');
    res.emit('close');
    requestLog.logger.info(
      { request_id: id, req, route: fields.clientId ? '/api/v1/me' : undefined, client_id: fields.clientId, res, duration_ms: 0 },
      'request completed',
    );
    expect(lines).toHaveLength(2);
    const [built, pinos] = lines.map((l) => l.replace(/"time":\d+/, '"time":0').replace(/"duration_ms":\d+/, '"duration_ms":0'));
    expect(built).toBe(pinos);
    expect(built).not.toContain(ADMIN);
    expect(built).not.toMatch(/a@b\.fr|ops@/);
    expect(built).not.toContain('A'.repeat(32));
  });
});
