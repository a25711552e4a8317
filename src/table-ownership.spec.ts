import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './common/repo-root.js';
import { repoFiles } from '../test/support/repo-files.js';

// Each table has one owning module, the only one whose files write it; another module reads it
// through the owner's repository (exported by the owner's module) or a read model the owner exposes
// (`*.read-model.ts`, SQL that runs in the caller's snapshot). The import rules cannot see SQL, so
// this reads it: the string and template literals of src/ (comments never count), matched for
// FROM / JOIN (a read) and INSERT INTO / UPDATE / DELETE FROM / TRUNCATE (a write) of a table the
// migrations create, and TypeORM calls on an entity (`manager.save(manager.create(X, …))`).

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const files = repoFiles();

/** The tables the migrations create. */
const TABLES = new Set(
  files
    .filter((f) => /^migrations\/\d+-[\w-]+\.ts$/.test(f))
    .flatMap((f) =>
      [...read(f).matchAll(/\bCREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z_][a-z0-9_]*)/g)].map((m) => m[1]!),
    ),
);

/** The running service's sources (specs and test support left out). */
const SOURCES = files.filter((f) => /^src\/.+\.ts$/.test(f) && !/\.spec\.ts$|\/test-support\.ts$/.test(f));

/** A file's module: its folder under src/ (`src/declarations/reminders/reminders.repository.ts` → `declarations`); `edge` for the files at the root. */
const moduleOf = (file: string) => (file.split('/').length > 2 ? file.split('/')[1]! : 'edge');

type Access = 'read' | 'write';
interface Touch {
  file: string;
  table: string;
  access: Access;
}

/** SQL keywords (upper case, as the code writes them) followed by a table: the keyword says read or write. */
const SQL_TABLE = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?|FROM|JOIN)\s+(?:ONLY\s+)?"?([a-z_][a-z0-9_]*)"?/g;
/** TypeORM calls that write an entity's table; any other call with an entity as first argument reads it. */
const ENTITY_WRITES = new Set(['save', 'insert', 'update', 'upsert', 'delete', 'remove', 'increment', 'decrement', 'create']);

/** The table of each entity class (`@Entity({ name: 'clients' })`), and the file that declares it. */
const ENTITIES = new Map<string, { table: string; file: string }>();
for (const file of SOURCES.filter((f) => read(f).includes('@Entity('))) {
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) && node.name) {
      for (const decorator of ts.getDecorators(node) ?? []) {
        const call = decorator.expression;
        if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression) || call.expression.text !== 'Entity') continue;
        const options = call.arguments[0];
        const name =
          options && ts.isObjectLiteralExpression(options)
            ? options.properties.find((p) => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'name')
            : undefined;
        if (name && ts.isPropertyAssignment(name) && ts.isStringLiteral(name.initializer)) {
          ENTITIES.set(node.name.text, { table: name.initializer.text, file });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true));
}

/** The tables a source file's SQL and TypeORM calls touch. */
function touches(file: string): Touch[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  // Constants of the file holding SQL, so that `FROM ${CURRENT_LINES}` reads the constant's tables too.
  const constants = new Map<string, ts.Expression>();
  const found: Touch[] = [];
  const text = (node: ts.Node, depth = 0): string => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) {
      return (
        node.head.text +
        node.templateSpans
          .map((span) => {
            const inlined = ts.isIdentifier(span.expression) ? constants.get(span.expression.text) : undefined;
            return (inlined && depth < 5 ? text(inlined, depth + 1) : ' _ ') + span.literal.text;
          })
          .join('')
      );
    }
    return '';
  };
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) constants.set(node.name.text, node.initializer);
    ts.forEachChild(node, collect);
  };
  const visit = (node: ts.Node): void => {
    const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node);
    if (literal) {
      for (const [, keyword, table] of text(node).matchAll(SQL_TABLE)) {
        if (TABLES.has(table!)) found.push({ file, table: table!, access: /^(FROM|JOIN)$/.test(keyword!) ? 'read' : 'write' });
      }
      return;
    }
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isIdentifier(node.arguments[0])) {
      const table = ENTITIES.get(node.arguments[0].text)?.table;
      const method = ts.isPropertyAccessExpression(node.expression)
        ? node.expression.name.text
        : ts.isIdentifier(node.expression)
          ? node.expression.text
          : '';
      if (table && method !== 'forFeature')
        found.push({ file, table, access: ENTITY_WRITES.has(method) || method === 'InjectRepository' ? 'write' : 'read' });
    }
    ts.forEachChild(node, visit);
  };
  collect(source);
  visit(source);
  return found;
}

const TOUCHES = SOURCES.flatMap(touches);

/**
 * Reads of another module's tables that stay, each with its reason: `file` reads `tables` owned
 * elsewhere. Short on purpose: a new crossing goes through the owner's repository or read model.
 */
const ALLOWED: { file: string; tables: string[]; why: string }[] = [
  {
    file: 'src/exports/period-export.repository.ts',
    tables: ['declarations', 'declaration_lines', 'declaration_derivations', 'clients', 'client_streams'],
    why: 'a report across owners, streamed by a cursor from one snapshot: each filing joined with its client and eco-organisms',
  },
  {
    file: 'src/exports/annual-export.repository.ts',
    tables: ['declarations', 'declaration_lines', 'declaration_derivations', 'clients', 'client_streams'],
    why: 'the same report for a year (S1 + S2 summed by PostgreSQL in the statement)',
  },
  {
    file: 'src/exports/export-products.ts',
    tables: ['client_streams'],
    why: "the client's eco-organism per stream, in the export's snapshot",
  },
  { file: 'src/exports/liability.ts', tables: ['client_streams'], why: "who is liable, a condition the exports' statements embed" },
  {
    file: 'src/auth/sessions/sessions.repository.ts',
    tables: ['clients'],
    why: "authentication checks the client's status in the statement that authenticates: one round trip a request, no window",
  },
  { file: 'src/auth/sign-in-links/sign-in-links.repository.ts', tables: ['clients'], why: 'the same, for a sign-in link' },
  { file: 'src/auth/tokens/client-tokens.repository.ts', tables: ['clients'], why: 'the same, for a bearer token' },
  {
    file: 'src/declarations/declarations.repository.ts',
    tables: ['client_tokens'],
    why: 'a filing records the prefix of the token that filed it, in the statement that inserts it',
  },
  {
    file: 'src/declarations/reminders/reminders.repository.ts',
    tables: ['clients', 'client_streams', 'mail_outbox'],
    why: 'who is due a reminder is one statement over the liable clients, and whether the last one reached them',
  },
  {
    file: 'src/operator-console/standing.repository.ts',
    tables: ['clients', 'client_streams', 'declarations', 'declaration_lines'],
    why: "the console's standing of every client for a half-year or a year (declared, to declare, overdue): one statement across clients, streams and filings, as the reminders' list is",
  },
  {
    file: 'src/dashboard/overview.repository.ts',
    tables: ['clients', 'dashboard_sessions', 'declarations', 'declaration_lines'],
    why: "the overview page reads four modules' tables itself; to go through their repositories when the page's rewrite lands",
  },
];

/** Who writes each table: its owner. */
const owners = new Map<string, Set<string>>();
for (const t of TOUCHES.filter((t) => t.access === 'write')) {
  owners.set(t.table, (owners.get(t.table) ?? new Set()).add(moduleOf(t.file)));
}
const ownerOf = (table: string) => [...(owners.get(table) ?? [])][0];

describe('tables owned by one module', () => {
  it('finds the tables of the migrations and the SQL of the repositories (the scan is not blind)', () => {
    expect(TABLES.size).toBeGreaterThan(15);
    expect(TABLES).toContain('declarations');
    const declarations = TOUCHES.filter((t) => t.file === 'src/declarations/declarations.repository.ts');
    expect(declarations).toContainEqual(expect.objectContaining({ table: 'declarations', access: 'write' }));
    expect(declarations).toContainEqual(expect.objectContaining({ table: 'declaration_lines', access: 'read' }));
    expect(ENTITIES.get('ClientEntity')).toEqual({ table: 'clients', file: 'src/accounts/client.entity.ts' });
    expect(TOUCHES).toContainEqual({ file: 'src/accounts/accounts.repository.ts', table: 'clients', access: 'write' });
  });

  it('declares each entity in the module that owns its table', () => {
    const misplaced = [...ENTITIES].filter(([, { table, file }]) => ownerOf(table) !== undefined && ownerOf(table) !== moduleOf(file));
    expect(misplaced.map(([name, { table, file }]) => `${name} (${file}): ${table} is owned by ${ownerOf(table)}`)).toEqual([]);
  });

  it('has every table the service touches written by exactly one module', () => {
    const shared = [...owners].filter(([, modules]) => modules.size > 1).map(([table, modules]) => `${table}: ${[...modules].join(', ')}`);
    expect(shared).toEqual([]);
  });

  it('reads a table outside its owner only on the allow-list', () => {
    const crossings = TOUCHES.filter((t) => t.access === 'read' && ownerOf(t.table) !== undefined && ownerOf(t.table) !== moduleOf(t.file))
      .filter((t) => !ALLOWED.some((a) => a.file === t.file && a.tables.includes(t.table)))
      .map((t) => `${t.file} reads ${t.table} (owned by ${ownerOf(t.table)})`);
    expect([...new Set(crossings)].sort()).toEqual([]);
  });

  it('keeps no stale entry on the allow-list', () => {
    const stale = ALLOWED.flatMap((a) =>
      a.tables
        .filter((table) => !TOUCHES.some((t) => t.file === a.file && t.table === table && t.access === 'read'))
        .map((table) => `${a.file}: ${table}`),
    );
    expect(stale).toEqual([]);
  });
});
