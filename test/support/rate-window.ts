/**
 * Rate limits count per minute, in windows aligned on the clock. A test that counts up to a limit
 * and crosses a window's end sees its count start again (on a busy machine a few requests can take
 * seconds): such an attempt proves nothing either way, so it is run again, from the start, with
 * fresh state (`attempt` makes its own client and tokens). A failure inside one window is a failure.
 */
export async function withinOneWindow(attempt: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    const window = Math.floor(Date.now() / 60_000);
    try {
      await attempt();
      return;
    } catch (error) {
      if (Math.floor(Date.now() / 60_000) === window || tries === 3) throw error;
    }
  }
}

/**
 * Waits for the next window when less than `needMs` is left in this one: for a test whose counts must all
 * fall in one window and that cannot be made again with fresh state (its address's count stays).
 */
export async function withTimeLeftInWindow(needMs: number): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 60_000 - needMs) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 100));
}
