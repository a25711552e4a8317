// The embedded-database tier (`npm run test:embedded`; CI's second pass, after `npm test` on the
// PostgreSQL server): the files where the engine under the service matters. PGlite runs in the
// service's process with one connection, so what differs from a server is start-up and the data
// directory (see below), locks and transactions on one connection, notifications, cursors and the SQL of the
// aggregates; every other file tests HTTP behaviour that is the same on both and runs once, on the server.
// The embedded database itself (data directory, its lock, restart on the same data, `npm start`) is
// tested by test/embedded-database.e2e-spec.ts and test/startup.e2e-spec.ts, which start the service on
// an embedded database of their own whatever DATABASE_URL says: they run in `npm test`'s pass.
import base, { e2e } from './jest.config.js';

/** The tier as a jest project: CI runs it beside the server's in one pool of workers (jest.ci.config.js). */
export const embedded = {
  ...e2e,
  displayName: 'embedded',
  // Each file of the tier sees no DATABASE_URL, whatever the run's environment says (test/support/embedded-tier.ts).
  setupFiles: [...e2e.setupFiles, '<rootDir>/test/support/embedded-tier.ts'],
  testMatch: [
    // Revisions, the per-(client, period) lock and Idempotency-Key on one connection.
    '<rootDir>/test/declarations.e2e-spec.ts',
    // No kept authentications where notifications reach only the committing connection.
    '<rootDir>/test/me-from-memory.e2e-spec.ts',
    // Sessions judged by the database's clock.
    '<rootDir>/test/dashboard/sessions.e2e-spec.ts',
    // Streamed exports (a cursor) and the aggregates of the annual filing and of derived declarations.
    '<rootDir>/test/admin/period-export.e2e-spec.ts',
    '<rootDir>/test/admin/annual-export.e2e-spec.ts',
    '<rootDir>/test/products.e2e-spec.ts',
    // The exports' per-product detail: lateral joins over the derivations, and a second cursor on the annual export's snapshot.
    '<rootDir>/test/admin/export-products.e2e-spec.ts',
    // The mail outbox: rows claimed with FOR UPDATE SKIP LOCKED while requests write on the same connection.
    '<rootDir>/test/admin/mail-outbox.e2e-spec.ts',
  ],
};

/** @type {import('jest').Config} */
export default { ...base, projects: [embedded] };
