import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../caller/audience.js';
import { ApiProblems } from '../common/openapi.js';
import { PageQueryDto } from '../common/paging/page-query.dto.js';
import { MailOutbox } from '../mail/mail-outbox.js';
import { AccountsService } from './accounts.service.js';
import { ClientMessageDto, ClientMessagePageDto } from './dto/client-message.dto.js';

/** Operator: the e-mails the service sent, or is sending, to a client. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/clients/:client_id/messages')
export class ClientMessagesAdminController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly outbox: MailOutbox,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listClientMessages',
    summary: "A client's e-mails and their delivery, newest first",
    description: [
      'Every e-mail the service decided to send to the client (invitations, sign-in links asked for by e-mail, reminders, filing confirmations): ',
      'each is recorded in the transaction that decides it (the mail outbox) and sent after it, in the background, by any replica. ',
      'A failure is tried again later, each wait twice the last, until it is given up (`failed`); `last_error` says what the mail server or the network answered. ',
      'Never the text: it may hold a sign-in link, and it is kept (encrypted) only until the message is sent or given up. ',
      'Cursor pagination: pass `next_cursor` as `cursor`.',
    ].join(''),
  })
  @ApiParam({ name: 'client_id', description: 'The client id', example: 'exemple-sas' })
  @ApiOkResponse({
    description: 'A page of the client’s e-mails, newest first, with `next_cursor` when there are more.',
    type: ClientMessagePageDto,
  })
  @ApiProblems(400, 404, 422)
  async list(@Param('client_id') clientId: string, @Query() query: PageQueryDto): Promise<ClientMessagePageDto> {
    await this.accounts.assertExists(clientId);
    const page = await this.outbox.list(clientId, query);
    return { data: page.items.map(ClientMessageDto.from), has_more: page.hasMore, next_cursor: page.nextCursor };
  }
}
