// Jest's `setupFiles` entry for jest-light-runner, which runs test files in plain Node.js workers (no `vm`
// module graph per file; jest.config.js says why): TypeScript compiled by SWC as each module loads (settings.mjs),
// a source's `./x.js` import found as `./x.ts`, and `@jest/globals` answered by the runner's globals. Synchronous hooks in the worker's own thread (`module.registerHooks`).
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';
import { SWC_JSC } from './settings.mjs';

const JEST_GLOBALS = new URL('./jest-globals.mjs', import.meta.url).href;

const SWC_OPTIONS = { jsc: SWC_JSC, module: { type: 'es6' }, sourceMaps: 'inline' };

process.setSourceMapsEnabled(true);

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === '@jest/globals') return { url: JEST_GLOBALS, shortCircuit: true };
    if (specifier.startsWith('.') && specifier.endsWith('.js') && /\.ts(\?.*)?$/.test(context.parentURL ?? '')) {
      const typescript = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      if (existsSync(typescript)) return { url: typescript.href, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !/\.ts(\?|$)/.test(url)) return nextLoad(url, context);
    const filename = fileURLToPath(url.replace(/\?.*$/, ''));
    const { code } = transformSync(readFileSync(filename, 'utf8'), { ...SWC_OPTIONS, filename });
    return { format: 'module', source: code, shortCircuit: true };
  },
});
