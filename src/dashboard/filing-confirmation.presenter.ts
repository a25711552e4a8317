import type { Account } from '../accounts/account.js';
import type { DeclarationRecord } from '../declarations/declaration.js';
import { DeclarationDto } from '../declarations/dto/declaration.dto.js';
import { formatDateTime, formatQuantity } from '../i18n/format.js';
import { inLanguage, type Language } from '../i18n/language.js';
import { MESSAGES } from '../i18n/messages/index.js';
import type { OutgoingMail } from '../mail/mail-outbox.js';
import type { ReferenceCatalogue } from '../reference/reference-catalogue.js';

/** What happens after filing, as the reference data states it once (pricing.json `who_files`): the operator's part, the producer's, and by when. */
export function whoFilesNext(catalogue: ReferenceCatalogue, language: Language): string[] {
  const w = catalogue.whoFiles;
  return [w.operator_does, w.you_still_do, w.by_when].map((text) => text[language].replace(/\s+/g, ' ').trim());
}

/** The confirmation e-mail of a dashboard filing, in the client's language, with a link to the declaration's page. */
export function filedMail(
  catalogue: ReferenceCatalogue,
  site: { baseUrl: string; contact: string | null },
  account: Account,
  to: string,
  language: Language,
  filed: DeclarationRecord,
): OutgoingMail {
  const d = DeclarationDto.from(filed, catalogue);
  const words = MESSAGES[language].mail.filed;
  const by = d.submitted_by?.type === 'dashboard' ? (d.submitted_by.declared_by_name ?? '') : '';
  return {
    kind: 'declaration_filed',
    clientId: account.clientId,
    to,
    language,
    subject: words.subject({ period: d.period, receipt: d.receipt }),
    text: words.text({
      company: account.profile.company ?? account.clientId,
      period: d.period,
      revision: d.revision,
      receipt: d.receipt,
      name: by,
      at: formatDateTime(language, d.submitted_at),
      lines: d.lines.length,
      totals: d.totals.map((total) => `${total.stream} ${formatQuantity(language, total.quantity, total.unit)}`),
      unitsSold: d.units_sold.map(
        (entry) => `${entry.stream} ${formatQuantity(language, entry.quantity, catalogue.countUnitOf(entry.stream) ?? 'uvc')}`,
      ),
      counts: d.lines
        .filter((line) => !catalogue.addsAcrossMaterials(line.unit) && !d.units_sold.some((entry) => entry.stream === line.stream))
        .map(
          (line) =>
            `${line.stream}, ${line.material_category?.name?.[language] ?? line.material}${MESSAGES[language].site.colon} ${formatQuantity(language, line.quantity, line.unit)}`,
        ),
      url: inLanguage(`${site.baseUrl}/dashboard/declarations/${d.id}`, language),
      contact: site.contact,
      next: whoFilesNext(catalogue, language),
    }),
  };
}
