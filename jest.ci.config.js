// CI's one jest run (.ci/run): the whole suite on the PostgreSQL server named by DATABASE_URL and the
// embedded-database tier (jest.embedded.config.js) in one pool of workers, longest files first, so that
// neither pass waits for the other's last file.
import base, { e2e, unit } from './jest.config.js';
import { embedded } from './jest.embedded.config.js';

/** @type {import('jest').Config} */
// Three workers on two cores: a third of the run's files mostly wait (the mail tests on their slow SMTP
// server, the child processes of the fault, replica, backup and embedded-database tests, Chromium), and
// a third worker fills the cores while they do.
export default { ...base, projects: [unit, e2e, embedded], maxWorkers: 3 };
