import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { Account } from '../account.js';
import type { ClientView } from '../accounts.service.js';
import type { Profile } from '../profile.js';

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
  @ApiProperty({ enum: ['fr', 'en'], example: 'fr' })
  language!: 'fr' | 'en';

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
