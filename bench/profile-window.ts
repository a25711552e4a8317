/**
 * A preload for a measured service (`node --import dist/bench/profile-window.js`): a V8 CPU profile of
 * a window the bench chooses, rather than of the whole process (start-up, set-up and warm-up left out).
 * Over the IPC channel: `{ profile: 'start' }` starts the profiler and answers `{ profiling: true }`; `{ profile: 'stop', file }` writes
 * the profile to `file` (a `.cpuprofile`, as `--cpu-prof` writes) and answers `{ profiled: file }`.
 * The channel does not keep the process alive.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();

process.on('message', (message: { profile?: 'start' | 'stop'; file?: string }) => {
  if (message?.profile === 'start') {
    void session
      .post('Profiler.enable')
      .then(() => session.post('Profiler.start'))
      .then(() => process.send?.({ profiling: true }));
  } else if (message?.profile === 'stop' && message.file) {
    const file = message.file;
    void session
      .post('Profiler.stop')
      .then(({ profile }) => writeFile(file, JSON.stringify(profile)))
      .then(() => process.send?.({ profiled: file }));
  }
});
process.channel?.unref();
