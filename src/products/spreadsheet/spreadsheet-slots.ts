import { Problem } from '../../common/problem/problem.js';

/**
 * Per-product files read and checked at once in this process, all clients together. One file's
 * read, derivation, check and page take tens of megabytes for a moment and run on the one thread:
 * more at once adds memory, not throughput. Past the bound, 503 `service_unavailable` with
 * `Retry-After` (the busy hour: she sends it again a few seconds later).
 */
export const SPREADSHEET_SLOTS = 2;

/** Seconds a refused upload is told to wait: about what one takes at its bounds. */
export const SPREADSHEET_RETRY_AFTER_S = 2;

let inFlight = 0;

/** Takes a slot, or throws the 503; the slot is released by the returned function (once, however often it is called). */
export function takeSpreadsheetSlot(): () => void {
  if (inFlight >= SPREADSHEET_SLOTS)
    throw new Problem(
      'service_unavailable',
      `The service is reading as many spreadsheets as it takes at once (${SPREADSHEET_SLOTS}); retry in ${SPREADSHEET_RETRY_AFTER_S} s.`,
      { headers: { 'Retry-After': String(SPREADSHEET_RETRY_AFTER_S) } },
    );
  inFlight++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    inFlight--;
  };
}

/** Runs `work` in a slot (the 503 when none is free), releasing it however `work` ends. */
export async function inSpreadsheetSlot<T>(work: () => Promise<T>): Promise<T> {
  const release = takeSpreadsheetSlot();
  try {
    return await work();
  } finally {
    release();
  }
}
