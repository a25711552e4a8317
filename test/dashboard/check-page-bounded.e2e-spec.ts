/**
 * The check page of a long declaration is bounded by what a person reads: its lines summarised per
 * stream and material (the first CHECK_PAGE_LINES rows, the others counted), its warnings one kind at a
 * time (a few said in full, the others counted), the detail downloadable as a file in the page's
 * language; and what is filed is still every line uploaded.
 */
import { CHECK_PAGE_LINES, CHECK_PAGE_WARNINGS } from '../../src/dashboard/declaration-check.presenter.js';
import { signedIn } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const mainOf = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));
/** 499 materials off the grid, each in kg and in uvc (100 g or more per unit: no tonnes warning), then glass: 1,000 lines, the most a declaration holds. */
const ROWS = [
  ...Array.from({ length: 499 }, (_, i) => {
    const material = `Matériau ${String(i + 1).padStart(4, '0')}`;
    return [
      ['EMB', material, 'kg', String(100 + i)],
      ['EMB', material, 'uvc', '1000'],
    ];
  }).flat(),
  ['EMB', 'Verre', 'kg', '4200'],
  ['EMB', 'Verre', 'uvc', '20000'],
];
/** A file's data rows as cells, its header and byte order mark left out. */
const rowsOf = (csv: string, separator: string) =>
  csv
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .slice(1)
    .filter((row) => row !== '')
    .map((row) => row.split(separator));
/** Bytes a person's check page of 1,000 lines stays under: its bounded rows and the sealed lines (deflated), not a row and a warning per line. */
const MAX_PAGE_BYTES = 100_000;

describe('a 1,000-line upload to its check page', () => {
  it.each([
    ['fr', ';', 'Télécharger le détail (CSV)', 'lignes-de-la-declaration.csv', '… et 995 autres lignes avec le même avertissement.'],
    ['en', ',', 'Download the detail (CSV)', 'declaration-detail.csv', '… and 995 other lines with the same warning.'],
  ] as const)(
    'in %s: the lines summarised, the warnings grouped, the detail downloadable, every line filed',
    async (language, separator, download, fileName, more) => {
      const { clientId } = await createClient(t);
      const browser = await signedIn(t, clientId, language);
      const uploaded = ['stream,material,unit,quantity', ...ROWS.map((row) => row.join(','))].join('\r\n');
      const page = await browser.upload('/dashboard/declarations/upload', { period: '2025-S1' }, { name: 'lines.csv', content: uploaded });
      expect(page.status).toBe(200);
      expect(Buffer.byteLength(page.html)).toBeLessThan(MAX_PAGE_BYTES);
      const main = mainOf(page.html);

      // The summary: one row per material, the first CHECK_PAGE_LINES of 500, mass and units side by side, each from 2 lines.
      expect(main).toContain('id="lines-summary"');
      expect(main).not.toContain('<td data-label="#">');
      const rows = [...main.matchAll(/<tr><td data-label="[^"]+">[^<]*\(EMB\)<\/td><td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
      expect(rows).toHaveLength(CHECK_PAGE_LINES);
      expect(rows[0]).toBe('Matériau 0001');
      expect(new Set(rows).size).toBe(CHECK_PAGE_LINES);
      expect(main).toMatch(
        /Matériau 0001<\/td><td[^>]*>[^<]*<\/td><td[^>]*>100\s?kg<\/td><td[^>]*>1[\s,]?000\s?UVC<\/td><td[^>]*>2<\/td>/u,
      );
      // The materials past the rows shown are counted all the same: 500 in the lead and in the note under the table.
      expect(/<p id="lines-summary">([^<]*)<\/p>/.exec(main)![1]).toMatch(/\b500\b/);
      const linesMore = /<p id="lines-more"[^>]*>([^<]*)<\/p>/.exec(main)![1]!;
      expect(linesMore).toMatch(/\b500\b/);
      expect(linesMore).toContain(String(CHECK_PAGE_LINES));
      expect(main).toContain(download);

      // The warnings: the uncategorised materials said CHECK_PAGE_WARNINGS times, the others counted.
      const warnings = main.slice(main.indexOf('id="check-warnings"'), main.indexOf('</section>', main.indexOf('id="check-warnings"')));
      expect([...warnings.matchAll(/<li>/g)]).toHaveLength(CHECK_PAGE_WARNINGS);
      expect(warnings).toContain(more);

      // The download: every line, in the page's dialect, from the sealed page; nothing filed by it.
      const pending = /name="pending" value="([^"]*)"/.exec(page.html)![1]!;
      const seal = /name="seal" value="([^"]*)"/.exec(page.html)![1]!;
      const detail = await browser.post('/dashboard/declarations/detail.csv', { pending, seal, name: '', action: 'file' });
      expect(detail.status).toBe(200);
      expect(detail.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(detail.headers.get('content-disposition')).toBe(`attachment; filename="${fileName}"`);
      const detailRows = rowsOf(detail.html, separator);
      expect(detailRows).toHaveLength(ROWS.length);
      expect(detailRows.map(([stream, material, unit]) => [stream, material, unit])).toEqual(
        ROWS.map(([stream, material, unit]) => [stream, material, unit]),
      );
      const tampered = await browser.post('/dashboard/declarations/detail.csv', { pending, seal: `${seal.slice(0, -2)}xx` });
      expect(tampered.status).toBe(400);

      // Filed: every line uploaded, as uploaded.
      const filed = await browser.declare(page, 'Claire Martin');
      expect(filed.status).toBe(303);
      const id = /^\/dashboard\/declarations\/([0-9a-f-]{36})\?/.exec(filed.location ?? '')![1]!;
      const lines = (
        await t.pool.query<{ stream: string; material: string; unit: string; quantity: string }>(
          `SELECT l.stream, l.material, l.unit, l.quantity::text AS quantity FROM declaration_lines l WHERE l.declaration_id = $1 ORDER BY l.position`,
          [id],
        )
      ).rows;
      expect(lines.map((l) => [l.stream, l.material, l.unit, String(Number(l.quantity))])).toEqual(ROWS);
    },
  );
});
