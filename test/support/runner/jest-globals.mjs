// `import { jest } from '@jest/globals'` under jest-light-runner (typescript-hooks.mjs resolves it here): the
// runner's globals, which after-env.mjs completes.
export const { jest, expect, describe, it, test, beforeAll, afterAll, beforeEach, afterEach } = globalThis;
