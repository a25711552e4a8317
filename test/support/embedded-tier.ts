// The embedded-database tier's files run on embedded databases even in a run that names a server: CI runs
// them in the same jest run as the server's files (jest.ci.config.js). This is the test file's own copy of
// the environment (test-app.ts reads it), not the worker's.
delete process.env.DATABASE_URL;
