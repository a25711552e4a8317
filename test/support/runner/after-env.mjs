// Jest's first `setupFilesAfterEnv` entry under jest-light-runner: what its `jest` global lacks and the suite
// uses (fake timers' async advance and count), and jest's `testTimeout`, which the runner does not apply.
import { ModernFakeTimers } from '@jest/fake-timers';
import { TEST_TIMEOUT } from './settings.mjs';

const timers = new ModernFakeTimers({ config: { fakeTimers: { enableGlobally: true } }, global: globalThis });
Object.assign(globalThis.jest, {
  useFakeTimers() {
    timers.useFakeTimers();
    return globalThis.jest;
  },
  useRealTimers() {
    timers.useRealTimers();
    return globalThis.jest;
  },
  setSystemTime(time) {
    timers.setSystemTime(time);
    return globalThis.jest;
  },
  advanceTimersByTime(ms) {
    timers.advanceTimersByTime(ms);
    return globalThis.jest;
  },
  advanceTimersByTimeAsync: (ms) => timers.advanceTimersByTimeAsync(ms),
  getTimerCount: () => timers.getTimerCount(),
});

const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/** `fn` (a test or a hook, with a done callback or a promise) failed after `ms`, as jest fails it. */
function bounded(fn, ms = TEST_TIMEOUT, { rows = false } = {}) {
  if (typeof fn !== 'function') return fn;
  const run =
    !rows && fn.length >= 1
      ? (self) => new Promise((resolve, reject) => fn.call(self, (error) => (error ? reject(error) : resolve())))
      : null;
  return function boundedFn(...args) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = realSetTimeout(() => reject(new Error(`Exceeded timeout of ${ms} ms for a test or hook.`)), ms);
    });
    const work = Promise.resolve().then(() => (run ? run(this) : fn.apply(this, args)));
    return Promise.race([work, timeout]).finally(() => realClearTimeout(timer));
  };
}

/** `test`, `test.only` and their `.each`, each function bounded; `skip` and `todo` as they are. */
function withTimeouts(register) {
  const wrapped = (name, fn, timeout) => register(name, bounded(fn, timeout), timeout);
  Object.assign(wrapped, register);
  wrapped.each =
    (...table) =>
    (name, fn, timeout) =>
      register.each(...table)(name, bounded(fn, timeout, { rows: true }), timeout);
  if (register.only) wrapped.only = withTimeouts(register.only);
  return wrapped;
}

// The runner's own globals (the jest-circus instance its worker collects tests in), bounded.
globalThis.it = globalThis.test = withTimeouts(globalThis.test);
for (const hook of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach']) {
  const register = globalThis[hook];
  globalThis[hook] = (fn, timeout) => register(bounded(fn, timeout), timeout);
}
