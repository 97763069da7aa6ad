import { moneyWords } from '../../common/money-words';
import type { CreditKind } from '../usage';
import { mailBody, type MailMessage } from '../mail';

const KIND_WORDS: Record<CreditKind, string> = {
  payment: 'Card payment',
  gift_card: 'Gift card',
  admin_adjustment: 'Credit from the operator',
  signup_credit: 'Sign-up credit',
};

const FOOTER = 'You get this mail because of your account on Switchyard. Alerts are chosen on the Settings page.';

export function receiptMail(
  to: string,
  credit: { kind: CreditKind; amountMicros: number; source: string; at: Date },
  balanceMicros: number,
  billingUrl: string,
): MailMessage {
  return {
    kind: 'receipt',
    to,
    subject: `Receipt: ${moneyWords(credit.amountMicros)} added to your Switchyard balance`,
    ...mailBody({
      paragraphs: [
        `${KIND_WORDS[credit.kind]}: ${moneyWords(credit.amountMicros)} was added to your balance on ${credit.at.toISOString().replace('T', ' ').slice(0, 19)} UTC.`,
        `Reference: ${credit.source}`,
        `Your balance is now ${moneyWords(balanceMicros)}.`,
      ],
      action: { label: 'See your balance and history', url: billingUrl },
      footer: 'You get this receipt because your Switchyard balance was credited.',
    }),
  };
}

export function lowBalanceMail(to: string, balanceMicros: number, thresholdMicros: number, url: string): MailMessage {
  return {
    kind: 'low_balance',
    to,
    subject: `Your Switchyard balance is below ${moneyWords(thresholdMicros)}`,
    ...mailBody({
      paragraphs: [
        `Your balance is ${moneyWords(balanceMicros)}, below the ${moneyWords(thresholdMicros)} you chose to be told about.`,
        'Calls are refused (budget_exhausted) once it cannot cover them. This mail comes once each time the balance falls below the threshold.',
      ],
      action: { label: 'Add funds', url },
      footer: FOOTER,
    }),
  };
}

const WINDOW: Record<'total' | 'daily' | 'weekly' | 'monthly', string> = {
  total: 'in all',
  daily: 'today (UTC)',
  weekly: 'this week (UTC)',
  monthly: 'this month (UTC)',
};

export function capAlertMail(
  to: string,
  cap: { scope: 'key' | 'app'; name: string; window: 'total' | 'daily' | 'weekly' | 'monthly' },
  spentMicros: number,
  limitMicros: number,
  url: string,
): MailMessage {
  const whose = cap.scope === 'key' ? `Your API key "${cap.name}"` : `The app "${cap.name}"`;
  const share = limitMicros > 0 ? Math.floor((spentMicros / limitMicros) * 100) : 100;
  return {
    kind: 'cap_alert',
    to,
    subject: `${whose} has used ${share}% of its ${cap.window === 'total' ? 'total' : cap.window} limit`,
    ...mailBody({
      paragraphs: [
        `${whose} has spent ${moneyWords(spentMicros)} of its ${moneyWords(limitMicros)} ${cap.window === 'total' ? 'total' : cap.window} limit ${WINDOW[cap.window]} (${share}%).`,
        'Once the limit is reached its calls are refused with spend_limit_exceeded (your balance is not what refuses them). You are told once per limit and period.',
      ],
      action: { label: cap.scope === 'key' ? 'See your API keys' : 'See the apps you authorized', url },
      footer: FOOTER,
    }),
  };
}
