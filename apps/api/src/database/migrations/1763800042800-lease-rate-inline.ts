import { MigrationInterface, QueryRunner } from 'typeorm';
import { AppMarkup1763800040000 } from './1763800040000-app-markup';
import { OperatorLosses1763800025000 } from './1763800025000-operator-losses';

/**
 * A call written against a lease takes its lease's markup rate in the statement that writes it, instead of through
 * the BEFORE INSERT trigger sy_lease_rate: the batched lease settlement (ReservationsRepository.settleLeased) reads
 * the rate from the lease row it updates anyway, and sy_settle_exact (its fallback for a call the lease can no
 * longer take) reads it in its INSERT. The same rate as before (the lease's, 0 without a lease), without a PL/pgSQL
 * trigger call and a primary-key lookup for every settled call: about 7 of 50 µs of PostgreSQL CPU per call of a
 * settlement batch (docs/benchmarks.md).
 */
export class LeaseRateInline1763800042800 implements MigrationInterface {
  name = 'LeaseRateInline1763800042800';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER reservations_lease_rate ON reservations`);
    await queryRunner.query(`DROP FUNCTION sy_lease_rate`);
    await queryRunner.query(`DROP FUNCTION sy_settle_exact`);
    await queryRunner.query(LeaseRateInline1763800042800.settleExactFunctionSql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION sy_settle_exact`);
    await queryRunner.query(OperatorLosses1763800025000.settleExactFunctionSql);
    await queryRunner.query(AppMarkup1763800040000.leaseRateSql);
    await queryRunner.query(
      `CREATE TRIGGER reservations_lease_rate BEFORE INSERT ON reservations FOR EACH ROW WHEN (NEW.lease_id IS NOT NULL)
       EXECUTE FUNCTION sy_lease_rate()`,
    );
  }

  /** sy_settle_exact with the lease's rate in its INSERT (money-functions.ts). */
  static readonly settleExactFunctionSql = `
      CREATE FUNCTION sy_settle_exact(p_id uuid, p_user uuid, p_key uuid, p_client text, p_request text, p_lease uuid,
                                      p_cost bigint, p_reason text, OUT charged bigint, OUT lost bigint, OUT bound text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        r record;
        held_here boolean;
        caps record;
        cap record;
        free bigint;
        held bigint := 0;
        made timestamptz := now();
        cost bigint := GREATEST(p_cost, 0);
        allowed bigint;
      BEGIN
        lost := 0;
        bound := NULL;
        SELECT credits_micros - debits_micros - reserved_micros INTO free FROM balances WHERE user_id = p_user FOR UPDATE;
        free := GREATEST(COALESCE(free, 0), 0);
        SELECT id, amount_micros, status, settled_micros, created_at INTO r FROM reservations WHERE id = p_id FOR UPDATE;
        held_here := FOUND;
        IF held_here AND r.status <> 'open' THEN
          charged := COALESCE(r.settled_micros, 0);
          RETURN;
        END IF;
        IF held_here THEN
          held := r.amount_micros;
          made := r.created_at;
        END IF;
        allowed := held + free;
        bound := 'account';
        IF p_key IS NOT NULL THEN
          SELECT limit_total_micros AS total, limit_daily_micros AS daily, limit_weekly_micros AS weekly, limit_monthly_micros AS monthly,
                 limit_per_request_micros AS per_request
            INTO caps FROM api_keys WHERE id = p_key FOR UPDATE;
          SELECT * INTO cap FROM sy_cap_room(caps.total, caps.daily, caps.weekly, caps.monthly, p_key, NULL, NULL, made, '');
          IF cap.room IS NOT NULL AND held + GREATEST(cap.room, 0) < allowed THEN
            allowed := held + GREATEST(cap.room, 0);
            bound := cap.bound;
          END IF;
          IF caps.per_request IS NOT NULL AND GREATEST(caps.per_request, held) < allowed THEN
            allowed := GREATEST(caps.per_request, held);
            bound := 'per_request';
          END IF;
        END IF;
        IF p_client IS NOT NULL THEN
          SELECT c.limit_total_micros AS total, c.limit_daily_micros AS daily, c.limit_weekly_micros AS weekly, c.limit_monthly_micros AS monthly,
                 c.limit_per_request_micros AS per_request
            INTO caps FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk
           WHERE c.user_id = p_user AND o.client_id = p_client FOR UPDATE OF c;
          SELECT * INTO cap FROM sy_cap_room(caps.total, caps.daily, caps.weekly, caps.monthly, NULL, p_user, p_client, made, 'app_');
          IF cap.room IS NOT NULL AND held + GREATEST(cap.room, 0) < allowed THEN
            allowed := held + GREATEST(cap.room, 0);
            bound := cap.bound;
          END IF;
          IF caps.per_request IS NOT NULL AND GREATEST(caps.per_request, held) < allowed THEN
            allowed := GREATEST(caps.per_request, held);
            bound := 'app_per_request';
          END IF;
        END IF;
        charged := LEAST(cost, allowed);
        lost := cost - charged;
        IF lost = 0 THEN bound := NULL; END IF;
        IF held_here THEN
          UPDATE reservations SET status = CASE WHEN charged > 0 THEN 'settled' ELSE 'released' END, settled_micros = charged,
                 reason = p_reason, settled_at = now()
           WHERE id = p_id;
          UPDATE balances SET reserved_micros = reserved_micros - held, debits_micros = debits_micros + charged, updated_at = now()
           WHERE user_id = p_user;
        ELSE
          INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros,
                                    status, settled_micros, reason, expires_at, settled_at, lease_id, markup_percent)
          VALUES (p_id, p_request, p_user, p_key, p_client, charged, 0, CASE WHEN charged > 0 THEN 'settled' ELSE 'released' END,
                  charged, p_reason, now(), now(), p_lease,
                  COALESCE((SELECT l.markup_percent FROM reservations l WHERE l.id = p_lease), 0));
          UPDATE balances SET debits_micros = debits_micros + charged, updated_at = now() WHERE user_id = p_user;
        END IF;
        IF charged > 0 THEN
          INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
          VALUES (p_user, -charged, 'usage', p_id::text, 'usage:' || p_id::text);
        END IF;
        IF lost > 0 THEN
          INSERT INTO operator_losses (call_id, user_id, api_key_id, oauth_client_id, cost_micros, charged_micros, lost_micros, bound, reason)
          VALUES (p_id, p_user, p_key, p_client, cost, charged, lost, bound, p_reason);
        END IF;
      END
      $fn$`;
}
