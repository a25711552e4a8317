import { Problem } from '../../common/problem/problem.js';

/**
 * Per-product files read and checked at once in this process, all clients together, counted by
 * their size: a file of SLOT_BYTES or more takes a whole slot (a 1,000-product file: tens of
 * megabytes for a moment), a smaller one its share (a 50-product .xlsx of 20 KB, a thirteenth), so
 * that the deadline hour's small files are not refused for the room a big one needs. They run on
 * the one thread: more at once adds memory, not throughput. Past the bound, 503
 * `service_unavailable` with `Retry-After` (the busy hour: she sends it again a few seconds later).
 */
export const SPREADSHEET_SLOTS = 2;

/** The size of file that takes a whole slot. */
export const SLOT_BYTES = 256 * 1024;

/** Seconds a refused upload is told to wait: about what one takes at its bounds. */
export const SPREADSHEET_RETRY_AFTER_S = 2;

/** Shares of a slot, in whole numbers: a file takes at least one. */
const SHARES = 64;
let inFlight = 0;

/** Takes a file's share of the slots (a whole slot without its size), or throws the 503; released by the returned function (once, however often it is called). */
export function takeSpreadsheetSlot(bytes = SLOT_BYTES): () => void {
  const shares = Math.min(SHARES, Math.max(1, Math.ceil((bytes / SLOT_BYTES) * SHARES)));
  if (inFlight + shares > SPREADSHEET_SLOTS * SHARES)
    throw new Problem(
      'service_unavailable',
      `The service is reading as many spreadsheets as it takes at once (${SPREADSHEET_SLOTS} of up to ${SLOT_BYTES / 1024} KiB); retry in ${SPREADSHEET_RETRY_AFTER_S} s.`,
      { headers: { 'Retry-After': String(SPREADSHEET_RETRY_AFTER_S) } },
    );
  inFlight += shares;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    inFlight -= shares;
  };
}

/** Runs `work` in a file's share of the slots (the 503 when there is no room), releasing it however `work` ends. */
export async function inSpreadsheetSlot<T>(bytes: number, work: () => Promise<T>): Promise<T> {
  const release = takeSpreadsheetSlot(bytes);
  try {
    return await work();
  } finally {
    release();
  }
}
