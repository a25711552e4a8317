// CI's one jest run (.ci/run): the whole suite on the PostgreSQL server named by DATABASE_URL and the
// embedded-database tier (jest.embedded.config.js) in one pool of workers, longest files first, so that
// neither pass waits for the other's last file.
import base, { e2e, mocking, unit } from './jest.config.js';
import { embedded } from './jest.embedded.config.js';

/** @type {import('jest').Config} */
// Four workers on two cores: with three, the cores were idle about half of the run (about 650 s of CPU in
// 600 s), because many files mostly wait (the mail tests on their slow SMTP server, the child processes of the
// fault, replica, backup and embedded-database tests, Chromium, the minute windows of the rate limits); the
// other workers fill the cores while they do. (Five, tried on a machine busy with other work, starved the
// files that start services of their own.)
export default { ...base, projects: [unit, mocking, e2e, embedded], maxWorkers: 4 };
