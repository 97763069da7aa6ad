import { Injectable } from '@nestjs/common';
import type { AdminMoneyDay, AdminMoneyResponse } from '@switchyard/shared-dto';
import { toUnits } from './ledger.service';
import { OperatorMoneyRepository } from './operator-money.repository';

const n = (value: unknown) => Number(value ?? 0);

/** What the operator earned (the fees on markups) and lost (calls charged short, refunds past the balance), per day. */
@Injectable()
export class OperatorMoneyService {
  constructor(private readonly repository: OperatorMoneyRepository) {}

  async money(days = 30): Promise<AdminMoneyResponse> {
    const rows = await this.repository.days(days);
    const micros = rows.map((row) => ({
      date: String(row.day),
      fees: n(row.fees),
      markedUpCalls: n(row.marked_up_calls),
      lossCalls: n(row.loss_calls),
      callLosses: n(row.call_losses),
      lossRefunds: n(row.loss_refunds),
      refundLosses: n(row.refund_losses),
      clawedBack: n(row.clawed),
    }));
    const sum = (pick: (day: (typeof micros)[number]) => number) => micros.reduce((total, day) => total + pick(day), 0);
    // Summed in micro-units, then turned into currency units once, so the totals are exact.
    const units = (day: Omit<AdminMoneyDay, 'date'>): Omit<AdminMoneyDay, 'date'> => ({
      ...day,
      fees: toUnits(day.fees),
      callLosses: toUnits(day.callLosses),
      refundLosses: toUnits(day.refundLosses),
      clawedBack: toUnits(day.clawedBack),
    });
    return {
      days,
      totals: units({
        fees: sum((day) => day.fees),
        markedUpCalls: sum((day) => day.markedUpCalls),
        lossCalls: sum((day) => day.lossCalls),
        callLosses: sum((day) => day.callLosses),
        lossRefunds: sum((day) => day.lossRefunds),
        refundLosses: sum((day) => day.refundLosses),
        clawedBack: sum((day) => day.clawedBack),
      }),
      items: micros.map((day) => ({ date: day.date, ...units(day) })),
    };
  }
}
