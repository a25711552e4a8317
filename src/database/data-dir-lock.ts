import { readFileSync } from 'node:fs';
import { link, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';

/** Who holds a lock: enough to tell a live owner from a dead one (or from a new process that got its pid). */
interface LockOwner {
  pid: number;
  /** The owner's start time (clock ticks since boot, /proc/<pid>/stat), null where /proc is absent. */
  started: string | null;
  host: string;
}

export class DataDirInUseError extends Error {}

/** Start time of a process, from /proc (Linux); null when unknown. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22; the command name (field 2) may hold spaces and parentheses, so count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(owner: LockOwner): boolean {
  // On another host (a shared file system) nothing can be checked: the owner is presumed alive.
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // The pid is in use: by the owner, unless it was given to a process started since.
  return owner.started === null || startTimeOf(owner.pid) === null || startTimeOf(owner.pid) === owner.started;
}

/**
 * An exclusive lock on a data directory that holds its owner's pid and start time. An owner that is
 * dead (killed, crashed) is seen at once and its lock taken over; a live owner keeps its lock however
 * long it is frozen (no staleness by age, which let a second process open the files of a paused one).
 */
export async function lockDataDir(lockPath: string): Promise<() => Promise<void>> {
  const me: LockOwner = { pid: process.pid, started: startTimeOf(process.pid), host: hostname() };
  const content = JSON.stringify(me);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // Written aside, then linked into place: the lock appears whole or not at all.
      const aside = `${lockPath}.${process.pid}`;
      await writeFile(aside, content, { mode: 0o600 });
      try {
        await link(aside, lockPath);
      } finally {
        await unlink(aside);
      }
      return async () => {
        // Only our own lock: never one another process took over.
        if ((await readFile(lockPath, 'utf8').catch(() => '')) === content) await unlink(lockPath);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await removeIfStale(lockPath);
  }
  throw new DataDirInUseError(`lock ${lockPath} is held by another process`);
}

/** Removes the lock at `lockPath` if its owner is dead; throws DataDirInUseError if it lives. */
async function removeIfStale(lockPath: string): Promise<void> {
  const info = await stat(lockPath).catch(() => undefined);
  if (!info) return;
  if (info.isDirectory()) {
    // The lock of earlier versions (proper-lockfile): a directory whose mtime its owner renewed every 5 s.
    if (Date.now() - info.mtimeMs < 15_000) throw new DataDirInUseError(`lock ${lockPath} is held by an earlier version of the service`);
    await rm(lockPath, { recursive: true, force: true });
    return;
  }
  const text = await readFile(lockPath, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  let owner: LockOwner | undefined;
  try {
    owner = JSON.parse(text) as LockOwner;
  } catch {
    // Not ours to judge: unreadable locks are removed like dead ones.
  }
  if (owner && typeof owner.pid === 'number' && isAlive(owner)) {
    throw new DataDirInUseError(`lock ${lockPath} is held by process ${owner.pid}`);
  }
  // Remove only what was read: a lock another starter has just created in its place stays.
  if ((await readFile(lockPath, 'utf8').catch(() => undefined)) === text) await unlink(lockPath).catch(() => {});
}
