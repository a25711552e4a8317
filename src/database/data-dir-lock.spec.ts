import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';

describe('lockDataDir', () => {
  let dir: string;
  let lockPath: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'epr-lock-'));
    lockPath = path.join(dir, 'lock');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const ownLock = async () => JSON.parse(await readFile(lockPath, 'utf8')) as { pid: number; started: string | null; host: string };

  it('holds the owner pid and start time, private, and releases only its own lock', async () => {
    const release = await lockDataDir(lockPath);
    const owner = await ownLock();
    expect(owner).toEqual({ pid: process.pid, started: expect.stringMatching(/^\d+$/), host: hostname() });
    expect((await stat(lockPath)).mode & 0o777).toBe(0o600);
    await expect(lockDataDir(lockPath)).rejects.toBeInstanceOf(DataDirInUseError);
    await release();
    await expect(stat(lockPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes over at once the lock of a dead process, or of a pid now given to another process', async () => {
    await writeFile(lockPath, JSON.stringify({ pid: 2 ** 22 + 1, started: '1', host: hostname() }));
    const release = await lockDataDir(lockPath);
    expect((await ownLock()).pid).toBe(process.pid);
    await release();
    // Our own pid, but another start time: the owner it names is gone.
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, started: '1', host: hostname() }));
    await (
      await lockDataDir(lockPath)
    )();
  });

  it('never takes the lock of a live owner, however old', async () => {
    const release = await lockDataDir(lockPath);
    const old = new Date(Date.now() - 3_600_000);
    await utimes(lockPath, old, old);
    await expect(lockDataDir(lockPath)).rejects.toBeInstanceOf(DataDirInUseError);
    await release();
  });

  it("an earlier version's lock directory: refused while renewed, removed once 15 s old", async () => {
    await mkdir(lockPath);
    await expect(lockDataDir(lockPath)).rejects.toBeInstanceOf(DataDirInUseError);
    const old = new Date(Date.now() - 20_000);
    await utimes(lockPath, old, old);
    await (
      await lockDataDir(lockPath)
    )();
  });
});
