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
