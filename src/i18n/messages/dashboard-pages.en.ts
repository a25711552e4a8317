/**
 * The dashboard's pages in English: one top-level section of the catalogue
 * (`dashboardPages`), kept in its own file so that the catalogue's other sections stay as they are.
 * The French one (dashboard-pages.fr.ts) has the same shape.
 */
import { formatNumber, plural } from '../format.js';

const n = (value: number | string) => formatNumber('en', value);
const times = (count: number, one: string, other: string) => `${n(count)} ${plural('en', count, { one, other })}`;

export const dashboardPagesEn = {
  common: {
    halfYear: 'Half-year',
    revision: 'Revision',
    revisionN: (revision: number) => `revision ${revision}`,
    status: 'Status',
    receipt: 'Receipt',
    submitted: 'Submitted',
    lines: 'Lines',
    totals: 'Totals',
    massTotals: 'Total weight',
    unitsSold: 'Units sold (UVC)',
    unitsSoldNotStated: 'not stated',
    countsOnly:
      'Units sold not stated: only the counts of consumer sales units per material are known (see the lines). They do not add up: a unit whose packaging combines several materials counts on the line of each.',
    stream: 'Stream',
    material: 'Material',
    category: 'Category',
    unit: 'Unit',
    quantity: 'Quantity',
    inForce: 'in force',
    superseded: 'superseded',
    none: '—',
    never: 'never',
    timesNote: 'Times are Paris times (Europe/Paris).',
    newDeclaration: 'New declaration',
    /** On every page that shows declarations or products: which of the client's data it shows. */
    liveData: 'Live data.',
    liveDataText:
      'These pages show your real declarations, from which the operator makes your annual declaration to your eco-organism, and the products they come from. What your software files with a test token stays in your test environment and is not shown here.',
    createTestToken: 'Create a test token',
    aboutSandbox: 'How the test environment works',
  },
  overview: {
    title: 'Overview',
    account: 'Your account',
    pendingTitle: 'Onboarding pending.',
    pendingText:
      'The operator has not confirmed your account yet. What is due is shown once it is confirmed, and declarations are refused until then.',
    clientId: 'Client identifier',
    company: 'Company',
    country: 'Country',
    email: 'E-mail address',
    plan: 'Plan',
    streams: 'Streams',
    idus: 'Unique identifiers (IDU)',
    noIdu:
      'None yet. The IDU is the registration number ADEME, the French environment agency, gives you for each stream once you have joined an eco-organism; marketplaces ask for it before they sell your products.',
    noIduNext: 'How to get one, from abroad too',
    iduPath: '/selling-from-abroad#idu',
    confirmed: 'Confirmed on',
    notYet: 'not yet',
    waiting: 'Waiting for the operator’s confirmation',
    waitingText: (change: boolean) =>
      `The operator has recorded this ${change ? 'change to your profile' : 'profile'}; it applies once confirmed.`,
    due: 'What is due',
    nothingYet: 'Nothing yet: what is due is worked out once your account is confirmed.',
    periodsOf: (stream: string) => `Half-years of ${stream}`,
    declaration: 'Declaration',
    deadline: 'Next deadlines',
    state: {
      open: 'in progress',
      to_declare: 'to declare',
      overdue: 'overdue',
      declared: 'declared',
    },
    year: (year: string, due: string) => `${year}: S1 + S2 make the annual declaration, due by ${due}.`,
    yearNoDue: (year: string) => `${year}: S1 + S2 make the annual declaration.`,
    /** Where the year's count of sales units puts the client with an eco-organism (GET /api/v1/me/years/{year}). */
    tier: (p: { eco: string; low: string; high: string; soFar: boolean; tier: string; known: boolean }) =>
      p.known || p.low === p.high
        ? `With ${p.eco}: ${p.low} consumer sales units sold${p.soFar ? ' so far' : ''} → ${p.tier}.`
        : `With ${p.eco}: between ${p.low} (the largest count of one material) and ${p.high} consumer sales units (the counts of all materials together, were no unit to combine two)${p.soFar ? ' so far' : ''} → ${p.tier}. This is a range because your units sold are not stated: only the counts per material are known, and a unit whose packaging combines several materials counts on the line of each. State your units sold in the declaration for an exact figure.`,
    tierOpen: (p: { eco: string; low: string; high: string; soFar: boolean; tiers: string; known: boolean }) =>
      `With ${p.eco}: between ${p.low} (the largest count of one material) and ${p.high} consumer sales units (the counts of all materials together, were no unit to combine two)${p.soFar ? ' so far' : ''}. This is a range because your units sold are not stated: only the counts per material are known, and a unit whose packaging combines several materials counts on the line of each. The filing depends on your exact number of units sold: ${p.tiers}. State your units sold in the declaration to know it.`,
    annual: 'The two half-years of a year (S1 and S2) are added together for the eco-organism’s annual declaration.',
    computedOn: (date: string, version: number) =>
      `Worked out on ${date} (date in France) from the published streams data, version ${version}.`,
    sessions: 'Where you are signed in',
    sessionsText: (count: number) =>
      `${count === 1 ? 'One browser is' : `${n(count)} browsers are`} signed in to this account’s dashboard now, this one included. Signing out everywhere ends them all; API tokens keep working.`,
    signOutEverywhere: 'Sign out everywhere',
    /** Per stream, what the client owes before filing: eco-organism, tier, deadline, what happens after. */
    owes: {
      eco: 'Your eco-organism',
      ecoUnknown: 'Not recorded yet: the operator records it with your stream. Tell the operator which eco-organism your contract is with.',
      tier: 'Your filing',
      tierFrom: (p: { eco: string; tier: string; year: string }) =>
        `${p.tier} with ${p.eco}, from your declarations of ${p.year} (the detail is below).`,
      tierRange: (p: { eco: string; tiers: string; year: string }) =>
        `To be confirmed with ${p.eco}: ${p.tiers}, from your declarations of ${p.year}. They state no units sold, only counts per material, which give a range (the detail is below).`,
      tierUnknown:
        'To be confirmed: it depends on how many consumer sales units (UVC) you place on the market in the year, which you have not declared yet. State your units sold in your first declaration to know it.',
      published: (eco: string, bands: string) => `Tiers published by ${eco}: ${bands}.`,
      band: (p: { label: string; from: string; below: string | null; unit: string }) =>
        p.below === null
          ? `${p.label} from ${p.from} ${p.unit} a year`
          : p.from === '0'
            ? `${p.label} under ${p.below} ${p.unit} a year`
            : `${p.label} from ${p.from} to under ${p.below} ${p.unit} a year`,
      noTiers: 'No filing tiers are published for this stream: file your figures of each half-year.',
      deadline: 'Annual deadline',
      deadlineOf: (year: string, date: string) => `${year} (S1 + S2): by ${date}.`,
      noDeadline: 'No deadline is published for this stream.',
      calendar: (eco: string, text: string) => `At ${eco}: ${text}`,
      after: 'After you file',
      afterLink: 'What the operator does, what stays yours, and the eco-organism’s dates',
    },
    /** Who files what with the eco-organism: the headings of the statement pricing.json holds once. */
    whoFiles: {
      heading: 'Who files what with your eco-organism',
      you_give: 'What you give the service',
      operator_does: 'What the operator does',
      you_still_do: 'What you still do yourself',
      by_when: 'By when',
    },
  },
  tokens: {
    title: 'API tokens',
    lead: 'Tokens let your company’s software (ERP, seller tools) send declarations through the API. Each token is shown once, when it is created.',
    testHeading: 'Trying out your software: test tokens',
    testText:
      'A test token (it starts with eprt_) files in a test environment of your own: what your software sends with it is never passed on and never shown on the other pages of this dashboard, and you can wipe it at any time.',
    create: 'Create a token',
    name: 'Name',
    nameHint: 'What will use it, for example “ERP production”.',
    nameError: 'Give the token a name of 1 to 100 characters, for example the software that will use it.',
    expires: 'Expires on (optional)',
    expiresHint: 'At most 2 years ahead. Leave it empty for a token that does not expire.',
    expiresInvalid: 'Enter a date as day, month and year, for example 30/06/2027, or leave it empty for a token that does not expire.',
    expiresPast: 'The expiry date must be in the future: choose a later date.',
    expiresTooFar: 'A token lives at most 2 years: choose an earlier date.',
    mode: 'Kind of token',
    modeNames: { live: 'Live token (production)', test: 'Test token' },
    modeHints: {
      live: 'What it files are your real declarations, from which the operator makes your annual declaration to your eco-organism.',
      test: 'To try out your software: it starts with eprt_, and what it files stays in your test environment, never passed on and never shown in the dashboard. You can wipe it at any time.',
    },
    /** The badge of each token in the list, read at a glance. */
    modeBadges: { live: 'Live', test: 'Test' },
    modeError: 'Choose a live token (production) or a test token.',
    submit: 'Create token',
    list: 'Your tokens',
    none: 'No token yet.',
    prefix: 'Starts with',
    created: 'Created',
    expiresColumn: 'Expires',
    lastUsed: 'Last used',
    createdBy: 'Created by',
    byYou: 'you (dashboard)',
    byOperator: 'the operator',
    state: 'State',
    states: { active: 'active', revoked: 'revoked', expired: 'expired' },
    revoke: 'Revoke',
    noName: '(no name)',
    revoked: (prefix: string) => `The token ${prefix}… is revoked: it no longer works.`,
    createdTitle: 'Token created',
    copyNow: 'Copy this token now.',
    copyNowText: 'It is shown this once: only a fingerprint of it is kept, so nobody can show it to you again.',
    tokenLabel: (name: string) => `Token “${name}”`,
    copy: 'Copy',
    copied: 'Copied to the clipboard.',
    selectAndCopy: 'Select the token and copy it (Ctrl+C or Cmd+C).',
    useIt: 'Your software sends it with each request, in the Authorization header, for example:',
    expiresOn: (date: string) => `It expires on ${date}.`,
    noExpiry: 'It does not expire: revoke it when it is no longer used.',
    createdTest:
      'This is a test token: it reaches only your test data, with a request budget of its own. To start again from nothing, wipe your test data:',
    createdLive: 'This is a live token: what it files are your real declarations. To try out your software first, create a test token.',
    back: 'Back to your tokens',
    revokeTitle: 'Revoke a token',
    revokeQuestion: (name: string, prefix: string) => `Revoke the token “${name}” (${prefix}…)?`,
    revokeConsequence: 'Any software that uses it is refused from its next request on. This cannot be undone: create a new token instead.',
    revokeSubmit: 'Revoke token',
  },
  declarations: {
    title: 'Declarations',
    filter: 'Filter declarations',
    revisions: 'Revisions',
    all: 'all',
    filterSubmit: 'Filter',
    noMatch: 'No declaration matches these filters.',
    none: 'No declaration yet.',
    yours: 'Your declarations',
    caption: 'Your declarations, newest first',
    pages: 'Pages',
    firstPage: 'First page',
    nextPage: 'Next page',
  },
  declaration: {
    title: (period: string, revision: number) => `Declaration ${period}, revision ${revision}`,
    created: (revision: number, receipt: string) => `Declaration recorded: revision ${revision}, receipt ${receipt}.`,
    unchanged: 'Nothing changed: these lines are the ones already in force for this half-year.',
    catalogueVersion: 'Reference data used',
    catalogueNumber: (version: number) => `streams catalogue no. ${version}`,
    thisOne: 'this one',
    download: 'Download as CSV',
    linesCaption: (count: number) => `The ${times(count, 'line', 'lines')} of this revision`,
    revisionsOf: (period: string) => `Revisions of ${period}`,
    all: 'All declarations',
  },
  check: {
    title: 'Check your declaration before filing it',
    lead: 'Nothing is filed yet. Check what will be filed; change it if needed, then declare it.',
    replaces: (revision: number, receipt: string, at: string) =>
      `Filing this replaces revision ${revision} (receipt ${receipt}, filed ${at}), which stays readable.`,
    first: 'This is the first declaration for this half-year.',
    unchanged: (revision: number, receipt: string) =>
      `Unchanged: these are the figures of revision ${revision} in force (receipt ${receipt}). Filing them again makes no new revision.`,
    warningsTitle: 'To check before filing',
    warningsLead: 'These points do not stop the filing. Correct them if they are mistakes; keep them if they are right.',
    linesCaption: (count: number) => `The ${times(count, 'line', 'lines')} that will be filed`,
    change: 'Change the declaration',
    declareTitle: 'Declaration',
    statement:
      'I declare that the information in this declaration is accurate and complete, and that I am authorised to file it for my company.',
    name: 'Your full name',
    nameHint: 'First name and surname, as you sign, for example Claire Martin.',
    nameMissing: 'Enter your full name to declare, for example Claire Martin.',
    nameTooLong: 'Enter your full name in 200 characters at most.',
    file: 'Declare and file',
    stale: (revision: number) =>
      `Another revision (revision ${revision}) was filed for this half-year since this page was shown: check again what filing this one would replace.`,
    expired: 'This check page is no longer valid (you signed in again since it was shown). Fill in the declaration again.',
    // The summary of a long declaration, its downloadable detail and its warnings grouped by kind.
    summaryLead: (lines: number, materials: number) =>
      `${times(lines, 'line', 'lines')}, summarised by stream and material (${times(materials, 'material', 'materials')}): each material’s mass and consumer sales units (UVC) side by side. Every line is filed; the detail is in the file to download.`,
    summaryCaption: (materials: number) => `The lines summarised by stream and material (${times(materials, 'material', 'materials')})`,
    mass: 'Mass',
    units: 'UVC',
    lineCount: 'Lines',
    summaryMore: (shown: number, total: number) =>
      `The first ${n(shown)} materials of ${n(total)} are shown: the others are in the detail to download.`,
    download: 'Download the detail (CSV)',
    downloadHint: 'Every line, in the declaration template’s format: the file uploads again as it is.',
    downloadFile: 'declaration-detail.csv',
    warningsMore: (count: number) => `… and ${times(count, 'other line', 'other lines')} with the same warning.`,
  },
  filed: {
    title: 'Declaration filed',
    receipt: 'Your receipt',
    by: 'Declared by',
    at: 'Filed on',
    next: 'What happens next',
    nextText:
      'The declaration is recorded for this half-year; the two half-years of a year (S1 and S2) are added together for the annual declaration. To correct it, file it again: the new revision replaces this one, which stays readable.',
    mailSent: (email: string) => `A confirmation e-mail is sent to ${email}.`,
  },
  form: {
    title: 'New declaration',
    notConfirmed: 'Your account is not confirmed yet: declarations are refused until the operator confirms it.',
    lead: 'A declaration covers one half-year. Filing again for the same half-year makes a new revision; earlier ones stay readable.',
    byForm: 'Fill in the lines',
    periodHint: (example: string) => `The year, then S1 (January to June) or S2 (July to December), for example ${example}.`,
    unitsSold: (stream: string, name: string) => `Consumer sales units (UVC) sold in the half-year, ${stream} · ${name}`,
    unitsSoldHint: `Each unit once, whatever its materials: for example ${n(90000)} for ${n(90000)} jars sold, even though each has a glass jar and a steel lid. This figure decides your filing tier; without it, only a range can be given. Optional.`,
    linesLabel: 'Lines of the declaration',
    caption: `One line per material: its mass in kg and, for household packaging, its consumer sales units (UVC) — the units whose packaging contains that material (for example ${n(85000)} for paperboard when ${n(85000)} of the ${n(90000)} units sold come in a paperboard box).`,
    lineNumber: 'Line',
    quantityIn: (unit: string) => `Quantity in ${unit}`,
    emptyLines:
      'Empty lines are left out. Write numbers as you usually do, with a decimal point: 1,200.5 or 20,000. Masses in kg with up to 3 decimals, consumer sales units (UVC) as whole numbers.',
    add: 'Add a line',
    submit: 'Check the declaration',
    byFile: 'Or upload a spreadsheet',
    fileHelp:
      'A CSV file with the columns stream, material, unit and quantity (or filière, matériau, unité, quantité), separated by commas or semicolons, as Excel or LibreOffice save it. A row in UVC with the material cell left empty states the units sold in the half-year (for example 90,000 for EMB).',
    template: 'Blank template',
    templateFile: 'declaration-template.csv',
    file: 'CSV file',
    upload: 'Upload and check',
    nothingStoredFrom: (file: string) => `Nothing was recorded from ${file}.`,
    tooManyLines: (max: number) => `The form holds at most ${n(max)} lines: upload a spreadsheet (CSV) for more, up to ${n(1000)}.`,
    report: 'Download the error report (CSV)',
    reportHelp: (total: number, max: number) =>
      `Your file back with one row per problem: its row number in your file, its type (error or warning), its code and what to do, in your file’s format, to open beside it. It lists at most ${n(max)} problems${total > max ? `: here the first ${n(max)} of ${n(total)}; fix them, then upload the file again to see the others` : ''}.`,
  },
  productFile: {
    /** The header of the per-product template, per column code (products/spreadsheet/product-sheet.ts reads these first). */
    columns: {
      product: 'product',
      units: 'units sold in the half-year',
      element: 'packaging element',
      material: 'material',
      weight_g: 'weight (g)',
      per_unit: 'number per unit',
      stream: 'stream',
    },
    byFile: 'From your per-product spreadsheet',
    lead: `One row per packaging element of each product: the product (its name or reference), its consumer sales units (UVC) sold in the half-year, the element, its material (a published category, by name), its weight in grams and how many a unit holds. Write the units sold on the product’s first row only or on every row; a row whose product cell is empty belongs to the product above. Write numbers as usual: 60,000 or 45.5.`,
    templates: 'Templates, with an example and the materials:',
    templateFile: (extension: string) => `per-product-template.${extension}`,
    templateName: { xlsx: 'Excel (.xlsx)', ods: 'LibreOffice (.ods)', csv: 'CSV' },
    sheetProducts: 'Products',
    sheetMaterials: 'Materials',
    materialsNote: 'The published material categories of the stream: write one of these names in the material column.',
    examples: {
      shortbread: 'Shortbread biscuits, 200 g box',
      butter: 'Butter biscuits, 150 g box',
      spread: 'Caramel spread, 220 g jar',
      box: 'box',
      film: 'plastic film',
      jar: 'jar',
      lid: 'lid',
    },
    file: 'Your file (Excel, LibreOffice or CSV)',
    upload: 'Upload and check',
    columnsTitle: 'Which column is which?',
    columnsLead: (file: string) =>
      `The headers of ${file} are not the template’s. Say once which of its columns holds each piece of information: it is remembered for your next upload.`,
    column: 'Column',
    noColumn: '(none)',
    optional: '(optional)',
    columnsSubmit: 'Use these columns and check',
    columnsInvalid: 'Choose a column for the product, the units sold, the material and the weight, each column once.',
    where: (row: number, column: string | undefined) => (column ? `Row ${n(row)}, column “${column}”` : `Row ${n(row)}`),
    refused: {
      not_a_spreadsheet:
        'This file is not a spreadsheet that can be read: save it as Excel (xlsx), LibreOffice (ods) or CSV, then upload it again.',
      empty_file: 'The file is empty: choose the file of your products.',
      spreadsheet_too_big: (max: number) =>
        `The file holds far more than a per-product file does (over ${n(Math.round(max / 1048576))} MB once opened): it was not read. Upload the sheet of your products alone, at most ${n(5000)} rows.`,
      too_many_rows: (max: number) => `The file has more than ${n(max)} rows: split it, or declare per material with the form.`,
    },
    streamColumn: 'Your account has several streams: add a stream column (e.g. EMB) to the file.',
    productsTitle: 'Per product',
    productsCaption: (count: number) => `The ${times(count, 'product', 'products')} of the file and their packaging`,
    productsMore: (shown: number, total: number) => `The first ${n(shown)} of ${n(total)} products are shown; all of them are filed.`,
    product: 'Product',
    unitsSold: 'Units sold',
    packaging: 'Packaging',
    element: (material: string, grams: string, perUnit: number) => `${material}, ${grams} g${perUnit === 1 ? '' : ` × ${n(perUnit)}`}`,
    keep: 'Keep these products as my catalogue',
    keepHint: 'Their packaging and their units sold are saved on the Products page: next half-year, you only type the units sold.',
    derivedFrom: 'Derived from your products and their sales in the half-year.',
    derivedProductsCaption: (count: number) => `The ${times(count, 'product', 'products')} sold in the half-year and their packaging`,
  },
  signIn: {
    signedOutEverywhere: 'You are signed out on every browser and device.',
    emailNonAscii:
      'Type the address of your account with Latin letters, digits, dots, hyphens, underscores, plus signs and @ only: it holds another character (perhaps a letter of another alphabet that looks like a Latin one).',
  },
  error: {
    heading: (status: number) => `Error ${status}`,
  },
};
