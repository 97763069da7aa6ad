import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A gift card. The code is never stored: only its SHA-256 (docs/payments.md). */
@Entity({ name: 'gift_cards' })
export class GiftCardEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'code_hash', type: 'text', unique: true })
  codeHash: string;

  // bigint arrives as a string.
  @Column({ name: 'amount_micros', type: 'bigint' })
  amountMicros: string;

  /** The admin who issued it; null when issued from the command line. */
  @Column({ name: 'created_by', type: 'uuid', nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'redeemed_at', type: 'timestamptz', nullable: true })
  redeemedAt: Date | null;

  @Column({ name: 'redeemed_by', type: 'uuid', nullable: true })
  redeemedBy: string | null;

  /** When the ledger credit (key `giftcard:<id>`) was made; set after it, so null with redeemed_at means unfinished. */
  @Column({ name: 'credited_at', type: 'timestamptz', nullable: true })
  creditedAt: Date | null;
}
