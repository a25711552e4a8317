/**
 * A preload for a measured service (`node --import dist/bench/profile-window.js`): a V8 profile of a
 * window the bench chooses, rather than of the whole process (start-up, set-up and warm-up left out).
 * Over the IPC channel: `{ profile: 'start' }` starts the profiler and answers `{ profiling: true }`;
 * `{ profile: 'stop', file }` writes the profile to `file` and answers `{ profiled: file }`. A CPU profile
 * (`.cpuprofile`, as `--cpu-prof` writes), or with BENCH_PROFILE=heap a sampling heap profile
 * (`.heapprofile`: every allocation of the window, what the garbage collector took back included).
 * The channel does not keep the process alive.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
const heap = process.env.BENCH_PROFILE === 'heap';

async function start(): Promise<void> {
  if (heap) {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  } else {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
}

async function stop(file: string): Promise<void> {
  const { profile } = heap ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
  await writeFile(file, JSON.stringify(profile));
}

process.on('message', (message: { profile?: 'start' | 'stop'; file?: string }) => {
  if (message?.profile === 'start') void start().then(() => process.send?.({ profiling: true }));
  else if (message?.profile === 'stop' && message.file) {
    const file = message.file;
    void stop(file).then(() => process.send?.({ profiled: file }));
  }
});
process.channel?.unref();
