import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * The operator's money per UTC day (the admin console's Money tab; docs/operations.md): fees from maker_earnings
 * (by the day of the call), losses from operator_losses and payment_refunds (by the day they were recorded).
 * Reads only.
 */
@Injectable()
export class OperatorMoneyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The last `days` UTC days with anything in them, newest first (micro-units). */
  days(days: number): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `WITH since AS (SELECT (date_trunc('day', now() AT TIME ZONE 'UTC') - make_interval(days => $1 - 1)) AT TIME ZONE 'UTC' AS at),
       fees AS (
         SELECT to_char(call_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(fee_micros) AS fees, count(*) AS calls
           FROM maker_earnings WHERE call_at >= (SELECT at FROM since) GROUP BY 1),
       losses AS (
         SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(lost_micros) AS lost, count(*) AS calls
           FROM operator_losses WHERE created_at >= (SELECT at FROM since) GROUP BY 1),
       refunds AS (
         SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(lost_micros) AS lost,
                sum(clawed_micros) AS clawed, count(*) FILTER (WHERE lost_micros > 0) AS refunds
           FROM payment_refunds WHERE created_at >= (SELECT at FROM since) AND (lost_micros > 0 OR clawed_micros > 0)
          GROUP BY 1)
       SELECT day, COALESCE(f.fees, 0) AS fees, COALESCE(f.calls, 0) AS marked_up_calls,
              COALESCE(l.calls, 0) AS loss_calls, COALESCE(l.lost, 0) AS call_losses,
              COALESCE(r.refunds, 0) AS loss_refunds, COALESCE(r.lost, 0) AS refund_losses, COALESCE(r.clawed, 0) AS clawed
         FROM fees f FULL JOIN losses l USING (day) FULL JOIN refunds r USING (day)
        ORDER BY day DESC`,
      [days],
    );
  }
}
