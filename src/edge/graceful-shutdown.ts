import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';

/** How long requests in flight may take once a stop is requested, before connections are cut. */
export const SHUTDOWN_GRACE_MS = 25_000;

/**
 * Stops the app without dropping requests that are already on their way: the listener closes at
 * once, responses say `Connection: close`, connections that become idle are closed, and only after
 * the grace period is anything cut. (Node's `server.close()` would close every connection that has
 * no parsed request at that instant, including ones whose request bytes are not read yet.)
 */
export async function closeGracefully(app: INestApplication, draining: { value: boolean }): Promise<void> {
  const server = app.getHttpServer() as Server;
  draining.value = true;
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {};
  // Give request bytes already on their way a second to be read before idle connections are swept.
  let sweep: NodeJS.Timeout | undefined;
  const start = setTimeout(() => (sweep = setInterval(closeIdle, 250)), 1_000);
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  try {
    // The server drains before any module is torn down: Nest's close() runs the modules' destroy
    // hooks (the bearer strategies unregistered, the rate-limit counters closed) before it closes the
    // HTTP server, and a request in flight that reached a guard after them answered 500.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
  } finally {
    clearTimeout(start);
    clearInterval(sweep);
    clearTimeout(force);
  }
}
