/**
 * Check, declare, confirm (RGAA 11.12): a declaration from the dashboard's form or upload
 * is shown on a check page before anything is filed; it is filed by a named person next to the
 * statement, stored with the revision (declared_by_name), shown on its page and to the operator; the
 * confirmation page gives the receipt, who and when; an e-mail follows (real SMTP server started here).
 * Also the declaration's warnings (a material off the eco-organism's grid, kg that look like tonnes) as the dashboard says them.
 */
import type { ParsedMail } from 'mailparser';
import { type Mailbox, startMailbox } from '../support/mailbox.js';
import request from 'supertest';
import { type DashboardClient, signedIn, formRows } from '../support/dashboard-browser.js';
import { createClient, issueToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

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

const count = async (clientId: string) =>
  (await t.pool.query(`SELECT count(*)::int AS n FROM declarations WHERE client_id = $1`, [clientId])).rows[0].n as number;
const mainOf = (html: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>'));
const filedId = (location: string | null) => /^\/dashboard\/declarations\/([0-9a-f-]{36})\?result=filed$/.exec(location ?? '')?.[1];

function check(browser: DashboardClient, period: string, lines: Array<[string, string, string, string]>) {
  return browser.post('/dashboard/declarations', {
    period,
    ...formRows(lines),
    action: 'submit',
  });
}

const GLASS: Array<[string, string, string, string]> = [
  ['EMB', 'Verre', 'kg', '1 200,5'],
  ['EMB', 'Verre', 'uvc', '4 800'],
];

describe('materials chosen, not guessed', () => {
  it.each([
    ['fr', 'Papier-carton', 'Paper and cardboard'],
    ['en', 'Paper and cardboard', 'Papier-carton'],
  ] as const)(
    'in %s, the form offers the published categories in the page’s language, and still takes free text',
    async (language, own, other) => {
      const { clientId } = await createClient(t);
      const browser = await signedIn(t, clientId, language);
      const form = (await browser.get('/dashboard/declarations/new')).html;
      const list = form.slice(form.indexOf('<datalist id="materials">'), form.indexOf('</datalist>'));
      expect(list).toContain(`<option value="${own}">`);
      expect(list).not.toContain(`<option value="${other}">`);
      // A text input tied to the list, not a select: any material can still be typed.
      expect(form).toMatch(/<input id="material-0" name="material" value="" list="materials"/);
    },
  );
});

describe('units sold, never the uvc lines added up', () => {
  // 85,000 units have carton in their packaging, 60,000 glass: a unit with both is on both lines, so 145,000 counts nothing.
  const COUNTED: Array<[string, string, string, string]> = [
    ['EMB', 'Papier-carton', 'kg', '3 867,5'],
    ['EMB', 'Papier-carton', 'uvc', '85 000'],
    ['EMB', 'Verre', 'kg', '12 600'],
    ['EMB', 'Verre', 'uvc', '60 000'],
  ];
  const SUM = /145[\u202f\u00a0 ,.]?000/;
  const checkWithUnits = (browser: DashboardClient, period: string, unitsSold: string) =>
    browser.post('/dashboard/declarations', {
      period,
      ...formRows(COUNTED),
      units_sold_EMB: unitsSold,
      action: 'submit',
    });
  const mailFor = async (sent: number) => {
    const deadline = Date.now() + 20_000;
    while (inbox.length === sent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return inbox.at(-1)!;
  };

  it('the check page, the confirmation, the list and the e-mail show per-material counts without their sum, and why', async () => {
    const { clientId } = await createClient(t, { email: `uvc.${Date.now()}@exemple.fr` });
    const browser = await signedIn(t, clientId, 'fr');
    const form = (await browser.get('/dashboard/declarations/new')).html;
    expect(form).toContain(
      '<label for="units_sold_EMB">Unités de vente consommateur (UVC) vendues sur le semestre, EMB · Emballages ménagers</label>',
    );

    const page = await check(browser, '2023-S1', COUNTED);
    expect(page.status).toBe(200);
    const main = mainOf(page.html);
    expect(main).not.toMatch(SUM);
    expect(main).toMatch(/<td data-label="Quantité" class="num">85\u202f000<\/td>/);
    expect(main).toContain('id="counts-only">Unités vendues non indiquées');

    const sent = inbox.length;
    const filed = await browser.declare(page, 'Claire Martin');
    expect(filed.status).toBe(303);
    const confirmation = mainOf((await browser.get(filed.location!)).html);
    expect(confirmation).not.toMatch(SUM);
    expect(confirmation).toContain('id="counts-only">Unités vendues non indiquées');
    const list = mainOf((await browser.get('/dashboard/declarations')).html);
    expect(list).not.toMatch(SUM);
    expect(list).toContain('<dt>Unités vendues (UVC)</dt><dd>non indiquées</dd>');
    const mail = await mailFor(sent);
    expect(mail.text).not.toMatch(SUM);
    expect(mail.text).toContain('Unités vendues non indiquées');
    expect(mail.text).toMatch(/- EMB, Papier-carton\u00a0: 85\u202f000\u00a0UVC/);
    expect(mail.text).toMatch(/- EMB, Verre\u00a0: 60\u202f000\u00a0UVC/);
  });

  it('with 90,000 units sold stated, each of them shows 90 000, stored with the revision, and never the sum', async () => {
    const { clientId } = await createClient(t, { email: `uvc.sold.${Date.now()}@exemple.fr` });
    const browser = await signedIn(t, clientId, 'fr');
    const page = await checkWithUnits(browser, '2023-S2', '90 000');
    expect(page.status).toBe(200);
    const main = mainOf(page.html);
    expect(main).not.toMatch(SUM);
    expect(main).toMatch(
      /<li id="units-sold-EMB">Unités vendues \(UVC\), Emballages ménagers \(EMB\)\u00a0: <strong>90\u202f000\u00a0UVC<\/strong><\/li>/,
    );
    expect(main).not.toContain('id="counts-only"');

    const sent = inbox.length;
    const filed = await browser.declare(page, 'Claire Martin');
    expect(filed.status).toBe(303);
    const id = filedId(filed.location)!;
    expect((await t.pool.query(`SELECT units_sold FROM declarations WHERE id = $1`, [id])).rows).toEqual([
      { units_sold: [{ stream: 'EMB', quantity: '90000' }] },
    ]);
    const confirmation = mainOf((await browser.get(filed.location!)).html);
    expect(confirmation).not.toMatch(SUM);
    expect(confirmation).toMatch(/Unités vendues \(UVC\), Emballages ménagers \(EMB\)\u00a0: <strong>90\u202f000\u00a0UVC<\/strong>/);
    const list = mainOf((await browser.get('/dashboard/declarations')).html);
    expect(list).not.toMatch(SUM);
    expect(list).toMatch(
      /<dt>Unités vendues \(UVC\)<\/dt><dd><ul class="plain"><li>Emballages ménagers \(EMB\)\u00a0: 90\u202f000\u00a0UVC<\/li>/,
    );
    const mail = await mailFor(sent);
    expect(mail.text).not.toMatch(SUM);
    expect(mail.text).toContain('Unités vendues\u00a0: EMB 90\u202f000\u00a0UVC');
    // The downloaded file carries them as its own row, and "Change" brings them back to the form.
    const csv = await browser.get(`/dashboard/declarations/${id}/csv`);
    expect(csv.html).toMatch(/\r\nEMB;;uvc;90000\r\n/);
    const again = await checkWithUnits(browser, '2023-S2', '90 000');
    const edit = await browser.declare(again, '', 'edit');
    expect(edit.html).toMatch(/<input id="units_sold_EMB" name="units_sold_EMB" value="90000"/);
  });

  it('refuses units sold below a material count, next to the field; nothing filed', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const page = await checkWithUnits(browser, '2023-S1', '80 000');
    expect(page.status).toBe(422);
    expect(page.html).toMatch(
      /<p class="error" id="units_sold_EMB-error">[^<]*80\u202f000 unités vendues, c’est moins que les 85\u202f000 UVC dont l’emballage comporte «\u00a0Papier-carton\u00a0»/,
    );
    expect(page.html).toContain('<a href="#units_sold_EMB">');
    expect(await count(clientId)).toBe(0);
  });
});

describe('check, declare, confirm', () => {
  it('shows what will be filed without filing it; the named declaration files it, with a confirmation and an e-mail', async () => {
    const email = `conformite.${Date.now()}@exemple.fr`;
    const { clientId } = await createClient(t, { email, company: 'Exemple SAS' });
    const browser = await signedIn(t, clientId, 'fr');

    const page = await check(browser, '2025-S1', [...GLASS, ['EMB', 'Plastique', 'kg', '40'], ['EMB', 'Plastique', 'uvc', '1000']]);
    expect(page.status).toBe(200);
    const main = mainOf(page.html);
    expect(page.html).toContain('<title>Vérifiez votre déclaration avant de la déposer');
    expect(main).toContain('C’est la première déclaration pour ce semestre.');
    // Lines with their category in the page's language, totals per stream and unit in French formats.
    expect(main).toContain('<td data-label="Matériau">Verre</td><td data-label="Catégorie du barème">Verre</td>');
    expect(main).toContain('1\u202f240,5\u202fkg');
    // The uvc lines (4,800 glass, 1,000 plastic) are never added up: no units sold stated, the page says why.
    expect(main).not.toMatch(/5\u202f800/);
    expect(main).toContain('Unités vendues non indiquées');
    // The uncategorised material is said at its line, and the statement is there with the name field.
    expect(main).toContain('À vérifier avant le dépôt');
    // At its row of the form (one row per material), said once though the row makes two lines.
    expect(main.match(/«.Plastique.» n’est pas une catégorie/g)).toHaveLength(1);
    expect(main).toMatch(
      /Ligne 2, matériau.: «.Plastique.» n’est pas une catégorie de matériau de la filière Emballages ménagers \(EMB\)[^<]*par exemple «.Emballages plastiques complexes.»/,
    );
    expect(main).toContain('Je certifie que les informations déclarées sont exactes et complètes');
    expect(main).toContain('<label for="name">Vos nom et prénom</label>');
    expect(await count(clientId)).toBe(0);

    // No name: nothing filed, the page says what to do, next to the field.
    const unnamed = await browser.declare(page, '   ');
    expect(unnamed.status).toBe(422);
    expect(unnamed.html).toContain('id="name-error">Indiquez vos nom et prénom pour déclarer');
    expect(unnamed.html).toContain('<a href="#name">');
    expect(await count(clientId)).toBe(0);

    const sent = inbox.length;
    const filed = await browser.declare(unnamed, ' Claire   Martin ');
    expect(filed.status).toBe(303);
    const id = filedId(filed.location)!;
    expect(id).toBeDefined();
    const { rows } = await t.pool.query(`SELECT declared_by_name, submitted_by->>'type' AS type FROM declarations WHERE id = $1`, [id]);
    expect(rows).toEqual([{ declared_by_name: 'Claire Martin', type: 'dashboard' }]);

    // The confirmation: receipt, who, when (Paris time, zone shown), what happens next, the e-mail.
    const confirmation = await browser.get(filed.location!);
    const receipt = /<code>(EPR-2025S1-R1-[0-9A-Z]{8})<\/code>/.exec(confirmation.html)?.[1];
    expect(receipt).toBeDefined();
    const panel = confirmation.html.slice(
      confirmation.html.indexOf('id="confirmation"'),
      confirmation.html.indexOf('</div>', confirmation.html.indexOf('id="confirmation"')),
    );
    expect(confirmation.html).toContain('<title>Déclaration déposée');
    expect(panel).toContain('<h2>Déclaration 2025-S1, version 1</h2>');
    expect(panel).toContain('<dt>Déclarée par</dt><dd>Claire Martin</dd>');
    expect(panel).toMatch(/<dt>Déposée le<\/dt><dd>\d{1,2}(er)? [a-zéû]+ 20\d\d[^<]*\d\d:\d\d, heure de Paris/);
    // What happens next is the reference data's one statement of who files what with the eco-organism.
    expect(panel).toContain('dépose en votre nom, auprès de votre éco-organisme, votre déclaration annuelle');
    expect(panel).toContain('Vous restez l’adhérent de votre éco-organisme');
    expect(panel).toContain('Et maintenant\u202f?');
    expect(panel).toContain(`Un e-mail de confirmation est envoyé à ${email}.`);
    // Later visits show who declared it, without the confirmation panel.
    const later = await browser.get(`/dashboard/declarations/${id}`);
    expect(later.html).not.toContain('id="confirmation"');
    expect(later.html).toContain('<dt>Déclarée par</dt><dd>Claire Martin</dd>');

    // The e-mail, in the client's language (French by default), to the confirmed address.
    const deadline = Date.now() + 20_000;
    while (inbox.length === sent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const mail = inbox.at(-1)!;
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe(email);
    expect(mail.subject).toBe(`Déclaration 2025-S1 déposée\u00a0: accusé de réception ${receipt}`);
    expect(mail.text).toContain('Déclarée par\u00a0: Claire Martin');
    expect(mail.text).toContain('dépose en votre nom, auprès de votre éco-organisme, votre déclaration annuelle');
    expect(mail.text).not.toContain('dépôt du semestre');
    expect(mail.text).toContain('Exemple SAS');
    expect(mail.text).toContain(`/dashboard/declarations/${id}?lang=fr`);
    // From the service's name in the client's language, answers to the operator, whose address the text gives.
    expect(mail.from?.value).toEqual([{ name: 'Déclarations REP emballages', address: 'dashboard@epr.example.org' }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'contact@epr.example.org' }]);
    expect(mail.text).toContain('écrivez à l’opérateur\u00a0: contact@epr.example.org');
    expect(mail.text).not.toContain('prévenez l’opérateur.');

    // The operator sees who declared it; a revision filed through the API has no name.
    const admin = await request(t.url).get(`/api/v1/admin/declarations/${id}`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(admin.status).toBe(200);
    expect(admin.body.submitted_by).toEqual({ type: 'dashboard', session_id: expect.any(String), declared_by_name: 'Claire Martin' });
    const { token } = await issueToken(t, clientId);
    const api = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({
        period: '2025-S2',
        lines: [
          { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 1 },
          { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 10 },
        ],
      });
    expect(api.status).toBe(201);
    expect(api.body.submitted_by).not.toHaveProperty('declared_by_name');
    expect((await t.pool.query(`SELECT declared_by_name FROM declarations WHERE id = $1`, [api.body.id])).rows).toEqual([
      { declared_by_name: null },
    ]);
  });

  it('the check page names the revision it replaces; a revision filed meanwhile is not overwritten unseen (409, nothing filed)', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const first = await browser.declare(await check(browser, '2024-S2', GLASS), 'Claire Martin');
    expect(first.status).toBe(303);
    const page = await check(browser, '2024-S2', [
      ['EMB', 'Verre', 'kg', '1300'],
      ['EMB', 'Verre', 'uvc', '4800'],
    ]);
    expect(mainOf(page.html)).toMatch(
      /Filing this replaces revision 1 \(receipt EPR-2024S2-R1-[0-9A-Z]{8}, filed [^)]+\), which stays readable\./,
    );

    // Another revision is filed (through the API) between the check and the filing.
    const { token } = await issueToken(t, clientId);
    const meanwhile = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({
        period: '2024-S2',
        lines: [
          { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 7 },
          { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 70 },
        ],
      });
    expect(meanwhile.status).toBe(201);
    expect(await count(clientId)).toBe(2);
    const stale = await browser.declare(page, 'Claire Martin');
    expect(stale.status).toBe(409);
    expect(stale.html).toContain('Another revision (revision 2) was filed for this half-year since this page was shown');
    expect(mainOf(stale.html)).toMatch(/Filing this replaces revision 2 \(/);
    expect(await count(clientId)).toBe(2);
    // Declared again from the page that says so, it files as revision 3.
    const filed = await browser.declare(stale, 'Claire Martin');
    expect(filed.status).toBe(303);
    expect((await t.pool.query(`SELECT revision FROM declarations WHERE id = $1`, [filedId(filed.location)])).rows).toEqual([
      { revision: 3 },
    ]);
  });

  it('"Change" takes the lines back to the form; an altered or another session\'s pending declaration files nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const page = await check(browser, '2024-S1', GLASS);
    const change = await browser.declare(page, '', 'edit');
    expect(change.status).toBe(200);
    expect(change.html).toContain('value="2024-S1"');
    expect(change.html).toContain('value="Verre"');
    expect(change.html).toContain('value="1200.5"');
    expect(await count(clientId)).toBe(0);

    // The pending declaration altered in the browser (a quantity changed): its seal no longer verifies.
    const pending = /name="pending" value="([^"]*)"/.exec(page.html)![1]!;
    const altered = Buffer.from(Buffer.from(pending, 'base64url').toString('utf8').replace('"1200.5"', '"1.2"')).toString('base64url');
    expect(altered).not.toBe(pending);
    const tampered = await browser.declare({ ...page, html: page.html.replace(pending, altered) }, 'Claire Martin');
    expect(tampered.status).toBe(400);
    expect(tampered.html).toContain('This check page is no longer valid');
    // Another session of the same client cannot file this page's declaration either.
    const other = await signedIn(t, clientId);
    expect((await other.declare(page, 'Claire Martin')).status).toBe(400);
    expect(await count(clientId)).toBe(0);
    // Without the page's CSRF token: refused before anything.
    const seal = /name="seal" value="([^"]*)"/.exec(page.html)![1]!;
    const noCsrf = await browser.post(
      '/dashboard/declarations/file',
      { pending, seal, name: 'Claire Martin', action: 'file' },
      { csrf: false },
    );
    expect(noCsrf.status).toBe(403);
    expect(await count(clientId)).toBe(0);
  });

  it("an uploaded file goes through the same check page, its warnings pointing at the file's rows", async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const file =
      'stream,material,unit,quantity\r\nEMB,glass,kg,0.05\r\nEMB,glass,uvc,1000\r\nEMB,Plastique,kg,3\r\nEMB,Plastique,uvc,1000\r\n';
    const page = await browser.upload('/dashboard/declarations/upload', { period: '2023-S2' }, { name: 'ventes.csv', content: file });
    expect(page.status).toBe(200);
    const main = mainOf(page.html);
    expect(main).toContain('To check before filing');
    expect(main).toMatch(/Row 2 of the file[^<]*0\.05 kg for 1,000 consumer sales units makes 0\.05 g per unit: is it in tonnes\?/);
    expect(main).toMatch(/Row 4 of the file[^<]*“Plastique” is not a material category of Household packaging \(EMB\)/);
    expect(await count(clientId)).toBe(0);
    const filed = await browser.declare(page, 'John Smith');
    expect(filed.status).toBe(303);
    expect(await count(clientId)).toBe(1);
  });
});
