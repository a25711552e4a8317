/**
 * Swagger UI's "Try it out" in a real browser, opened at another host name than the one the
 * service is configured with (PUBLIC_BASE_URL says localhost, the page is opened at 127.0.0.1), as
 * after a reverse proxy, a LAN address or a forwarded port.
 */
import type { Browser } from 'playwright-core';
import { createClientWithToken } from '../support/factories.js';
import { launchChromium } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  t = await startTestApp();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

it('executes an authenticated client request from a page opened at another address than PUBLIC_BASE_URL', async () => {
  const port = new URL(t.url).port;
  expect(new URL(t.config.publicBaseUrl).hostname).toBe('localhost');
  const { token } = await createClientWithToken(t);
  const page = await browser.newPage();
  const failed: string[] = [];
  page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on('console', (message) => {
    if (message.type() === 'error') failed.push(message.text());
  });

  await page.goto(`http://127.0.0.1:${port}/docs/`);
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('input').first().fill(token);
  await dialog.getByRole('button', { name: 'Apply credentials' }).first().click();
  await dialog.getByRole('button', { name: 'Close' }).first().click();

  const operation = page.locator('#operations-client-getMe');
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  const answer = page.waitForResponse((res) => res.url() === `http://127.0.0.1:${port}/api/v1/me`);
  await operation.getByRole('button', { name: 'Execute' }).click();
  expect((await answer).status()).toBe(200);
  const status = operation.locator('.live-responses-table tbody .response-col_status').first();
  await status.waitFor();
  expect((await status.textContent())?.trim()).toBe('200');
  expect(failed).toEqual([]);
}, 60_000);
