import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PaymentEntity, PaymentProvider } from './entities/payment.entity';

/** Sessions older than this are expired, as Stripe's own Checkout Sessions are by default. */
export const SESSION_LIFETIME_HOURS = 24;

/** The only code that touches payments. Lookups for a user also take the owner. */
@Injectable()
export class PaymentsRepository {
  constructor(@InjectRepository(PaymentEntity) private readonly payments: Repository<PaymentEntity>) {}

  /** Records a new session; a repeat of the same id (an idempotent retry at Stripe) changes nothing. */
  async insert(row: {
    id: string;
    userId: string;
    provider: PaymentProvider;
    amountMicros: number;
    currency: string;
  }): Promise<void> {
    await this.payments
      .createQueryBuilder()
      .insert()
      .values({ ...row, amountMicros: String(row.amountMicros), status: 'open' })
      .orIgnore()
      .execute();
  }

  findOwned(userId: string, id: string): Promise<PaymentEntity | null> {
    return this.payments.findOneBy({ id, userId });
  }

  /** For the webhook and the sandbox page, which are not called by a signed-in owner. */
  findById(id: string): Promise<PaymentEntity | null> {
    return this.payments.findOneBy({ id });
  }

  /** The sandbox's "Pay": completes an open, unexpired sandbox session. False when it was not open. */
  async markSandboxPaid(id: string): Promise<boolean> {
    // As a CTE: TypeORM answers a bare UPDATE with [rows, count] rather than the rows.
    const rows: unknown[] = await this.payments.query(
      `WITH paid AS (
         UPDATE payments SET status = 'paid', paid_at = now()
          WHERE id = $1 AND provider = 'sandbox' AND status = 'open'
            AND created_at > now() - make_interval(hours => $2) RETURNING id)
       SELECT id FROM paid`,
      [id, SESSION_LIFETIME_HOURS],
    );
    return rows.length > 0;
  }

  /** Notes that the ledger credit was made (the credit itself is idempotent; this row only mirrors it). */
  async markCredited(id: string): Promise<void> {
    await this.payments.query(
      `UPDATE payments SET status = 'paid', paid_at = COALESCE(paid_at, now()), credited_at = COALESCE(credited_at, now()) WHERE id = $1`,
      [id],
    );
  }

  async markExpired(id: string): Promise<void> {
    await this.payments.query(`UPDATE payments SET status = 'expired' WHERE id = $1 AND status = 'open'`, [id]);
  }
}
