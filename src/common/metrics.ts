import http from 'node:http';
import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { StartupError } from './startup.js';

/** Seconds; from a public file answered from memory (under a millisecond) to the 10 s statement timeout. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface Series {
  labels: { method: string; route: string; status: string };
  /** Observations per bucket (not cumulative), the last one past every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * `epr_http_request_duration_seconds`: a Prometheus histogram by method, route template and status,
 * kept here rather than in prom-client's Histogram, whose observe() checks and hashes the labels at
 * every call (~2 µs on this machine): here a request costs one map lookup and a few comparisons.
 * Registered in prom-client's registry as a metric of its own (`get()` is what the registry reads).
 */
class RequestDurations {
  readonly name = 'epr_http_request_duration_seconds';
  readonly help = 'HTTP requests by method, route template and status: how long from arrival to the end of the answer.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** By route, method and status: three lookups of strings the router keeps (their hash is cached), no string built. */
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = {
        labels: { method, route, status: String(status) },
        buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byStatus.set(status, series);
    }
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const { labels, buckets, sum, count } of [...this.series.values()].flatMap((m) =>
      [...m.values()].flatMap((n) => [...n.values()]),
    )) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += buckets[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/**
 * The service's Prometheus metrics (prom-client), served on METRICS_PORT only (MetricsServer), never
 * on the public port: requests by route template and status with their latency, the database pool,
 * query timeouts, e-mails, and Node's own (event-loop lag, heap, RSS, GC, handles). Made only when
 * METRICS_PORT is set; otherwise nothing is measured.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new RequestDurations();
  private readonly timeouts: Counter<'kind'>;
  private readonly mailSent: Counter;
  private readonly mailFailed: Counter;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.registry.registerMetric(this.requests as unknown as Parameters<Registry['registerMetric']>[0]);
    this.timeouts = new Counter({
      name: 'epr_db_query_timeouts_total',
      help: "Queries that timed out: kind=statement (PostgreSQL's statement_timeout cancelled it), kind=query (no answer in time: the connection was dropped).",
      labelNames: ['kind'],
      registers,
    });
    for (const kind of ['statement', 'query']) this.timeouts.labels(kind).inc(0);
    this.mailSent = new Counter({ name: 'epr_mail_sent_total', help: 'E-mails the SMTP server accepted.', registers });
    this.mailFailed = new Counter({
      name: 'epr_mail_failed_total',
      help: 'E-mails the SMTP server refused or could not be reached for.',
      registers,
    });
  }

  /** A request's answer is done (RequestLog): `route` is its template, never its path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  queryTimedOut(kind: 'statement' | 'query'): void {
    this.timeouts.labels(kind).inc();
  }

  mailDone(sent: boolean): void {
    (sent ? this.mailSent : this.mailFailed).inc();
  }

  /** The connection pool's gauges, read at each scrape. */
  watchPool(pool: pg.Pool, max: number): void {
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read());
        },
      });
    gauge('epr_db_pool_max', 'Connections the pool may open.', () => max);
    gauge('epr_db_pool_connections', 'Connections open (idle and in use).', () => pool.totalCount);
    gauge('epr_db_pool_idle', 'Connections open and idle.', () => pool.idleCount);
    gauge('epr_db_pool_waiting', 'Requests waiting for a connection (all are in use).', () => pool.waitingCount);
  }

  /**
   * The count of e-mails waiting to be sent (the mail outbox): `epr_mail_queued`, read at each scrape
   * through `count`. Not reported until something is registered here.
   */
  watchMailQueue(count: () => Promise<number> | number): void {
    new Gauge({
      name: 'epr_mail_queued',
      help: 'E-mails recorded and not yet sent.',
      registers: [this.registry],
      async collect() {
        this.set(await count());
      },
    });
  }
}

/** Injection token of the app's `Metrics`, or null when METRICS_PORT is unset. */
export const METRICS = Symbol('METRICS');

/** Serves `GET /metrics` on METRICS_HOST:METRICS_PORT, started and stopped with the app. */
@Injectable()
class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: http.Server | undefined;

  constructor(
    @Inject(METRICS) private readonly metrics: Metrics | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { metrics, config } = this;
    if (metrics === null || config.metrics === undefined) return;
    const pool = (this.dataSource.driver as unknown as { master?: pg.Pool }).master;
    if (pool) metrics.watchPool(pool, pool.options.max ?? 10);
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: GET /metrics\n');
        return;
      }
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    const { port, host } = config.metrics;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE' ? new StartupError(`METRICS_PORT ${port} is already in use on ${host}: choose a free port.`) : error,
        ),
      );
      server.listen(port, host, resolve);
    });
    this.server = server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

@Global()
@Module({})
export class MetricsModule {
  static forRoot(metrics: Metrics | undefined): DynamicModule {
    return {
      module: MetricsModule,
      providers: [{ provide: METRICS, useValue: metrics ?? null }, MetricsServer],
      exports: [METRICS],
    };
  }
}
