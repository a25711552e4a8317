import { Body, Controller, Get, Headers, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { type Actor, CurrentActor } from '../caller/actor.js';
import { ApiProblems } from '../common/openapi.js';
import { AdminApi } from '../caller/audience.js';
import { AccountsService, type ClientView } from './accounts.service.js';
import { clientEtag } from './client-etag.js';
import { createClientInput, CreateClientDto, StatusChangeDto, UpdateClientDto } from './dto/client-input.dto.js';
import { AdminClientDto, AdminClientPageDto, CreatedClientDto } from './dto/client.dto.js';
import { ListClientsQueryDto } from './dto/list-clients-query.dto.js';
import { ClientImportDto, DryRunQueryDto, ImportedClientDto } from './dto/client-import.dto.js';
import { IMPORT_CSV_COLUMNS, MAX_IMPORT_CLIENTS } from './clients-import.js';
import { csvHeader } from '../i18n/csv-columns.js';
import { Accepts, CsvBody } from '../common/http/request-body.js';

// Two clients as a French spreadsheet saves them (a dry run: the documented example creates nothing).
const IMPORT_EXAMPLE =
  `${csvHeader('clients', IMPORT_CSV_COLUMNS, 'fr').join(';')}\r\n` +
  'vins-du-sud;Vins du Sud SARL;conformite@vins-du-sud.fr;FR;business;EMB;FR000000_01ABCD;fr\r\n;Sample Ltd;compliance@sample.co.uk;GB;business;EMB;;en\r\n';

const CLIENT_ID_PARAM = { name: 'client_id', description: 'The client id', example: 'exemple-sas' };
const IF_MATCH = {
  name: 'If-Match',
  required: false,
  description:
    'The `ETag` read with the client (or `*`): the change applies only if it still matches, else 412 `precondition_failed`. ' +
    'An empty `If-Match` holds no tag, so matches nothing: 412.',
  schema: { type: 'string' },
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  required: false,
  description:
    'RFC 9110: `*` (or the client\'s current `ETag`) means "only if the client does not exist (or is not this version)"; the client exists, so it is 412 `precondition_failed` and nothing changes.',
  schema: { type: 'string' },
};
/** The conditional headers of a change, as the service reads them. */
const preconditionsOf = (ifMatch: string | undefined, ifNoneMatch: string | undefined) => ({ ifMatch, ifNoneMatch });

const ETAG = {
  ETag: {
    description: 'Strong entity tag of the client as returned: send it as `If-Match` to `PATCH` only if nobody changed the client since.',
    schema: { type: 'string', example: '"q3J0cXb1mXh0bQ2aT0d5i1rO2mE8yQc"' },
  },
};

/** The client as answered, with its ETag. */
function withEtag(res: Response, view: ClientView): AdminClientDto {
  res.setHeader('ETag', clientEtag(view));
  return AdminClientDto.from(view);
}

/** Operator: onboarding of clients. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/clients')
export class ClientsAdminController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createClient',
    summary: 'Create a client; with `"confirm": true, "invite": true`, confirm it and e-mail it an invitation in one call',
    description: [
      'The profile given is pending: clients see it only once it is confirmed. `client_id` is generated when absent. ',
      'Plans, streams, eco-organisms and `language` are matched without regard to case and accents (`Business`, `emb`, `citeo`, `LEKO`, `léko`) and stored as published.\n\n',
      "Each item of `streams` is a stream code or an object with the stream's `eco_organism` (one `/api/v1/streams.json` lists for the stream, its approval covering the half-year from which the client declares; else 422 `unknown_eco_organism`) ",
      'and `liable_from`, the half-year from which the client declares it: by default the half-year of its first confirmation, so a client confirmed today does not owe the half-year just ended unless `liable_from` says so. ',
      'The answer says, per stream, from which half-year the client is liable (`streams`, `liability`) and where to change it later (`href`: `PUT /admin/clients/{client_id}/streams/{stream}`).\n\n',
      '`"confirm": true` confirms the profile at once (it must be complete: 422 otherwise, pointers into this body). ',
      '`"invite": true` (with `"confirm": true`) e-mails the client a single-use sign-in link to its dashboard, valid 7 days, in its `language`, to its confirmed address; ',
      "the answer's `invitation` says what was sent, to whom and until when. Without SMTP_URL, or without `confirm`, it is 409. ",
      'All or nothing: the client, its confirmation, its streams and its invitation are written in one transaction, and any refusal (409, 422) leaves nothing. ',
      'Recorded as `client.created`, `client.confirmed`, `client.stream_updated` (per stream set) and `sign_in_link.issued`.',
    ].join(''),
  })
  @ApiBody({
    type: CreateClientDto,
    examples: {
      invite: {
        summary: 'Create, confirm and invite a French producer, liable for household packaging from the half-year just ended',
        value: {
          client_id: 'exemple-sas',
          email: 'compliance@exemple.fr',
          company: 'Exemple SAS',
          country: 'FR',
          plan: 'business',
          streams: [{ stream: 'EMB', eco_organism: 'citeo', liable_from: '2026-S1' }],
          idus: ['FR000000_01ABCD'],
          language: 'fr',
          confirm: true,
          invite: true,
        },
      },
      pending: {
        summary: 'Create a client to confirm later',
        value: {
          email: 'packaging@example.co.uk',
          company: 'Example Foods Ltd',
          country: 'GB',
          plan: 'starter',
          streams: ['EMB'],
          language: 'en',
        },
      },
    },
  })
  @ApiCreatedResponse({
    description: 'The new client, its streams with the half-year from which it is liable, and the invitation sent, if asked.',
    type: CreatedClientDto,
    headers: { Location: { description: 'URL of the new client', schema: { type: 'string' } } },
  })
  @ApiProblems(400, 409, 413, 415, 422)
  async create(
    @Body() body: CreateClientDto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreatedClientDto> {
    const created = await this.accounts.create(createClientInput(body), actor);
    res.location(`/api/v1/admin/clients/${encodeURIComponent(created.view.clientId)}`);
    return CreatedClientDto.fromCreated(created);
  }

  @Post('import')
  @HttpCode(200)
  @Accepts('csv')
  @ApiOperation({
    operationId: 'importClients',
    summary: 'Onboard many clients from a CSV file, all or nothing (a dry run unless `dry_run=false`)',
    description: [
      `One row per client with the fields of \`POST /admin/clients\`: \`client_id\` (optional, generated when empty), \`company\`, \`email\` (both required here), \`country\`, \`plan\`, \`streams\`, \`idus\` (lists: items separated by \`|\`, e.g. \`EMB|EMB_PRO\`), \`language\` (\`fr\` or \`en\`) `,
      `— or in French ${csvHeader('clients', IMPORT_CSV_COLUMNS, 'fr')
        .map((c) => `\`${c}\``)
        .join(', ')} — in any order, optional columns may be left out. `,
      `Comma or semicolon separated (detected), UTF-8 with or without BOM or Windows-1252; at most ${MAX_IMPORT_CLIENTS.toLocaleString('en')} clients (beyond: 422 \`too_many_clients\`) and 1 MiB (413).\n\n`,
      'The file is checked whole: every row by the rules of `POST /admin/clients` and the published plans and streams; a row repeating the `client_id`, or the company and e-mail address, of another row is `duplicate_client`; ',
      'a row naming a client that exists (its `client_id`, or the same company at the same address, pending or confirmed) is `client_exists`. ',
      'Any problem: 422 listing every one at its cell (`/rows/3/email`, with `row`, header = row 1) and nothing is created.\n\n',
      '**Dry run by default**: the answer (200) lists what would be created and nothing is written. With `?dry_run=false` the clients are created in one transaction, all or none (201), ',
      'each pending like after `POST /admin/clients` (confirm each afterwards), each recorded in the audit trail as `client.created` with `source: "import"` and its row.',
    ].join(''),
  })
  @ApiConsumes('text/csv')
  @ApiBody({
    required: true,
    schema: { type: 'string', maxLength: 1024 * 1024, description: 'The clients file: a header row, then one row per client.' },
    examples: { french: { summary: 'Two clients, as a French spreadsheet saves them', value: IMPORT_EXAMPLE } },
  })
  @ApiOkResponse({ description: 'Dry run: the clients the file would create; nothing was written.', type: ClientImportDto })
  @ApiCreatedResponse({ description: 'Applied (`dry_run=false`): the clients created, every row of the file.', type: ClientImportDto })
  @ApiProblems(400, 409, 413, 415, 422)
  async import(
    @Body() body: unknown,
    @Query() query: DryRunQueryDto,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ClientImportDto> {
    const apply = query.dry_run === 'false';
    const clients = await this.accounts.importCsv(body instanceof CsvBody ? body : undefined, apply, actor);
    if (apply) res.status(201);
    return { dry_run: !apply, count: clients.length, clients: clients.map(ImportedClientDto.from) };
  }

  @Get()
  @ApiOperation({
    operationId: 'listClients',
    summary: 'Find clients, newest first',
    description:
      '`q` searches the company and e-mail (pending or confirmed, ignoring case); `confirmed`, `plan` and `stream` filter (plan and stream in either profile), ' +
      '`eco_organism` keeps the clients with a stream set to that eco-organism, `status` those active, suspended or offboarded. ' +
      'Cursor pagination: pass `next_cursor` as `cursor` with the same filters until it is null.',
  })
  @ApiOkResponse({ description: 'A page of clients, newest first, with `next_cursor` when there are more.', type: AdminClientPageDto })
  @ApiProblems(422)
  async list(@Query() query: ListClientsQueryDto): Promise<AdminClientPageDto> {
    const { confirmed, eco_organism, ...rest } = query;
    const page = await this.accounts.list({
      ...rest,
      ecoOrganism: eco_organism,
      confirmed: confirmed === undefined ? undefined : confirmed === 'true',
    });
    return { data: page.items.map(AdminClientDto.from), has_more: page.hasMore, next_cursor: page.nextCursor };
  }

  @Get(':client_id')
  @ApiOperation({
    operationId: 'getClient',
    summary: 'Get a client with its pending and confirmed profile',
    description:
      'The confirmed profile is what the client sees at `GET /api/v1/me`; `unconfirmed_changes` tells whether the pending one differs from it.',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiOkResponse({ description: 'The client, with its pending and confirmed profile.', type: AdminClientDto, headers: ETAG })
  @ApiProblems(404)
  async get(@Param('client_id') clientId: string, @Res({ passthrough: true }) res: Response): Promise<AdminClientDto> {
    return withEtag(res, await this.accounts.get(clientId));
  }

  @Patch(':client_id')
  @ApiOperation({
    operationId: 'updateClient',
    summary: 'Change the pending profile (JSON merge patch)',
    description:
      'A field present replaces the pending value, `null` clears it (arrays become empty), an absent field is unchanged. ' +
      'Clients keep seeing the confirmed profile until the next `confirm`.\n\n' +
      '**Conditional update**: send the `ETag` of `GET /clients/{client_id}` as `If-Match`; if the client changed since (another operator, a confirmation, a suspension), ' +
      'the answer is 412 `precondition_failed` and nothing changes. An empty `If-Match`, and `If-None-Match: *`, are 412 too (RFC 9110: neither holds for a client that exists). ' +
      'Without either header the change applies unconditionally (last writer wins). An offboarded client cannot be changed: 409 `conflict`.',
  })
  @ApiConsumes('application/merge-patch+json', 'application/json')
  @ApiParam(CLIENT_ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ description: 'The client after the change of its pending profile.', type: AdminClientDto, headers: ETAG })
  @ApiProblems(400, 404, 409, 412, 413, 415, 422)
  async update(
    @Param('client_id') clientId: string,
    @Body() body: UpdateClientDto,
    @CurrentActor() actor: Actor,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdminClientDto> {
    return withEtag(res, await this.accounts.update(clientId, body, actor, preconditionsOf(ifMatch, ifNoneMatch)));
  }

  @Post(':client_id/confirm')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'confirmClient',
    summary: 'Confirm onboarding: the pending profile becomes what the client sees',
    description:
      'Needs email, company, country, plan and at least one stream, all valid against the published reference data, ' +
      'and every stream covered by the plan; otherwise 422 lists every problem with a pointer into the client (`/pending/...`). ' +
      'Confirming a profile confirmed already as it is changes and records nothing. An offboarded client cannot be confirmed: 409 `conflict`. ' +
      'No request body is needed (a JSON body, if sent, is ignored).',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiOkResponse({ description: 'The client, its pending profile now confirmed: what `GET /api/v1/me` shows.', type: AdminClientDto })
  @ApiProblems(400, 404, 409, 413, 415, 422)
  async confirm(@Param('client_id') clientId: string, @CurrentActor() actor: Actor): Promise<AdminClientDto> {
    return AdminClientDto.from(await this.accounts.confirm(clientId, actor));
  }

  @Post(':client_id/suspend')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'suspendClient',
    summary: "Suspend a client's access",
    description:
      'Its tokens are refused with 403 `account_suspended` (not 401: the credential is fine, the account is not) and its people see a page saying the account is suspended, ' +
      'at once on every replica. Nothing is revoked or deleted: declarations, tokens and sessions are kept, the operator reads them as before and they stay in exports. ' +
      'Suspending a suspended client changes nothing; an offboarded one is 409. Recorded as `client.suspended` (with `reason` when given). ' +
      'Conditional like `PATCH`: a stale `If-Match` is 412 and nothing changes.',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ description: 'The client, suspended.', type: AdminClientDto, headers: ETAG })
  @ApiProblems(400, 404, 409, 412, 413, 415, 422)
  async suspend(
    @Param('client_id') clientId: string,
    @Body() body: StatusChangeDto,
    @CurrentActor() actor: Actor,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdminClientDto> {
    return withEtag(res, await this.accounts.changeStatus(clientId, 'suspend', actor, body?.reason, preconditionsOf(ifMatch, ifNoneMatch)));
  }

  @Post(':client_id/reactivate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateClient',
    summary: "Restore a suspended client's access",
    description:
      'The same tokens and live sessions work again at once, on every replica: no new token is needed. An active client is left as it is; an offboarded one is 409. Recorded as `client.reactivated`. ' +
      'Conditional like `PATCH`: a stale `If-Match` is 412 and nothing changes.',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ description: 'The client, active.', type: AdminClientDto, headers: ETAG })
  @ApiProblems(400, 404, 409, 412, 413, 415, 422)
  async reactivate(
    @Param('client_id') clientId: string,
    @Body() body: StatusChangeDto,
    @CurrentActor() actor: Actor,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdminClientDto> {
    return withEtag(
      res,
      await this.accounts.changeStatus(clientId, 'reactivate', actor, body?.reason, preconditionsOf(ifMatch, ifNoneMatch)),
    );
  }

  @Post(':client_id/offboard')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'offboardClient',
    summary: "End a client's access for good, keeping its records",
    description:
      'Final: its tokens are refused (401 `invalid_token`, "the account has been closed"), its dashboard sessions end, unused sign-in links no longer work, and it is never counted as missing again. ' +
      "Its declarations, profile, tokens' metadata and audit trail are kept and stay readable by the operator and in exports (see the README on how long). Recorded as `client.offboarded`. " +
      'Conditional like `PATCH`: a stale `If-Match` is 412 and nothing changes (send the `ETag` you read: offboarding is final).',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiHeader(IF_MATCH)
  @ApiHeader(IF_NONE_MATCH)
  @ApiOkResponse({ description: 'The client, offboarded.', type: AdminClientDto, headers: ETAG })
  @ApiProblems(400, 404, 412, 413, 415, 422)
  async offboard(
    @Param('client_id') clientId: string,
    @Body() body: StatusChangeDto,
    @CurrentActor() actor: Actor,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdminClientDto> {
    return withEtag(
      res,
      await this.accounts.changeStatus(clientId, 'offboard', actor, body?.reason, preconditionsOf(ifMatch, ifNoneMatch)),
    );
  }
}
