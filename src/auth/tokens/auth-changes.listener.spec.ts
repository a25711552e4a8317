import { jest } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { AuthChangesListener } from './auth-changes.listener.js';
import type { AuthenticationCache } from './authentication-cache.js';

/** The listener's probe, with a pg_notify that returns when the test says and a listening connection the test plays. */
function probeWithHeldNotify() {
  let release!: () => void;
  const dataSource = { query: () => new Promise<void>((resolve) => (release = resolve)) };
  const listener = new AuthChangesListener({} as AuthenticationCache, dataSource as unknown as DataSource);
  const internals = listener as unknown as { probe(): Promise<void>; probes: Map<string, () => void> };
  const outcome = internals.probe().then(
    () => 'came back',
    (error: Error) => error.message,
  );
  return { outcome, release: () => release(), notificationArrives: () => [...internals.probes.values()].forEach((back) => back()) };
}

describe('AuthChangesListener probe', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  // A timeout that ran while the pg_notify was held back rejected a promise nobody awaited yet: on a
  // busy pglite-socket server (a long export) that stopped the process (unhandled rejection).
  it('the wait is timed from when the notification is sent: a pg_notify held back by a busy database does not fail the probe', async () => {
    const probe = probeWithHeldNotify();
    await jest.advanceTimersByTimeAsync(6_000);
    probe.release();
    await jest.advanceTimersByTimeAsync(10);
    probe.notificationArrives();
    expect(await probe.outcome).toBe('came back');
  });

  it('a notification that does not come back within 5 s of being sent fails the probe', async () => {
    const probe = probeWithHeldNotify();
    probe.release();
    await jest.advanceTimersByTimeAsync(4_900);
    await jest.advanceTimersByTimeAsync(200);
    expect(await probe.outcome).toBe('a notification sent through the pool did not reach this connection within 5000 ms');
  });
});
