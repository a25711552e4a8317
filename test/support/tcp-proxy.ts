import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that the test can cut and restore: the way to take the
 * database away from a running app without touching the database itself.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server | undefined;
  private up = true;

  private constructor(
    readonly port: number,
    private readonly target: net.NetConnectOpts,
  ) {}

  static async start(target: net.NetConnectOpts): Promise<TcpProxy> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new TcpProxy(port, target);
    await proxy.listen();
    return proxy;
  }

  private listen(): Promise<void> {
    this.server = net.createServer((client) => {
      if (!this.up) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    return new Promise((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  /** Every open connection is reset and new ones are refused. */
  async cut(): Promise<void> {
    this.up = false;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server!.close(resolve));
  }

  async restore(): Promise<void> {
    this.up = true;
    await this.listen();
  }

  async close(): Promise<void> {
    this.up = false;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => (this.server?.listening ? this.server.close(resolve) : resolve(undefined)));
  }
}
