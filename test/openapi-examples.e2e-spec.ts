import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { REPO_ROOT } from '../src/common/repo-root.js';
import { createClient } from './support/factories.js';
import { FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from './support/mailbox.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

// The examples an integrator copies succeed. Every request example of the published
// OpenAPI document (dist/openapi.json: explicit examples, else the example Swagger UI builds from
// the schema's property examples) and every command of the built developers' pages (English and
// French) is run against the service, with a TEST token, and must get the status the document gives
// its operation (201 where it creates something, else its 2xx response).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const run = promisify(execFile);

let t: TestApp;
let mailbox: Mailbox;
let doc: Json;
let testToken: string;
/** The client of the document's path examples (`client_id`: `exemple-sas`), created by the createClient example. */
const EXAMPLE_CLIENT = 'exemple-sas';

beforeAll(async () => {
  // The createClient example invites its client: the service sends e-mail (to an SMTP server of the test's own).
  mailbox = await startMailbox();
  t = await startTestApp({ env: { SMTP_URL: mailbox.url }, mailDelivery: FAST_MAIL_DELIVERY });
  doc = JSON.parse(await readFile(path.join(REPO_ROOT, 'dist', 'openapi.json'), 'utf8')) as Json;
});
afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const resolve = (node: Json): Json => (node.$ref ? resolve(doc.components.schemas[String(node.$ref).split('/').pop()!]) : node);

/** The example Swagger UI shows for a schema: each property's `example` (else a sample of its type). */
function sample(schemaNode: Json): unknown {
  const schema = resolve(schemaNode);
  if (schema.example !== undefined) return schema.example;
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: Json) => sample(part)));
  if (schema.oneOf) return sample(schema.oneOf[0]);
  if (schema.enum) return schema.enum[0];
  if (schema.type === 'array') return [sample(schema.items)];
  if (schema.type === 'object' || schema.properties) {
    return Object.fromEntries(
      Object.entries((schema.properties ?? {}) as Json).map(([name, property]) => [name, sample(property as Json)]),
    );
  }
  return schema.default ?? { string: 'string', integer: 0, number: 0, boolean: true }[schema.type as string];
}

/**
 * The status the document gives an operation when it succeeds: 201 where it creates something (a
 * first submission: POST /declarations also documents 200, for content identical to the current
 * revision), else its only 2xx response.
 */
function documentedStatus(method: string, route: string): number {
  const operation = doc.paths[route]?.[method];
  if (!operation) throw new Error(`${method.toUpperCase()} ${route} is not in the document`);
  const statuses = Object.keys(operation.responses)
    .filter((s) => /^2\d\d$/.test(s))
    .map(Number);
  return statuses.includes(201) ? 201 : Math.min(...statuses);
}

/** The documented route of a concrete path (`/api/v1/declarations/0b6f…` → `/api/v1/declarations/{id}`). */
function routeOf(pathname: string): string {
  const found = Object.keys(doc.paths).find((route) =>
    new RegExp(`^${route.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
  );
  if (!found) throw new Error(`${pathname} matches no route of the document`);
  return found;
}

interface RequestExample {
  operationId: string;
  method: string;
  route: string;
  contentType: string;
  name: string;
  value: unknown;
}

function requestExamples(): RequestExample[] {
  const out: RequestExample[] = [];
  for (const [route, item] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const content = (operation as Json).requestBody?.content as Json | undefined;
      if (!content) continue;
      for (const [contentType, media] of Object.entries(content) as [string, Json][]) {
        const base = { operationId: (operation as Json).operationId as string, method, route, contentType };
        if (media.examples)
          for (const [name, example] of Object.entries(media.examples as Json)) out.push({ ...base, name, value: (example as Json).value });
        else if (media.example !== undefined) out.push({ ...base, name: 'example', value: media.example });
        else out.push({ ...base, name: 'from the schema', value: sample(media.schema as Json) });
      }
    }
  }
  return out;
}

/** Who may call an operation: the operator on admin routes, else the client (here with its test token). */
const credentialFor = (route: string) => (route.startsWith('/api/v1/admin/') ? ADMIN_TOKEN : testToken);

describe('the request examples of the OpenAPI document', () => {
  it('cover both units of household packaging and a CSV upload', () => {
    const declarations = requestExamples().filter((e) => e.operationId === 'submitDeclaration');
    const json = declarations.filter((e) => e.contentType === 'application/json').map((e) => e.value as Json);
    for (const body of json) {
      const emb = (body.lines as Json[]).filter((line) => line.stream === 'EMB');
      for (const material of new Set(emb.map((line) => line.material))) {
        expect(
          emb
            .filter((line) => line.material === material)
            .map((line) => line.unit)
            .sort(),
        ).toEqual(['kg', 'uvc']);
      }
    }
    expect(declarations.some((e) => e.contentType === 'text/csv')).toBe(true);
  });

  it('all succeed with the status their operation documents', async () => {
    // The createClient example makes the client the path examples name; a test token for it.
    // The client's access changes last (suspended, reactivated, then offboarded for good), so the other examples run on an active client.
    const LAST = ['suspendClient', 'reactivateClient', 'offboardClient'];
    const rank = (operationId: string) => (operationId === 'createClient' ? -1 : LAST.indexOf(operationId));
    const examples = requestExamples().sort((a, b) => rank(a.operationId) - rank(b.operationId));
    expect(examples.length).toBeGreaterThanOrEqual(6);
    const outcomes: string[] = [];
    for (const example of examples) {
      if (example.operationId !== 'createClient' && testToken === undefined) {
        const issued = await request(t.url)
          .post(`/api/v1/admin/clients/${EXAMPLE_CLIENT}/tokens`)
          .set('authorization', `Bearer ${ADMIN_TOKEN}`)
          .send({ mode: 'test' });
        expect(issued.status).toBe(201);
        testToken = issued.body.token as string;
        await request(t.url).post(`/api/v1/admin/clients/${EXAMPLE_CLIENT}/confirm`).set('authorization', `Bearer ${ADMIN_TOKEN}`).send({});
      }
      const path = example.route.replace('{client_id}', EXAMPLE_CLIENT).replace('{stream}', 'EMB').replace('{period}', '2025-S2');
      // The half-year in the address: a declaration file's; the sales' (the product examples apply from 2026-S1).
      const query =
        example.operationId === 'recordSales'
          ? '?period=2026-S2'
          : example.operationId === 'submitDeclaration' && example.contentType === 'text/csv'
            ? '?period=2025-S2'
            : '';
      const url = path + query;
      const body = typeof example.value === 'string' ? example.value : JSON.stringify(example.value);
      const send = request(t.url)[example.method as 'post'];
      const res = await send(url)
        .set('authorization', `Bearer ${credentialFor(example.route)}`)
        .set('content-type', example.contentType)
        .send(body);
      // The import of clients is a dry run unless asked otherwise: 200 (201 is for `dry_run=false`).
      const expected = example.operationId === 'importClients' ? 200 : documentedStatus(example.method, example.route);
      outcomes.push(
        `${example.operationId} ${example.contentType} ${example.name}: ${res.status}${res.status === expected ? '' : ` (documented ${expected}): ${res.text}`}`,
      );
    }
    expect(outcomes.filter((o) => !/: (\d+)$/.test(o))).toEqual([]);
  });
});

describe('the commands of the developers’ pages', () => {
  /** The commands of a built page, as a person copies them (tags removed, entities decoded). */
  async function commandsOf(page: string): Promise<string[]> {
    const html = await readFile(path.join(REPO_ROOT, 'dist', 'site', page), 'utf8');
    const decode = (text: string) =>
      text
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
    return [...html.matchAll(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => decode(m[1]!));
  }

  it.each(['developers.html', 'fr/developers.html'])('%s: every command gets its documented status, with a test token', async (page) => {
    const { clientId } = await createClient(t);
    const issued = await request(t.url)
      .post(`/api/v1/admin/clients/${clientId}/tokens`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ mode: 'test' });
    const token = issued.body.token as string;
    const commands = await commandsOf(page);
    expect(commands.length).toBeGreaterThanOrEqual(6);
    const base = 'http://localhost:3000';
    const outcomes: string[] = [];
    for (const command of commands) {
      expect(command).toContain(base);
      const target = new URL(/(https?:\/\/[^\s"']+)/.exec(command)![1]!);
      const method = /-X (\w+)/.exec(command)?.[1]?.toLowerCase() ?? 'get';
      const expected = documentedStatus(method, routeOf(target.pathname));
      // Run as written, by bash and curl, against this service; curl's last line is the status.
      const { stdout } = await run('bash', ['-c', `${command.replaceAll(base, t.url)} -o /dev/null -w '%{http_code}'`], {
        env: { ...process.env, EPR_TOKEN: token },
      });
      outcomes.push(`${method.toUpperCase()} ${target.pathname}: ${stdout.trim()} (documented ${expected})`);
      expect({ command, status: Number(stdout.trim()) }).toEqual({ command, status: expected });
    }
    // The commands made what they say: a declaration (revision 1 by JSON, revision 2 by CSV) in the sandbox only.
    const listed = await request(t.url).get('/api/v1/declarations').set('authorization', `Bearer ${token}`);
    expect(listed.body.data.map((d: Json) => [d.mode, d.period, d.revision])).toEqual([
      ['test', '2026-S1', 2],
      ['test', '2026-S1', 1],
    ]);
    expect(outcomes.some((o) => o.startsWith('DELETE /api/v1/test-data: 204'))).toBe(true);
  });
});
