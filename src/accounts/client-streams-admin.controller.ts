import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type Actor, CurrentActor } from '../caller/actor.js';
import { AdminApi } from '../caller/audience.js';
import { ApiProblems } from '../common/openapi.js';
import { ClientStreamsService } from './client-streams.service.js';
import { StreamSettingDto, StreamSettingInputDto, StreamSettingListDto } from './dto/client-stream.dto.js';

const CLIENT_ID_PARAM = { name: 'client_id', description: 'The client id', example: 'exemple-sas' };

/** Operator: per client and stream, the eco-organism and the half-year from which the client declares. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/clients/:client_id/streams')
export class ClientStreamsAdminController {
  constructor(private readonly streams: ClientStreamsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listClientStreams',
    summary: "A client's streams with their eco-organism and liability start",
    description:
      'Every stream of the pending or confirmed profile. `liable_from` is the half-year from which the client declares the stream: the one set, else the half-year (Paris time) of its first confirmation.',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiOkResponse({ description: "The client's streams, by code.", type: StreamSettingListDto })
  @ApiProblems(404)
  async list(@Param('client_id') clientId: string): Promise<StreamSettingListDto> {
    return { data: (await this.streams.list(clientId)).map(StreamSettingDto.from) };
  }

  @Put(':stream')
  @ApiOperation({
    operationId: 'setClientStream',
    summary: "Set a stream's eco-organism and liability start for a client",
    description: [
      "Replaces both values (absent or null clears one). The stream must be in the client's profile (else 422 `stream_not_registered`). ",
      'The eco-organism must be one that `/api/v1/streams.json` lists for the stream (by `name`; not a coordinating body), with a published approval, if any, covering the half-year from which the client declares; ',
      'otherwise 422 `unknown_eco_organism` at `/eco_organism`, its detail listing the ones that are. Recorded in the audit trail (`client.stream_updated`) when something changed. ',
      'The period summary counts a client as missing only for the ended half-years from `liable_from` on; the annual and period exports carry the eco-organism.',
    ].join(''),
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiParam({ name: 'stream', description: 'A stream code of `/api/v1/streams.json` (else 404)', example: 'EMB' })
  @ApiOkResponse({ description: 'The stream with its settings as stored.', type: StreamSettingDto })
  @ApiProblems(400, 404, 413, 415, 422)
  async set(
    @Param('client_id') clientId: string,
    @Param('stream') stream: string,
    @Body() body: StreamSettingInputDto,
    @CurrentActor() actor: Actor,
  ): Promise<StreamSettingDto> {
    return StreamSettingDto.from(
      await this.streams.set(clientId, stream, { ecoOrganism: body.eco_organism ?? null, liableFrom: body.liable_from ?? null }, actor),
    );
  }
}
