import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Options } from 'pino-http';
import { loadConfig } from '../config/config.js';
import { loggerParams } from './logging.js';

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
  const [options] = loggerParams(loadConfig({ ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' }), stream).pinoHttp as [Options, unknown];
  return { log: pino(options as pino.LoggerOptions, stream), lines };
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
