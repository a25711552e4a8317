import { Body, Controller, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DryRunQueryDto } from '../../accounts/dto/client-import.dto.js';
import { type Actor, CurrentActor } from '../../caller/actor.js';
import { AdminApi } from '../../caller/audience.js';
import { ApiProblems } from '../../common/openapi.js';
import { ReminderDto, RemindersDto, RemindersRequestDto } from './dto/reminder.dto.js';
import { RemindersService } from './reminders.service.js';

/** Operator: reminders before a filing deadline. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/reminders')
export class RemindersAdminController {
  constructor(private readonly reminders: RemindersService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'sendReminders',
    summary: 'Remind the clients who have not declared an ended half-year (a dry run unless `dry_run=false`)',
    description: [
      'For the half-year `period` (ended, else 422 `period_not_ended`): every active, confirmed client liable then for one of its streams (`liable_from`, as in the period summary) ',
      "whose current revision has no line of that stream, with what is missing and each stream's filing deadline. Suspended and offboarded clients are left out (their people cannot sign in).\n\n",
      '**Dry run by default**: the answer lists who would get what, and nothing is sent or recorded. With `?dry_run=false` each client gets an e-mail at its confirmed address, in its language (`fr` or `en`), ',
      'naming the half-year, the missing streams and their deadlines, with a fresh single-use sign-in link that lasts 7 days (an invitation: listed and revocable at `/admin/clients/{client_id}/sign-in-links`). ',
      "Each reminder is recorded (`reminder.sent` in the audit trail, with the link's `sign_in_link.issued`) in one transaction with its link and its e-mail, queued in the mail outbox (`queued`): ",
      'the answer comes at once and the e-mails are sent in the background, retried when the mail server fails; each one’s delivery is at `GET /admin/clients/{client_id}/messages`. ',
      'A reminder whose e-mail was given up (`failed` there) does not count: applying again sends a new one. ',
      'A client gets one reminder per half-year: one already reminded is `already_reminded` and not sent again unless `force: true`. ',
      'Applying needs SMTP_URL: without it, 409 `conflict` (the dry run still works).',
    ].join(''),
  })
  @ApiOkResponse({
    description: 'Who gets (`dry_run=false`) or would get (dry run) a reminder, and what each is missing.',
    type: RemindersDto,
  })
  @ApiProblems(400, 409, 413, 415, 422)
  async remind(@Body() body: RemindersRequestDto, @Query() query: DryRunQueryDto, @CurrentActor() actor: Actor): Promise<RemindersDto> {
    const apply = query.dry_run === 'false';
    const reminders = await this.reminders.remind(body.period, { apply, force: body.force ?? false }, actor);
    return {
      period: body.period,
      dry_run: !apply,
      queued: reminders.filter((r) => r.outcome === 'queued').length,
      reminders: reminders.map(ReminderDto.from),
    };
  }
}
