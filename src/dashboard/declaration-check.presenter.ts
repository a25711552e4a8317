import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import type { AuthenticatedClient } from '../caller/current-client.js';
import type { CheckedDeclaration } from '../declarations/declarations.service.js';
import type { Language } from '../i18n/language.js';
import { formatNumber, formatQuantity } from '../i18n/format.js';
import type { FieldError } from '../common/problem/problem.js';
import { ExactNumber } from '../common/http/json-body.js';
import type { KeptProduct } from '../products/products.service.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DashboardViews, localizeErrors } from './dashboard-views.js';

/** The purpose of the seal on a pending declaration. */
const PENDING = 'pending-declaration';
/** Products the check page lists at most; the others are counted in a note (all are filed, and kept when asked). */
export const CHECK_PAGE_PRODUCTS = 50;
/** Lines the check page lists one by one at most; past it, they are summarised per stream and material (CHECK_PAGE_LINES rows at most), the detail downloadable. */
export const CHECK_PAGE_LINES = 100;
/** Warnings of one kind said in full; the others of that kind are counted. */
export const CHECK_PAGE_WARNINGS = 3;
/** The most bytes a sealed pending declaration inflates to (a 1,000-product file is about 200 KB). */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** A product of a per-product file, as the check page carries it: reference (= name), stream, units sold, elements [material code, grams, per unit]. */
export type PendingProduct = [string, string, string, [string, string, number][]];

/** Where the lines of a check page come from, which decides how they are filed. */
export type PendingSource = 'form' | 'file' | 'derived';

export interface PendingDeclaration {
  period: string;
  lines: [string, string, string, string][];
  /** The units sold per stream, as checked (absent in a page sealed before they could be stated). */
  unitsSold?: [string, string][];
  /** The revision in force when it was checked (0: none), which filing it must replace. */
  replaces: number;
  /** Absent: the form or the line CSV. */
  source?: PendingSource;
  /** A per-product file's products (source `file`): detail on the page, the catalogue kept when asked. */
  products?: PendingProduct[];
}

export interface CheckPageOptions {
  /** A warning's line number as the person numbered the lines (the form's), or null to leave them. */
  lineOf: ((at: number) => number) | null;
  source?: PendingSource;
  products?: PendingProduct[];
  /** Products shown and not carried (a derived declaration's, filed again from the catalogue): the first ones, and how many there are. */
  shown?: { products: PendingProduct[]; count: number };
  keep?: boolean;
  name?: string;
  nameError?: string;
  notice?: string;
  status?: number;
}

/**
 * The one check page of every dashboard filing (the form, the line CSV, the per-product file, the
 * products page's derived declaration): lines, totals, units sold, per-product detail where known
 * (at most CHECK_PAGE_PRODUCTS), the revision replaced, warnings, and the declaration by name.
 *
 * The pending declaration goes to the browser as a hidden field sealed with an HMAC bound to the
 * session (CsrfProtection.seal): the simplest safe carrier — no draft table to clean up, the same on
 * every replica, and what comes back is exactly what was checked or nothing (a changed field or
 * another session's page does not verify). It is deflated when it carries products (a 1,000-product
 * file stays a few hundred kilobytes, within a form's 1 MiB), and validated again when filed.
 */
@Injectable()
export class DeclarationCheckPresenter {
  constructor(
    private readonly views: DashboardViews,
    private readonly catalogue: ReferenceCatalogue,
    private readonly csrf: CsrfProtection,
  ) {}

  render(req: Request, res: Response, client: AuthenticatedClient, checked: CheckedDeclaration, options: CheckPageOptions): void {
    const language = this.views.language(req, res);
    const { declaration } = checked;
    const products = options.products ?? [];
    const value = sealable({
      period: declaration.period,
      lines: declaration.lines.map((l) => [l.stream, l.material, l.unit, l.quantity]),
      unitsSold: declaration.unitsSold.map((u) => [u.stream, u.quantity]),
      replaces: checked.current?.revision ?? 0,
      ...(options.source && options.source !== 'form' ? { source: options.source } : {}),
      ...(products.length > 0 ? { products } : {}),
    });
    const m = MESSAGES[language].dashboardPages;
    const lines = declaration.lines;
    const summary = lines.length > CHECK_PAGE_LINES ? this.summary(language, lines) : null;
    this.views.render(
      req,
      res,
      'declaration-check',
      { title: m.check.title, nav: 'declarations', liveData: true },
      {
        period: declaration.period,
        lines: summary
          ? []
          : lines.map((l) => {
              const category = l.materialCode ? (this.catalogue.categoryName(l.stream, l.materialCode)?.[language] ?? null) : null;
              // A line derived from products names its material by code: a person reads its published name instead.
              return { ...l, material: category !== null && l.material === l.materialCode ? category : l.material, category };
            }),
        lineCount: lines.length,
        summary: summary?.rows ?? null,
        summaryLead: summary ? m.check.summaryLead(lines.length, summary.count) : null,
        summaryCaption: summary ? m.check.summaryCaption(summary.count) : null,
        summaryMore: summary && summary.count > CHECK_PAGE_LINES ? m.check.summaryMore(CHECK_PAGE_LINES, summary.count) : null,
        totals: checked.totals,
        unitsSold: declaration.unitsSold,
        countsOnly: this.countsOnly(lines, declaration.unitsSold),
        current: checked.current,
        unchanged: checked.unchanged,
        warnings: this.warningGroups(language, checked.warnings, checked.warningCounts, options.lineOf),
        pending: value,
        seal: this.csrf.seal(PENDING, client.sessionId ?? '', value),
        name: options.name ?? '',
        nameError: options.nameError ?? null,
        notice: options.notice ?? null,
        source: options.source ?? 'form',
        products: this.productRows(language, (options.shown?.products ?? products).slice(0, CHECK_PAGE_PRODUCTS)),
        productCount: options.shown?.count ?? products.length,
        productsMore:
          (options.shown?.count ?? products.length) > CHECK_PAGE_PRODUCTS
            ? m.productFile.productsMore(CHECK_PAGE_PRODUCTS, options.shown?.count ?? products.length)
            : null,
        keepable: products.length > 0,
        keep: options.keep ?? false,
      },
      options.status ?? 200,
    );
  }

  /** The pending declaration a check page's form sent back, if its seal verifies for this session; undefined otherwise. */
  open(value: string, seal: string, client: AuthenticatedClient): PendingDeclaration | undefined {
    if (value === '' || seal === '' || !this.csrf.verifySeal(PENDING, client.sessionId ?? '', value, seal)) return undefined;
    const bytes = value.startsWith('z.')
      ? inflateRawSync(Buffer.from(value.slice(2), 'base64url'), { maxOutputLength: MAX_PENDING_BYTES })
      : Buffer.from(value, 'base64url');
    return JSON.parse(bytes.toString('utf8')) as PendingDeclaration;
  }

  /** Whether a stream has per-material counts but no units sold stated: the page then says why they are not added up. */
  countsOnly(lines: readonly { stream: string; unit: string }[], unitsSold: readonly { stream: string }[]): boolean {
    return lines.some((line) => !this.catalogue.addsAcrossMaterials(line.unit) && !unitsSold.some((entry) => entry.stream === line.stream));
  }

  /**
   * A long declaration as a person reads it: one row per stream and material (in the order of their
   * first line), its mass and its counts side by side, never added up, with the number of lines. Only
   * the first CHECK_PAGE_LINES rows are shown: the others are counted, not built.
   */
  private summary(language: Language, lines: CheckedDeclaration['declaration']['lines']) {
    type Row = {
      stream: string;
      material: string;
      category: string | null;
      mass: string[];
      counts: string[];
      lines: number;
    };
    const rows = new Map<string, Row>();
    const hidden = new Set<string>();
    for (const line of lines) {
      const key = `${line.stream}\u0000${line.materialCode ?? line.material}`;
      let row = rows.get(key);
      if (!row) {
        if (rows.size === CHECK_PAGE_LINES) {
          hidden.add(key);
          continue;
        }
        const category = line.materialCode ? (this.catalogue.categoryName(line.stream, line.materialCode)?.[language] ?? null) : null;
        const material = category !== null && line.material === line.materialCode ? category : line.material;
        row = { stream: line.stream, material, category, mass: [], counts: [], lines: 0 };
        rows.set(key, row);
      }
      row.lines++;
      (this.catalogue.addsAcrossMaterials(line.unit) ? row.mass : row.counts).push(formatQuantity(language, line.quantity, line.unit));
    }
    return { rows: [...rows.values()], count: rows.size + hidden.size };
  }

  /**
   * The warnings by kind, in the order of their first line: the first CHECK_PAGE_WARNINGS of each
   * said in full, the others counted (a file of 1,000 uncategorised materials says it 3 times, not 1,000).
   * A form's row makes a line per unit: a warning about its material is said once. The warnings the
   * check did not carry (`counts`: past the first of each code) are counted with the others.
   */
  private warningGroups(
    language: Language,
    warnings: readonly FieldError[],
    counts: ReadonlyMap<string, number>,
    lineOf: CheckPageOptions['lineOf'],
  ) {
    const groups = new Map<string, { shown: FieldError[]; seen: Set<string>; omitted: number }>();
    for (const warning of warnings) {
      let group = groups.get(warning.code);
      if (!group) groups.set(warning.code, (group = { shown: [], seen: new Set(), omitted: counts.get(warning.code) ?? 0 }));
      group.omitted--;
      const at = lineOf ? /^\/lines\/(\d+)(\/.*)?$/.exec(warning.pointer) : null;
      const line = lineOf && at ? lineOf(Number(at[1])) : null;
      const key = line !== null ? `${line}${at![2] ?? ''}` : warning.pointer;
      if (group.seen.has(key)) continue;
      group.seen.add(key);
      if (group.shown.length < CHECK_PAGE_WARNINGS)
        group.shown.push(line !== null ? { ...warning, params: { ...warning.params, line } } : warning);
    }
    const words = MESSAGES[language].dashboardPages.check;
    return [...groups.values()].map(({ shown, seen, omitted }) => {
      const more = seen.size + Math.max(0, omitted) - shown.length;
      return { items: localizeErrors(language, shown), more: more > 0 ? words.warningsMore(more) : null };
    });
  }

  private productRows(language: Language, products: PendingProduct[]) {
    const words = MESSAGES[language].dashboardPages.productFile;
    return products.map(([reference, stream, units, elements]) => ({
      name: reference,
      stream,
      units,
      elements: elements.map(([code, grams, perUnit]) =>
        words.element(this.catalogue.categoryName(stream, code)?.[language] ?? code, formatNumber(language, grams), perUnit),
      ),
    }));
  }
}

/**
 * The pending declaration as a form field: base64url JSON, deflated (`z.` first) when it carries products
 * or more lines than the page lists (1,000 lines: 57 KB of the page as JSON, 8 KB deflated at level 1, for ~0.05 ms).
 */
function sealable(pending: PendingDeclaration): string {
  const json = Buffer.from(JSON.stringify(pending));
  return pending.products || pending.lines.length > CHECK_PAGE_LINES
    ? `z.${deflateRawSync(json, { level: 1 }).toString('base64url')}`
    : json.toString('base64url');
}

/** The most characters of the declarant's full name (the column's CHECK). */
const MAX_NAME = 200;

/**
 * The full name typed beside the statement on the check page, as stored (control and format characters removed,
 * spaces folded), and what is wrong with it in the page's language, if anything.
 */
export function readDeclarantName(typed: string, language: Language): { name: string; error: string | null } {
  const words = MESSAGES[language].dashboardPages.check;
  const name = typed
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
  return { name, error: name === '' ? words.nameMissing : name.length > MAX_NAME ? words.nameTooLong : null };
}

/** The declaration a sealed check page carries, as DeclarationsService takes it (quantities exact as typed). */
export function submittedDeclaration(pending: PendingDeclaration) {
  const unitsSold = pending.unitsSold ?? [];
  return {
    period: pending.period,
    lines: pending.lines.map(([stream, material, unit, quantity]) => ({ stream, material, unit, quantity: new ExactNumber(quantity) })),
    ...(unitsSold.length > 0
      ? { units_sold: unitsSold.map(([stream, quantity]) => ({ stream, quantity: new ExactNumber(quantity) })) }
      : {}),
  };
}

/** A per-product file's products as the check page carried them, as the catalogue keeps them. */
export function keptProducts(products: PendingProduct[]): KeptProduct[] {
  return products.map(([reference, stream, units, elements]) => ({
    reference,
    stream,
    units,
    elements: elements.map(([materialCode, weightG, perUnit]) => ({ materialCode, weightG, perUnit })),
  }));
}
