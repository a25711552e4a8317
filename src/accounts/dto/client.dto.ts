import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { Account } from '../account.js';
import type { ClientView, CreatedClient } from '../accounts.service.js';
import type { StreamSettingView } from '../client-streams.service.js';
import { halfYearOf, previousHalfYear } from '../../calendar/half-year.js';
import { StreamSettingDto } from './client-stream.dto.js';
import type { Profile } from '../profile.js';
import { type Language, LANGUAGES } from '../../i18n/language.js';

export class ProfileDto {
  @ApiProperty({ type: String, nullable: true, example: 'compliance@example.fr' })
  email!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Exemple SAS' })
  company!: string | null;

  /** ISO 3166-1 alpha-2. */
  @ApiProperty({ type: String, nullable: true, example: 'FR' })
  country!: string | null;

  /** Plan id from `/api/v1/pricing.json`. */
  @ApiProperty({ type: String, nullable: true, example: 'business' })
  plan!: string | null;

  /** Stream codes from `/api/v1/streams.json`. */
  @ApiProperty({ type: [String], example: ['EMB'] })
  streams!: string[];

  /** Unique identification numbers (IDU), one per stream; an opaque text. */
  @ApiProperty({ type: [String], example: ['FR000000_01ABCD'] })
  idus!: string[];

  static from(profile: Profile): ProfileDto {
    return Object.assign(new ProfileDto(), {
      email: profile.email,
      company: profile.company,
      country: profile.country,
      plan: profile.plan,
      streams: [...profile.streams],
      idus: [...profile.idus],
    });
  }
}

/** A client as the operator sees it: the profile being edited and the one clients see. */
export class AdminClientDto {
  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  /** The profile the operator edits; it becomes the confirmed one on `confirm`. */
  @ApiProperty({ type: ProfileDto })
  pending!: ProfileDto;

  /** What `GET /me` shows: nulls and empty arrays until the first confirmation. */
  @ApiProperty({ type: ProfileDto })
  confirmed!: ProfileDto;

  /** When the profile was last confirmed; null if never. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  confirmed_at!: Date | null;

  /** The language the service writes to the client in (its e-mails); `fr` unless the operator set `en`. */
  @ApiProperty({ enum: LANGUAGES, example: 'fr' })
  language!: Language;

  /** True when the pending profile differs from the confirmed one. */
  @ApiProperty()
  unconfirmed_changes!: boolean;

  /** `active`; `suspended` (its tokens and sessions refused until reactivated); `offboarded` (access ended for good). Records are kept in every case. */
  @ApiProperty({ enum: ['active', 'suspended', 'offboarded'] })
  status!: 'active' | 'suspended' | 'offboarded';

  /** When the status last changed; null if never. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  status_changed_at!: Date | null;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: Date;

  static from(view: ClientView): AdminClientDto {
    return Object.assign(new AdminClientDto(), {
      client_id: view.clientId,
      pending: ProfileDto.from(view.pending),
      confirmed: ProfileDto.from(view.confirmed),
      confirmed_at: view.confirmedAt,
      language: view.language,
      unconfirmed_changes: view.unconfirmedChanges,
      status: view.status,
      status_changed_at: view.statusChangedAt,
      created_at: view.createdAt,
      updated_at: view.updatedAt,
    });
  }
}

@ApiSchema({ description: 'One page of clients, newest first (`created_at`, then `client_id`, descending).' })
export class AdminClientPageDto {
  @ApiProperty({ type: [AdminClientDto] })
  data!: AdminClientDto[];

  /** Whether another page follows. */
  @ApiProperty()
  has_more!: boolean;

  /** Pass as `cursor` to get the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor!: string | null;
}

/** The client's account as it was confirmed during onboarding: fields are null or empty until then. */
export class AccountDto extends ProfileDto {
  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  static fromAccount(account: Account): AccountDto {
    return Object.assign(new AccountDto(), { client_id: account.clientId, ...ProfileDto.from(account.profile) });
  }
}

/** A stream of a new client: where its declarations go, from which half-year, and where to change that. */
export class CreatedClientStreamDto extends StreamSettingDto {
  /** `PUT` it with `{"eco_organism": …, "liable_from": "2026-S1"}` to change the eco-organism or the half-year from which the client declares. */
  @ApiProperty({ example: '/api/v1/admin/clients/exemple-sas/streams/EMB' })
  href!: string;
}

@ApiSchema({
  description:
    'The sign-in link e-mailed to the new client (`"invite": true`): what was sent, to whom, until when. Its URL is in the e-mail only.',
})
export class InvitationDto {
  /** The link's id (`GET`/`DELETE /admin/clients/{client_id}/sign-in-links`). */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** Until when the link works (7 days; once). */
  @ApiProperty({ type: String, format: 'date-time' })
  expires_at!: Date;

  /** The confirmed address it was sent to. */
  @ApiProperty({ example: 'compliance@example.fr' })
  sent_to!: string;

  /** The language of the e-mail: the client's. */
  @ApiProperty({ enum: LANGUAGES, example: 'fr' })
  language!: Language;

  /** The e-mail in the outbox, sent after this answer; its delivery at `GET /admin/clients/{client_id}/messages`. */
  @ApiProperty({ format: 'uuid' })
  message_id!: string;
}

/** The client just created, with its streams' liability and, when asked, the invitation sent. */
export class CreatedClientDto extends AdminClientDto {
  /**
   * Its streams: the eco-organism and the half-year from which the client declares each (`liable_from`: the one sent,
   * else the half-year of the first confirmation; null while not confirmed), and where to change them (`href`).
   */
  @ApiProperty({
    type: [CreatedClientStreamDto],
    example: [
      {
        stream: 'EMB',
        confirmed: true,
        eco_organism: 'Citeo',
        liable_from_set: null,
        liable_from: '2026-S2',
        href: '/api/v1/admin/clients/exemple-sas/streams/EMB',
      },
    ],
  })
  streams!: CreatedClientStreamDto[];

  /** From which half-year the client is liable, and how to change it, in words. */
  @ApiProperty({
    example:
      'Liable for EMB from 2026-S2 (the half-year of its first confirmation). To have it declare an earlier half-year (the one just ended, say), PUT /api/v1/admin/clients/exemple-sas/streams/{stream} with {"liable_from": "2026-S1"}, or send "liable_from" per stream when creating.',
  })
  liability!: string;

  /** The invitation e-mailed (with `"invite": true`); null otherwise. */
  @ApiProperty({ type: InvitationDto, nullable: true })
  invitation!: InvitationDto | null;

  static fromCreated(created: CreatedClient, now = new Date()): CreatedClientDto {
    const { clientId } = created.view;
    const path = `/api/v1/admin/clients/${encodeURIComponent(clientId)}/streams`;
    const streams = created.streams.map((s) => ({ ...StreamSettingDto.from(s), href: `${path}/${encodeURIComponent(s.stream)}` }));
    const invitation = created.invitation;
    return Object.assign(new CreatedClientDto(), AdminClientDto.from(created.view), {
      streams,
      liability: liabilityNote(clientId, created.streams, now),
      invitation: invitation && {
        id: invitation.linkId,
        expires_at: invitation.expiresAt,
        sent_to: invitation.sentTo,
        language: invitation.language,
        message_id: invitation.messageId,
      },
    });
  }
}

/** The half-year from which the new client declares each stream, and how to change it. */
function liabilityNote(clientId: string, streams: StreamSettingView[], now: Date): string {
  const earlier = previousHalfYear(halfYearOf(now));
  const how = `To have it declare an earlier half-year (the one just ended, say), PUT /api/v1/admin/clients/${clientId}/streams/{stream} with {"liable_from": "${earlier}"}, or send "liable_from" per stream when creating.`;
  if (streams.length === 0) return `No stream yet: the client is liable for none. ${how}`;
  const each = streams.map((s) =>
    s.liableFrom === null
      ? `${s.stream} from the half-year of its first confirmation (${halfYearOf(now)} if confirmed now)`
      : `${s.stream} from ${s.liableFrom}${s.liableFromSet === null ? ' (the half-year of its first confirmation)' : ''}`,
  );
  return `Liable for ${each.join('; ')}. ${how}`;
}
