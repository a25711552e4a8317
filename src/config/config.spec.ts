import { generateToken } from '../auth/token-format.js';
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
    });
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

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ ADMIN_TOKEN: 'too-short' }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: generateToken() }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: 'a'.repeat(40) }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: 'abcabcabc'.repeat(5) }, 'ADMIN_TOKEN'],
    [{ ADMIN_TOKEN: 'abcdefghijkl'.repeat(4) }, 'ADMIN_TOKEN'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MIGRATIONS_RUN: 'yes' }, 'MIGRATIONS_RUN'],
  ])('refuses %j, naming %s', (env, name) => {
    expect(message(env)).toMatch(new RegExp(`^\\s*${name}: `, 'm'));
  });

  it('names every bad variable at once', () => {
    const text = message({ PORT: 'abc', ADMIN_TOKEN: 'short' });
    expect(text).toContain('PORT');
    expect(text).toContain('ADMIN_TOKEN');
  });
});
