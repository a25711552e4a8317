/**
 * English written for an English reader: no page in English shows a French word, except the
 * legal and proper names below, and French kept in brackets after its English explanation
 * ("Environmental Code (Code de l'environnement)"). The site's English pages and the dashboard's,
 * for a client whose account is in English.
 */
import request from 'supertest';
import { SITE_PAGES } from '../src/site/site-pages.js';
import { DashboardClient, signInLink } from './support/dashboard-browser.js';
import { createClient } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** Names an English page may show as they are: legal names, bodies, brands and places. */
const ALLOWED = [
  'Code de l’environnement',
  "Code de l'environnement",
  'Conseil d’État',
  "Conseil d'État",
  'Légifrance',
  'MyLéko',
  'Léko',
  'Déchets Infos',
  'Côtes du Rhône',
  'Pays de la Loire',
];

/** Words only French writes: accented words and French grammar words, plus the legal terms an English page must explain. */
const FRENCH =
  /[\p{L}’'-]*[éèêàâçôûîëïù][\p{L}’'-]*|\b(?:le|la|les|des|du|et|pour|avec|une|aux|sur|dans|par|est|sont|mandataire|emballages?)\b/giu;

/** The words of a page a person reads as English: not the other language's switch, code samples, bracketed French or addresses. */
function frenchWords(html: string): string[] {
  const text = html
    .replace(/<(script|style|pre|code|datalist)\b[\s\S]*?<\/\1>/g, ' ')
    .replace(/<(\w+)\b[^>]*\slang="fr"[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
  let plain = text.replace(/\([^()]*(\([^()]*\)[^()]*)*\)/g, ' ').replace(/\b[\w.-]+\.(?:fr|com|org|net|eu|eco|io|de)\b\S*/g, ' ');
  for (const name of ALLOWED) plain = plain.split(name).join(' ');
  return [...plain.matchAll(FRENCH)].map((m) => m[0]);
}

describe('English pages', () => {
  it('the site’s English pages show no French word outside the allowed names and brackets', async () => {
    const found: Record<string, string[]> = {};
    for (const page of SITE_PAGES.filter((p) => p.lang === 'en')) {
      const res = await request(t.url).get(page.path);
      expect([page.path, res.status]).toEqual([page.path, 200]);
      const words = frenchWords(res.text);
      if (words.length > 0) found[page.path] = [...new Set(words)];
    }
    expect(found).toEqual({});
  });

  it('the dashboard of a client whose language is English shows no French word either', async () => {
    const { clientId } = await createClient(t, { idus: [] });
    await request(t.url)
      .patch(`/api/v1/admin/clients/${clientId}`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ language: 'en' })
      .expect(200);
    const browser = new DashboardClient(t.url, 'zh-CN,zh;q=0.9');
    expect((await browser.signIn((await signInLink(t, clientId)).url)).status).toBe(303);
    const check = await browser.post('/dashboard/declarations', {
      period: '2025-S2',
      stream: ['EMB'],
      material: ['Paper and cardboard'],
      quantity_kg: ['360'],
      quantity_uvc: ['20,000'],
      action: 'submit',
    });
    expect(check.status).toBe(200);
    const filed = await browser.declare(check, 'Wei Zhang');
    const pages = {
      overview: await browser.get('/dashboard'),
      tokens: await browser.get('/dashboard/tokens'),
      declarations: await browser.get('/dashboard/declarations'),
      newForm: await browser.get('/dashboard/declarations/new'),
      check,
      confirmation: await browser.get(filed.location!),
      products: await browser.get('/dashboard/products'),
    };
    const found: Record<string, string[]> = {};
    for (const [name, page] of Object.entries(pages)) {
      expect([name, page.status]).toEqual([name, 200]);
      const words = frenchWords(page.html);
      if (words.length > 0) found[name] = [...new Set(words)];
    }
    expect(found).toEqual({});
    // No IDU yet: the overview says what it is and where to learn how to get one.
    expect(pages.overview.html).toContain('<a href="/selling-from-abroad#idu">How to get one, from abroad too</a>');
  });

  it('finds French where there is some: the detector is not blind', () => {
    expect(frenchWords('<p>Déclaration des emballages</p>')).toEqual(['Déclaration', 'des', 'emballages']);
    expect(frenchWords('<p>Environmental Code (Code de l’environnement), article L541-10</p>')).toEqual([]);
    expect(frenchWords('<a href="/fr/" lang="fr">Français</a><p>du 1er janvier</p>')).toEqual(['du']);
  });
});
