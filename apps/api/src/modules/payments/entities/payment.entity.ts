import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type PaymentProvider = 'stripe' | 'sandbox';
export type PaymentStatus = 'open' | 'paid' | 'expired';

/**
 * A Checkout Session, recorded when it is created: whose it is and what it is worth come from this row, never
 * from the client. The credit is a ledger entry keyed `payment:<id>`; `credited_at` only notes that it was made.
 */
@Entity({ name: 'payments' })
export class PaymentEntity {
  /** The Checkout Session id: Stripe's `cs_…`, or `cs_sandbox_…`. */
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  provider: PaymentProvider;

  // bigint arrives as a string.
  @Column({ name: 'amount_micros', type: 'bigint' })
  amountMicros: string;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'text' })
  status: PaymentStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'paid_at', type: 'timestamptz', nullable: true })
  paidAt: Date | null;

  @Column({ name: 'credited_at', type: 'timestamptz', nullable: true })
  creditedAt: Date | null;
}
