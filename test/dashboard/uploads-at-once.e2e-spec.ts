/**
 * Declaration files uploaded at the same moment are checked one at a time (the others wait their
 * turn, src/dashboard/declarations.page.controller.ts): each is answered with its own check page, and
 * none is refused for the others.
 */
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

/** A 300-line file whose glass quantity tells it from the others. */
const fileOf = (glass: number) =>
  [
    'stream,material,unit,quantity',
    `EMB,glass,kg,${glass}`,
    'EMB,glass,uvc,20000',
    ...Array.from({ length: 149 }, (_, i) => [`EMB,Material ${i + 1},kg,${100 + i}`, `EMB,Material ${i + 1},uvc,1000`]).flat(),
  ].join('\r\n');

describe('declaration files uploaded at once', () => {
  it('are each answered with their own check page, none refused', async () => {
    const browsers = await Promise.all(Array.from({ length: 6 }, async () => signedIn(t, (await createClient(t)).clientId, 'en')));
    const pages = await Promise.all(
      browsers.map((browser, i) =>
        browser.upload('/dashboard/declarations/upload', { period: '2024-S1' }, { name: 'sales.csv', content: fileOf(4_001 + i) }),
      ),
    );
    pages.forEach((page, i) => {
      expect(page.status).toBe(200);
      expect(page.html).toContain('name="seal"');
      expect(page.html).toContain(`4,00${1 + i}`);
    });
  });
});
