import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that the test can cut and restore, or stall: the way to take the
 * database away from a running app without touching the database itself.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server | undefined;
  private up = true;
  private stalled = false;
  /** Connections that were open during a stall: their bytes are lost for good, as behind a dead NAT entry. */
  private readonly blackholed = new WeakSet<net.Socket>();

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
      const forward = (from: net.Socket, to: net.Socket) =>
        from.on('data', (chunk: Buffer) => {
          if (this.stalled) this.blackholed.add(client);
          if (!this.blackholed.has(client)) to.write(chunk);
        });
      forward(client, upstream);
      forward(upstream, client);
    });
    return new Promise((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  /** Every open connection is reset and new ones are refused. */
  async cut(): Promise<void> {
    this.up = false;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server!.close(resolve));
  }

  /**
   * Stops forwarding without closing anything (no FIN, no RST): connections stay open and their
   * bytes are dropped, like a network path that stops answering. New connections are accepted and
   * stall too.
   */
  stall(): void {
    this.stalled = true;
  }

  /** New connections work again; the ones that lost bytes during the stall stay silent. */
  unstall(): void {
    this.stalled = false;
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
