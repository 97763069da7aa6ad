// Amounts arrive in currency units (decisions.md section 1); ledger debits can be fractions of a cent.
const formats = new Map<number, Intl.NumberFormat>();

/** "$15.00", "-$0.000123": cents always, micro-units only when they are there. */
export function formatMoney(units: number): string {
  const digits = Number.isInteger(Math.round(units * 100 * 1e4) / 1e4) ? 2 : 6;
  let format = formats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: digits });
    formats.set(digits, format);
  }
  return format.format(units);
}
