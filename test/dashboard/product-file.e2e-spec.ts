/**
 * « Nouvelle déclaration » from her per-product spreadsheet: .xlsx, .ods and CSV (both dialects)
 * written here with the library, French and English headers, the column step for her own headers
 * (remembered at the next upload), the check page with the units sold and the kg per material,
 * filing by name (confirmation, e-mail, the operator sees who), keeping the products as her
 * catalogue, the templates, and files refused with their row and column, nothing written.
 */
import * as XLSX from '@e965/xlsx';
import { strToU8, unzipSync, zipSync } from 'fflate';
import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { type DashboardClient, type PageResponse, signedIn } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { type Mailbox, startMailbox } from '../support/mailbox.js';
import { SPREADSHEET_SLOTS, takeSpreadsheetSlot } from '../../src/products/spreadsheet/spreadsheet-slots.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A zip bomb-ish sheet: 64 MB of XML in a few hundred kilobytes, refused while inflating. Built before
 * the app starts: compressing it holds this process for seconds on a busy machine, and a request sent
 * right after such a pause, on a kept-alive connection whose idle timeout ran out meanwhile, races the
 * server closing it (ECONNRESET).
 */
const BOMB = zipSync({
  '[Content_Types].xml': strToU8('<Types/>'),
  'xl/workbook.xml': strToU8('<workbook/>'),
  'xl/worksheets/sheet1.xml': new Uint8Array(64 * 1024 * 1024).fill(0x20),
});

let t: TestApp;
let mailbox: Mailbox;
let inbox: ParsedMail[];

beforeAll(async () => {
  mailbox = await startMailbox();
  inbox = mailbox.inbox;
  t = await startTestApp({
    env: { SMTP_URL: mailbox.url, MAIL_FROM: 'dashboard@epr.example.org', CONTACT_EMAIL: 'contact@epr.example.org' },
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const FR_HEADER = ['produit', 'UVC vendues sur le semestre', 'élément d’emballage', 'matériau', 'poids (g)', 'nombre par UVC'];
const EN_HEADER = ['product', 'units sold in the half-year', 'packaging element', 'material', 'weight (g)', 'number per unit'];
type Row = (string | number)[];
/** The biscuit maker: 40,000 + 30,000 + 20,000 units; units on the first row of each product only. */
const BISCUITS_FR: Row[] = [
  ['Sablés nature', 40000, 'boîte', 'Papier-carton', 45.5, 1],
  ['', '', 'film', 'Emballages souples en PE et PP', 3.2, 1],
  ['Palets bretons', 30000, 'boîte', 'Papier-carton', 45.5, 1],
  ['', '', 'film', 'Emballages souples en PE et PP', 3.2, 1],
  ['Pâte à tartiner', 20000, 'pot', 'Verre', 210, 1],
  ['', '', 'couvercle', 'Acier', 6, 1],
];
/** The same in English, units repeated on every row, materials by English name or code. */
const BISCUITS_EN: Row[] = [
  ['Shortbread', 40000, 'box', 'Paper and cardboard', 45.5, 1],
  ['Shortbread', 40000, 'film', 'plastic_pe_pp_flexible', 3.2, 1],
  ['Butter biscuits', 30000, 'box', 'paper_cardboard', 45.5, 1],
  ['Butter biscuits', 30000, 'film', 'Flexible PE and PP packaging', 3.2, 1],
  ['Spread', 20000, 'jar', 'Glass', 210, 1],
  ['Spread', 20000, 'lid', 'Steel', 6, 1],
];

function book(header: string[], rows: Row[], type: 'xlsx' | 'ods'): Buffer {
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([header, ...rows]), 'Produits');
  return XLSX.write(workbook, { type: 'buffer', bookType: type }) as Buffer;
}

const csv = (header: string[], rows: Row[], delimiter: string) =>
  [header, ...rows]
    .map((row) => row.map((cell) => (String(cell).includes(delimiter) ? `"${cell}"` : String(cell))).join(delimiter))
    .join('\r\n');

const mainOf = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));
const upload = (browser: DashboardClient, name: string, content: Buffer | string, period = '2026-S1') =>
  browser.upload('/dashboard/declarations/product-file', { period }, { name, content });
const count = async (table: string, clientId: string) =>
  (await t.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE client_id = $1`, [clientId])).rows[0].n as number;

/** The check page's lines, as "material unit quantity" (the quantity as the page writes it). */
function linesOf(page: PageResponse): string[] {
  const rows = [
    ...mainOf(page.html).matchAll(
      /<tr><td data-label="#">\d+<\/td><td[^>]*>[^<]*<\/td><td[^>]*>([^<]*)<\/td><td[^>]*>[^<]*<\/td><td[^>]*>([^<]*)<\/td><td[^>]*>([^<]*)<\/td><\/tr>/g,
    ),
  ];
  return rows.map((r) => `${r[1]} ${r[2]} ${r[3]}`);
}

const FR_LINES = [
  'Verre kg 4\u202f200',
  'Verre UVC 20\u202f000',
  'Papier-carton kg 3\u202f185',
  'Papier-carton UVC 70\u202f000',
  'Emballages souples en PE et PP kg 224',
  'Emballages souples en PE et PP UVC 70\u202f000',
  'Acier kg 120',
  'Acier UVC 20\u202f000',
];
/** The same lines on an English page: materials by their English names (never their codes), numbers the English way. */
const EN_LINES = [
  'Glass kg 4,200',
  'Glass UVC 20,000',
  'Paper and cardboard kg 3,185',
  'Paper and cardboard UVC 70,000',
  'Flexible PE and PP packaging kg 224',
  'Flexible PE and PP packaging UVC 70,000',
  'Steel kg 120',
  'Steel UVC 20,000',
];

describe('a per-product file to a filed declaration', () => {
  it('in French, an .xlsx with the template’s headers: 90 000 units sold, kg per material, then filed by name with the catalogue kept', async () => {
    const { clientId } = await createClient(t, { email: `biscuits.${Date.now()}@exemple.fr` });
    const browser = await signedIn(t, clientId, 'fr');
    const start = (await browser.get('/dashboard/declarations/new')).html;
    // Her file first: the section comes before the form's.
    expect(start.indexOf('id="by-product-file"')).toBeGreaterThan(0);
    expect(start.indexOf('id="by-product-file"')).toBeLessThan(start.indexOf('id="by-form"'));

    const check = await upload(browser, 'biscuits.xlsx', book(FR_HEADER, BISCUITS_FR, 'xlsx'));
    expect(check.status).toBe(200);
    const main = mainOf(check.html);
    expect(main).toMatch(
      /<li id="units-sold-EMB">Unités vendues \(UVC\), Emballages ménagers \(EMB\)\u00a0: <strong>90\u202f000\u00a0UVC<\/strong><\/li>/,
    );
    expect(linesOf(check)).toEqual(FR_LINES);
    // Materials by their published names, never their codes.
    expect(main).not.toMatch(/paper_cardboard|plastic_pe_pp_flexible|\bglass\b|\bsteel\b/);
    expect(main).toContain('<th scope="row" data-label="Produit">Sablés nature</th>');
    expect(main).toContain('<li>Papier-carton, 45,5\u00a0g</li>');
    expect(main).toContain('Garder ces produits comme catalogue');
    expect(await count('declarations', clientId)).toBe(0);

    const unnamed = await browser.declare(check, '');
    expect(unnamed.status).toBe(422);
    expect(mainOf(unnamed.html)).toContain('Sablés nature');

    const sent = inbox.length;
    const pending = /name="pending" value="([^"]*)"/.exec(check.html)![1]!;
    const seal = /name="seal" value="([^"]*)"/.exec(check.html)![1]!;
    const filed = await browser.post('/dashboard/declarations/file', { pending, seal, name: 'Claire Martin', action: 'file', keep: '1' });
    expect(filed.status).toBe(303);
    const id = /^\/dashboard\/declarations\/([0-9a-f-]{36})\?result=filed$/.exec(filed.location ?? '')![1]!;
    const confirmation = mainOf((await browser.get(filed.location!)).html);
    expect(confirmation).toContain('Claire Martin');
    expect(confirmation).toMatch(/90\u202f000\u00a0UVC/);

    const admin = await request(t.url).get(`/api/v1/admin/declarations/${id}`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(admin.status).toBe(200);
    expect(admin.body.submitted_by).toMatchObject({ type: 'dashboard', declared_by_name: 'Claire Martin' });
    expect(admin.body.units_sold).toEqual([{ stream: 'EMB', quantity: 90000 }]);

    const deadline = Date.now() + 20_000;
    while (inbox.length === sent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const mail = inbox.at(-1)!;
    expect(mail.text).toContain('Claire Martin');
    expect(mail.text).toMatch(/EMB 90\u202f000\u00a0UVC/);

    // Kept as her catalogue: the three products, valid from the half-year, and their sales.
    const { rows } = await t.pool.query(
      `SELECT p.reference, s.units::text AS units FROM products p JOIN product_sales s ON s.product_id = p.id
        WHERE p.client_id = $1 AND s.period = '2026-S1' ORDER BY p.reference`,
      [clientId],
    );
    expect(rows).toEqual([
      { reference: 'Palets bretons', units: '30000' },
      { reference: 'Pâte à tartiner', units: '20000' },
      { reference: 'Sablés nature', units: '40000' },
    ]);
  });

  it.each([
    ['.ods, English headers, units on every row', 'en', 'biscuits.ods', () => book(EN_HEADER, BISCUITS_EN, 'ods')],
    ['CSV with commas and decimal points', 'en', 'biscuits.csv', () => csv(EN_HEADER, BISCUITS_EN, ',')],
    [
      'CSV with semicolons, decimal commas and « 40 000 »',
      'fr',
      'biscuits.csv',
      () =>
        csv(
          FR_HEADER,
          BISCUITS_FR.map((row) =>
            row.map((cell) =>
              typeof cell === 'number'
                ? String(cell)
                    .replace('.', ',')
                    .replace(/^(\d+)(\d{3})$/, '$1 $2')
                : cell,
            ),
          ),
          ';',
        ),
    ],
  ] as const)('reads %s: the same lines', async (_what, language, name, content) => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, language);
    const check = await upload(browser, name, content());
    expect(check.status).toBe(200);
    expect(linesOf(check)).toEqual(language === 'fr' ? FR_LINES : EN_LINES);
    expect(mainOf(check.html)).toMatch(/<li id="units-sold-EMB">[^<]*<strong>90[\u202f,]000\u00a0UVC<\/strong>/);
    // Without keeping: filed, and the catalogue left as it was.
    const filed = await browser.declare(check, 'Jane Smith');
    expect(filed.status).toBe(303);
    expect(await count('products', clientId)).toBe(0);
  });

  it('asks once which column is which for her own headers, and remembers it for her next upload', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const own = ['Article', 'Ventes S1', 'Composant', 'Matière première', 'Grammage', 'Qté'];
    const file = book(own, BISCUITS_FR, 'xlsx');
    const step = await upload(browser, 'mes-produits.xlsx', file);
    expect(step.status).toBe(200);
    expect(step.html).toContain('Quelle colonne contient quoi\u202f?');
    expect(step.html).toMatch(/<select id="column_product" name="column_product">/);
    const table = /name="table" value="([^"]*)"/.exec(step.html)![1]!;
    const seal = /name="seal" value="([^"]*)"/.exec(step.html)![1]!;
    // Two fields on one column: asked again.
    const twice = await browser.post('/dashboard/declarations/product-file/columns', {
      table,
      seal,
      column_product: '0',
      column_units: '0',
      column_material: '3',
      column_weight_g: '4',
    });
    expect(twice.status).toBe(422);
    expect(twice.html).toContain('id="columns-errors"');
    const tampered = await browser.post('/dashboard/declarations/product-file/columns', { table: `${table}x`, seal, column_product: '0' });
    expect(tampered.status).toBe(400);
    const check = await browser.post('/dashboard/declarations/product-file/columns', {
      table,
      seal,
      column_product: '0',
      column_units: '1',
      column_element: '2',
      column_material: '3',
      column_weight_g: '4',
      column_per_unit: '5',
    });
    expect(check.status).toBe(200);
    expect(linesOf(check)).toEqual(FR_LINES);
    const { rows } = await t.pool.query(`SELECT columns FROM product_file_columns WHERE client_id = $1`, [clientId]);
    expect(rows[0].columns).toMatchObject({ product: 'article', weight_g: 'grammage' });

    // The next upload with her headers, in another order: straight to the check page.
    const reordered = book(
      [own[1]!, own[0]!, ...own.slice(2)],
      BISCUITS_FR.map((row) => [row[1]!, row[0]!, ...row.slice(2)]),
      'xlsx',
    );
    const again = await upload(browser, 'mes-produits.xlsx', reordered);
    expect(again.status).toBe(200);
    expect(linesOf(again)).toEqual(FR_LINES);
  });

  it('refuses bad files with the row and her column named, and writes nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const expectRefused = async (name: string, content: Buffer | string, text: string | RegExp) => {
      const page = await upload(browser, name, content);
      expect(page.status).toBe(422);
      const main = mainOf(page.html);
      expect(main).toContain('id="product-file-errors"');
      if (typeof text === 'string') expect(main).toContain(text);
      else expect(main).toMatch(text);
    };
    await expectRefused('photo.xlsx', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3]), 'n’est pas un tableur lisible');
    expect(BOMB.length).toBeLessThan(1024 * 1024);
    await expectRefused('bombe.xlsx', Buffer.from(BOMB), 'bien plus qu’un tableur par produit');
    const unknown = BISCUITS_FR.map((row, i) => (i === 3 ? [row[0]!, row[1]!, row[2]!, 'Plastique magique', row[4]!, row[5]!] : row));
    await expectRefused(
      'inconnu.xlsx',
      book(FR_HEADER, unknown, 'xlsx'),
      /Ligne 5, colonne «\u00a0matériau\u00a0»\u00a0: «\u00a0Plastique magique\u00a0» ne fait pas partie/,
    );
    const negative = BISCUITS_FR.map((row, i) => (i === 4 ? [row[0]!, row[1]!, row[2]!, row[3]!, -210, row[5]!] : row));
    await expectRefused(
      'negatif.csv',
      csv(FR_HEADER, negative, ';'),
      /Ligne 6, colonne «\u00a0poids \(g\)\u00a0»\u00a0: Le poids d’un élément doit être supérieur à 0/,
    );
    const noUnits = BISCUITS_FR.map((row, i) => (i === 4 ? ['Pâte à tartiner', '', ...row.slice(2)] : row));
    await expectRefused(
      'sans-ventes.xlsx',
      book(FR_HEADER, noUnits, 'xlsx'),
      /Ligne 6, colonne «\u00a0UVC vendues sur le semestre\u00a0»\u00a0: Les UVC vendues du produit/,
    );
    // A column missing: the column step asks for it, and cannot go on without it.
    const step = await upload(
      browser,
      'sans-poids.xlsx',
      book(
        FR_HEADER.slice(0, 4),
        BISCUITS_FR.map((row) => row.slice(0, 4)),
        'xlsx',
      ),
    );
    expect(step.status).toBe(200);
    const table = /name="table" value="([^"]*)"/.exec(step.html)![1]!;
    const seal = /name="seal" value="([^"]*)"/.exec(step.html)![1]!;
    const missing = await browser.post('/dashboard/declarations/product-file/columns', {
      table,
      seal,
      column_product: '0',
      column_units: '1',
      column_material: '3',
    });
    expect(missing.status).toBe(422);
    expect(await count('declarations', clientId)).toBe(0);
    expect(await count('products', clientId)).toBe(0);
  });
});

describe('files read at once', () => {
  it('past the process’s bound, answers 503 with Retry-After and reads nothing; a slot freed, the file reads', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    // The slots held here stand for files being read by other requests of this process.
    const held = Array.from({ length: SPREADSHEET_SLOTS }, () => takeSpreadsheetSlot());
    try {
      const busy = await upload(browser, 'biscuits.xlsx', book(FR_HEADER, BISCUITS_FR, 'xlsx'));
      expect(busy.status).toBe(503);
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(busy.html).not.toContain('name="pending"');
      // A page for her, in her language, that says nothing was recorded.
      expect(mainOf(busy.html)).toContain('Service momentanément indisponible');
      expect(mainOf(busy.html)).toContain('rien n’a été enregistré');
    } finally {
      for (const release of held) release();
    }
    const check = await upload(browser, 'biscuits.xlsx', book(FR_HEADER, BISCUITS_FR, 'xlsx'));
    expect(check.status).toBe(200);
    expect(linesOf(check)).toEqual(FR_LINES);
    expect(await count('declarations', clientId)).toBe(0);
  });
});

describe('the templates', () => {
  it('in French: .xlsx with French headers, the materials in French and a drop-down; .ods; CSV with semicolons and decimal commas; each reads back', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const get = async (format: string) => {
      const res = await fetch(`${t.url}/dashboard/declarations/product-file/template.${format}`, {
        headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer());
    };
    const xlsx = await get('xlsx');
    const workbook = XLSX.read(xlsx, { type: 'buffer' });
    expect(workbook.SheetNames).toEqual(['Produits', 'Matériaux']);
    const rows = XLSX.utils.sheet_to_json<unknown[]>(workbook.Sheets.Produits!, { header: 1 });
    expect(rows[0]).toEqual(FR_HEADER);
    expect(rows[1]).toEqual(['Sablés nature, boîte de 200 g', 40000, 'boîte', 'Papier-carton', 45.5, 1]);
    const materials = XLSX.utils.sheet_to_json<unknown[]>(workbook.Sheets['Matériaux']!, { header: 1 }).map((r) => r[0]);
    expect(materials).toEqual(expect.arrayContaining(['Verre', 'Acier', 'Emballages souples en PE et PP']));
    expect(materials).not.toContain('Glass');
    const sheetXml = Buffer.from(unzipSync(xlsx)['xl/worksheets/sheet1.xml']!).toString('utf8');
    expect(sheetXml).toContain('<dataValidation type="list"');
    expect(sheetXml).toContain("'Matériaux'!$A$2:$A$16");
    const ods = await get('ods');
    expect(XLSX.read(ods, { type: 'buffer' }).SheetNames).toEqual(['Produits', 'Matériaux']);
    // The same drop-down in the .ods: an ODF list validation over the materials sheet, named on the material cells (free text still taken).
    const odsFiles = unzipSync(ods);
    expect(Object.keys(odsFiles)[0]).toBe('mimetype');
    const content = Buffer.from(odsFiles['content.xml']!).toString('utf8');
    expect(content).toContain(
      `table:condition="of:cell-content-is-in-list([$'Matériaux'.$A$2:.$A$16])" table:allow-empty-cell="true" table:display-list="unsorted"`,
    );
    expect(content).toContain('<table:error-message table:display="false"/>');
    expect(content).toContain(
      '<table:table-cell table:content-validation-name="materials" office:value-type="string"><text:p>Papier-carton</text:p></table:table-cell>',
    );
    expect(content).toContain(
      '<table:table-row table:number-rows-repeated="4994"><table:table-cell table:number-columns-repeated="3"/><table:table-cell table:content-validation-name="materials"/></table:table-row>',
    );
    const text = (await get('csv')).toString('utf8');
    expect(text.split('\r\n')[1]).toBe('"Sablés nature, boîte de 200 g";40000;boîte;Papier-carton;"45,5";1');
    for (const [name, file] of [
      ['modele.xlsx', xlsx],
      ['modele.ods', ods],
      ['modele.csv', Buffer.from(text)],
    ] as const) {
      const check = await upload(browser, name, file);
      expect([name, check.status]).toEqual([name, 200]);
      expect(linesOf(check)).toEqual(FR_LINES);
    }
  });

  it('in English: English headers and material names, commas and decimal points', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'en');
    const res = await fetch(`${t.url}/dashboard/declarations/product-file/template.csv`, {
      headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    const text = Buffer.from(await res.arrayBuffer())
      .toString('utf8')
      .replace(/^\ufeff/, '');
    expect(text.split('\r\n').slice(0, 2)).toEqual([
      EN_HEADER.join(','),
      '"Shortbread biscuits, 200 g box",40000,box,Paper and cardboard,45.5,1',
    ]);
    const missing = await fetch(`${t.url}/dashboard/declarations/product-file/template.pdf`, {
      headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(missing.status).toBe(404);
  });
});
