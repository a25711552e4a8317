import { parseClientToken } from '../common/token-format.js';
import { ConfigError, loadConfig } from './config.js';

const message = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      dataDir: './data',
      adminToken: undefined,
      publicBaseUrl: 'http://localhost:3000',
      referenceBaseUrl: 'http://localhost:3000/api/v1',
      clientBaseUrl: 'http://localhost:3000/api/v1',
      logLevel: 'info',
      migrationsRun: true,
      rateLimits: { client: 600, clientWrite: 60, admin: 120, authFailures: 60, signIn: 10, signInEmails: 3 },
      trustProxy: false,
      mail: { smtpUrl: undefined, from: 'no-reply@localhost' },
    });
  });

  it('reads the rate limits per minute', () => {
    const config = loadConfig({
      RATE_LIMIT_CLIENT_PER_MINUTE: '1000',
      RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '100',
      RATE_LIMIT_OPERATOR_PER_MINUTE: '30',
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '5',
      RATE_LIMIT_SIGN_IN_PER_MINUTE: '7',
      RATE_LIMIT_SIGN_IN_EMAILS_PER_MINUTE: '2',
    });
    expect(config.rateLimits).toEqual({ client: 1000, clientWrite: 100, admin: 30, authFailures: 5, signIn: 7, signInEmails: 2 });
  });

  it('reads the mail settings: SMTP_URL (smtp or smtps only) and MAIL_FROM, else a sender at the public host', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://user:pw@mail.example.org:465', MAIL_FROM: 'dashboard@example.org' }).mail).toEqual({
      smtpUrl: 'smtps://user:pw@mail.example.org:465',
      from: 'dashboard@example.org',
    });
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://epr.example.org' }).mail.from).toBe('no-reply@epr.example.org');
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.org' })).toThrow(/SMTP_URL/);
    expect(() => loadConfig({ MAIL_FROM: 'not an address' })).toThrow(/MAIL_FROM/);
  });

  it('reads the display name of the sender, MAIL_FROM_NAME: a plain name, else the service’s name in each mail’s language', () => {
    expect(loadConfig({}).mail.fromName).toBeUndefined();
    expect(loadConfig({ MAIL_FROM_NAME: ' Conformité Emballages ' }).mail.fromName).toBe('Conformité Emballages');
    for (const wrong of ['Evil\r\nBcc: x@example.org', 'A <b@example.org>', 'Say "hi"', 'x'.repeat(101)]) {
      expect(() => loadConfig({ MAIL_FROM_NAME: wrong })).toThrow(/MAIL_FROM_NAME/);
    }
  });

  it.each([
    ['true', true],
    ['false', false],
    ['1', 1],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.7, ::1/128', ['10.0.0.0/8', '192.168.1.7', '::1/128']],
  ])('reads TRUST_PROXY=%j as Express trust proxy %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('derives the bases from PUBLIC_BASE_URL (without a trailing slash) unless they are given', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://epr.example.org/', CLIENT_BASE_URL: 'https://api.example.org/api/v1' });
    expect(config.publicBaseUrl).toBe('https://epr.example.org');
    expect(config.referenceBaseUrl).toBe('https://epr.example.org/api/v1');
    expect(config.clientBaseUrl).toBe('https://api.example.org/api/v1');
  });

  it('treats an empty variable as unset and ignores unknown ones', () => {
    expect(loadConfig({ ADMIN_TOKEN: '', SOMETHING_ELSE: 'x' }).adminToken).toBeUndefined();
  });

  // A client token, fixed rather than generated: a case's name shows its value, and a test is found
  // again by its name (`npx stryker run` runs a mutant's tests by their names in its dry run).
  const clientToken = 'eprc_fJz9blF2tY2HxQuqKG4s77eRQT1uX4XI_044WuR';
  it('has a client token to refuse as ADMIN_TOKEN', () => {
    expect(parseClientToken(clientToken).ok).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ ADMIN_TOKEN: 'too-short' }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: clientToken }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: 'a'.repeat(40) }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: 'abcabcabc'.repeat(5) }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: 'abcdefghijkl'.repeat(4) }, 'ADMIN_TOKEN'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MIGRATIONS_RUN: 'yes' }, 'MIGRATIONS_RUN'],
    [{ RATE_LIMIT_CLIENT_PER_MINUTE: '0' }, 'RATE_LIMIT_CLIENT_PER_MINUTE'],
    [{ RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '2.5' }, 'RATE_LIMIT_CLIENT_WRITES_PER_MINUTE'],
    [{ RATE_LIMIT_OPERATOR_PER_MINUTE: 'many' }, 'RATE_LIMIT_OPERATOR_PER_MINUTE'],
    [{ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '-1' }, 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'loopback, proxy.example.org' }, 'TRUST_PROXY'],
    [{ METRICS_PORT: '0' }, 'METRICS_PORT'],
    [{ METRICS_PORT: 'nine' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT'],
    [{ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT'],
  ])('refuses %j, naming %s', (env, name) => {
    expect(message(env)).toMatch(new RegExp(`^\\s*${name}: `, 'm'));
  });

  it('reads CONTACT_EMAIL, refuses one that is not an address, and stops a production start without it', () => {
    expect(loadConfig({}).contactEmail).toBeUndefined();
    expect(loadConfig({ CONTACT_EMAIL: 'contact@exemple.fr' }).contactEmail).toBe('contact@exemple.fr');
    expect(loadConfig({ NODE_ENV: 'production', CONTACT_EMAIL: 'contact@exemple.fr' }).contactEmail).toBe('contact@exemple.fr');
    expect(message({ CONTACT_EMAIL: 'nobody' })).toMatch(/^\s*CONTACT_EMAIL: must be an e-mail address/m);
    expect(message({ NODE_ENV: 'production' })).toMatch(/^\s*CONTACT_EMAIL: must be set in production/m);
  });

  it('reads METRICS_PORT (unset: no metrics) and METRICS_HOST (loopback unless said)', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ port: 9464, host: '0.0.0.0' });
  });

  it('names every bad variable at once', () => {
    const text = message({ PORT: 'abc', ADMIN_TOKEN: 'short' });
    expect(text).toContain('PORT');
    expect(text).toContain('ADMIN_TOKEN');
  });
});
