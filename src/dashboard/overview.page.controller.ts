import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { DashboardPage } from '../caller/audience.js';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { NotFoundProblem } from '../common/problem/problem.js';
import type { StreamSettingView } from '../accounts/client-streams.read-model.js';
import { ObligationsService } from '../declarations/obligations/obligations.service.js';
import type { PeriodObligation } from '../declarations/obligations/obligations.js';
import { tierPlacements, type YearLine } from '../declarations/years/annual-filing.js';
import { parsePeriod } from '../calendar/half-year.js';
import type { Language } from '../i18n/language.js';
import { formatCountry } from '../i18n/format.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DashboardViews } from './dashboard-views.js';
import { type OverviewData, OverviewRepository } from './overview.repository.js';

/** The account as GET /me shows it, and what is due: the same rules as GET /me/obligations. */
@ApiExcludeController()
@DashboardPage()
@Controller('dashboard')
export class OverviewPageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly obligations: ObligationsService,
    private readonly overviewData: OverviewRepository,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Get()
  async overview(@Req() req: Request, @Res() res: Response, @CurrentAccount() account: Account): Promise<void> {
    // Everything the page shows besides the account, in one statement.
    const data = await this.overviewData.read(account.clientId);
    if (!data) throw new NotFoundProblem(`Client "${account.clientId}"`);
    const { settings } = data;
    const startOf = (stream: string) => settings.find((s) => s.stream === stream)?.liableFrom ?? null;
    const obligations = this.obligations.of(account, data.declared, startOf);
    const m = this.views.messages(req, res);
    const language = this.views.language(req, res);
    // Where each year with a declaration puts the client in the eco-organisms' filing tiers (as GET /api/v1/me/years/{year} says it).
    const declaredYears = new Set(
      obligations.streams.flatMap((s) => s.periods.filter((p) => p.declaration).map((p) => p.period.slice(0, 4))),
    );
    const tiersOf = (stream: string, year: string) =>
      declaredYears.has(year) ? this.tierLines(data, stream, year, obligations.today, language) : [];
    const streams = obligations.streams.map((stream) => {
      const years = byYear(stream.periods).map((y) => ({ ...y, tiers: tiersOf(stream.stream, y.year) }));
      return { ...stream, years, owes: this.owes(stream.stream, years, settings, language) };
    });
    this.views.render(
      req,
      res,
      'overview',
      { title: m.dashboardPages.overview.title, nav: 'overview', liveData: true },
      {
        account,
        obligations,
        streams,
        pending: data.pending,
        sessions: data.sessions,
        // The plan by its published name, the country by its name in the page's language, who files what as the reference data says it.
        planName: (id: string | null) => (id === null ? null : (this.catalogue.plan(id)?.name ?? id)),
        countryName: (code: string | null) => (code === null ? null : formatCountry(language, code)),
        whoFiles: (['you_give', 'operator_does', 'you_still_do', 'by_when'] as const).map((key) => ({
          key,
          text: this.catalogue.whoFiles[key][language],
        })),
      },
    );
  }

  /**
   * What the client owes for a stream before filing: its eco-organism (the operator's record), its
   * tier (from the newest year it declared: units sold, else a range; before any declaration, to be
   * confirmed, with the eco-organism's published tiers), the nearest annual deadline and the
   * eco-organism's own calendar. What happens after filing is the `who_files` statement below.
   */
  private owes(
    stream: string,
    years: readonly { year: string; due: string | null; settled: boolean; periods: PeriodObligation[]; tiers: TierLine[] }[],
    settings: readonly StreamSettingView[],
    language: Language,
  ) {
    const eco = settings.find((s) => s.stream === stream)?.ecoOrganism ?? null;
    const schemes = this.catalogue.filingSchemes(stream).filter((s) => eco === null || s.ecoOrganism === eco);
    const declared = years.find((y) => y.periods.some((p) => p.declaration));
    const placements = (declared?.tiers ?? []).filter((tier) => eco === null || tier.eco === eco);
    // The nearest year still to settle (years are newest first), else the newest with a deadline.
    const deadline = [...years].reverse().find((y) => !y.settled && y.due) ?? years.find((y) => y.due) ?? null;
    return {
      eco,
      tier: declared && placements.length > 0 ? { year: declared.year, placements } : null,
      published: schemes
        .filter((s) => s.filing.tiers.length > 0)
        .map((s) => ({
          eco: s.ecoOrganism,
          unit: s.filing.count_unit,
          bands: s.filing.tiers.map((tier) => ({
            label: tier.label[language],
            from: tier.uvc_per_year.from,
            below: tier.uvc_per_year.below,
          })),
        })),
      deadline: deadline ? { year: deadline.year, due: deadline.due! } : null,
      calendars: schemes.flatMap((s) => (s.filing.calendar ? [{ eco: s.ecoOrganism, text: s.filing.calendar.text[language] }] : [])),
    };
  }

  /**
   * A stream's tier placements of a year, as the page says them: the count's bounds, the tier or
   * the tiers it may be in, in the page's language. The count is "so far" until both half-years
   * have ended and been declared (the year's `complete`).
   */
  private tierLines(data: OverviewData, stream: string, year: string, today: string, language: Language): TierLine[] {
    const scheme = this.catalogue.stream(stream);
    if (!scheme) return [];
    const complete = [`${year}-S1`, `${year}-S2`].every(
      (code) => parsePeriod(code)!.end < today && data.declared.some((d) => d.period === code),
    );
    const lines = (data.yearLines.get(year) ?? []) as YearLine[];
    return (
      tierPlacements([scheme], lines, data.yearUnitsSold.get(year) ?? [], Number(year), (s, eco, count) =>
        this.catalogue.filingTier(s, eco, count),
      )
        // An eco-organism that publishes no tiers places no one: nothing to say.
        .filter((placement) => placement.count !== null && placement.possible_tiers.length > 0)
        .map((placement) => {
          const label = (id: string) =>
            this.catalogue.filingScheme(stream, placement.eco_organism)?.tiers.find((tier) => tier.id === id)?.label[language] ?? id;
          return {
            eco: placement.eco_organism,
            low: placement.count!.at_least,
            high: placement.count!.at_most,
            // Every half-year states its units sold: the count is known, not a range.
            known: placement.count!.basis === 'units_sold',
            soFar: !complete,
            tier: placement.tier ? placement.tier.label[language] : null,
            tiers: placement.possible_tiers.map(label),
          };
        })
    );
  }
}

/** A tier placement as the page says it. */
interface TierLine {
  eco: string;
  low: string | number;
  high: string | number;
  known: boolean;
  soFar: boolean;
  tier: string | null;
  tiers: string[];
}

/**
 * A stream's half-years by year, newest first: S1 and S2 of a year are added together for the
 * eco-organism's annual declaration, so the year's deadline is said once.
 */
function byYear(
  periods: readonly PeriodObligation[],
): { year: string; due: string | null; periods: PeriodObligation[]; settled: boolean }[] {
  const years = new Map<string, PeriodObligation[]>();
  for (const period of periods) years.set(period.period.slice(0, 4), [...(years.get(period.period.slice(0, 4)) ?? []), period]);
  return [...years.entries()]
    .sort(([a], [b]) => (a < b ? 1 : -1))
    .map(([year, list]) => ({
      year,
      due: list.find((p) => p.due_date)?.due_date ?? null,
      periods: list,
      settled: list.every((p) => p.status === 'declared'),
    }));
}
