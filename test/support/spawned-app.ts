import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { REPO_ROOT } from '../../src/common/repo-root.js';
import { ADMIN_TOKEN, freePort } from './test-app.js';

export interface SpawnedApp {
  url: string;
  process: ChildProcess;
  output: string[];
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The built service (`node dist/src/main.js`) as its own process, as in production. */
export async function spawnApp(env: Record<string, string>): Promise<SpawnedApp> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/src/main.js')], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ADMIN_TOKEN, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = once(child, 'exit');
  // Generous: the embedded database starts in ~3 s on a quiet machine, far slower on a busy one (four
  // jest workers on two cores, each maybe with a child process of its own).
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output.join('')}`);
    try {
      if ((await fetch(`${url}/health/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not become ready:\n${output.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: child,
    output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** `node dist/src/main.js` with this environment only (and PATH); resolves with its exit code and output. */
export async function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/src/main.js')], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

/** A measured figure (RSS, delays): printed only with TEST_FIGURES=1, so that a green run stays quiet. */
export function reportFigure(text: string): void {
  if (process.env.TEST_FIGURES) console.log(text);
}
