import { Injectable } from '@nestjs/common';
import type { ConsentSponsor, SponsorPoolResponse, SponsorWithdrawResponse } from '@switchyard/shared-dto';
import type { SponsorPoolUpdateDto } from '@switchyard/shared-dto/validation';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { toUnits } from './ledger.service';
import { SponsorRepository, type SponsorPoolRow } from './sponsor.repository';

const toMicros = (units: number) => Math.round(units * 1e6);

/**
 * Sponsored credits (docs/earnings.md, "Sponsored credits"): a maker funds a pool for one of their apps from their
 * balance, sets what it pays of each new user's calls and until when, and takes back what is left. The callers
 * have already checked that the app is the signed-in maker's (`clientId` is its public id); the draws themselves
 * happen in sy_reserve, where each call holds its sponsored part.
 */
@Injectable()
export class SponsorService {
  constructor(private readonly repository: SponsorRepository) {}

  async get(clientId: string): Promise<SponsorPoolResponse> {
    return toResponse(clientId, await this.repository.pool(clientId));
  }

  async update(makerId: string, clientId: string, body: SponsorPoolUpdateDto): Promise<SponsorPoolResponse> {
    const pool = await this.repository.pool(clientId);
    const amount = toMicros(body.amount ?? 0);
    const allowance = body.allowancePerUser === undefined ? pool?.allowanceMicros : toMicros(body.allowancePerUser);
    if (!pool && (amount <= 0 || allowance === undefined))
      throw new UsageException(
        UsageErrorCode.SPONSOR_POOL_INCOMPLETE,
        'A new pool needs an amount above 0 and an allowance per user',
      );
    const endsAt =
      body.endsAt === undefined ? (pool?.endsAt ?? null) : body.endsAt === null ? null : new Date(body.endsAt);
    if (endsAt && body.endsAt !== undefined && endsAt.getTime() <= Date.now())
      throw new UsageException(UsageErrorCode.SPONSOR_ENDS_AT_PAST, 'endsAt must be in the future');
    const outcome = await this.repository.fund(makerId, clientId, amount, allowance ?? 0, endsAt);
    if (outcome === 'balance')
      throw new UsageException(UsageErrorCode.SPONSOR_BALANCE_TOO_LOW, 'Your balance cannot fund this amount');
    // The app changed hands since its owner was checked: as if it were not there.
    if (outcome === 'owner') throw new UsageException(UsageErrorCode.SPONSOR_POOL_NOT_FOUND, 'No such sponsor pool');
    return this.get(clientId);
  }

  async withdraw(clientId: string): Promise<SponsorWithdrawResponse> {
    const taken = await this.repository.takeBack(clientId);
    if (taken === null) throw new UsageException(UsageErrorCode.SPONSOR_POOL_NOT_FOUND, 'This app has no sponsor pool');
    return { takenBack: toUnits(taken), pool: await this.get(clientId) };
  }

  /**
   * What the consent page says the app pays of this user's calls (null: nothing). `consented`: the user approved
   * the app before; without an allowance then, they approved before the pool opened and get none.
   */
  async offer(clientId: string, userId: string, consented: boolean): Promise<number | null> {
    const micros = await this.repository.offer(clientId, userId, consented);
    return micros > 0 ? toUnits(micros) : null;
  }

  /**
   * What each app pays of this user's calls (the Authorized apps page), by the app's public client id: every
   * allowance the user holds from an open pool, read in one query. An app missing from the map pays nothing.
   */
  async sponsorshipsOf(userId: string): Promise<Map<string, ConsentSponsor>> {
    const rows = await this.repository.allowancesOf(userId);
    return new Map(
      rows.map((row) => [
        row.clientId,
        {
          allowance: toUnits(row.allowanceMicros),
          left: toUnits(row.leftMicros),
          endsAt: row.endsAt?.toISOString() ?? null,
        },
      ]),
    );
  }
}

function toResponse(clientId: string, pool: SponsorPoolRow | null): SponsorPoolResponse {
  if (!pool)
    return {
      clientId,
      status: 'none',
      funded: 0,
      left: 0,
      drawn: 0,
      takenBack: 0,
      allowancePerUser: null,
      endsAt: null,
      users: 0,
    };
  const ended = pool.endsAt !== null && pool.endsAt.getTime() <= Date.now();
  return {
    clientId,
    status: pool.withdrawnAt ? 'withdrawn' : ended ? 'ended' : 'open',
    funded: toUnits(pool.fundedMicros),
    left: toUnits(pool.leftMicros),
    drawn: toUnits(pool.drawnMicros),
    takenBack: toUnits(pool.takenBackMicros),
    allowancePerUser: toUnits(pool.allowanceMicros),
    endsAt: pool.endsAt?.toISOString() ?? null,
    users: pool.users,
  };
}
