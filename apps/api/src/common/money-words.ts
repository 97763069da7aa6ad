/**
 * An amount of money in words the API writes (error messages, mail), by the dashboard's rule (docs/dashboard.md,
 * "Money"): exact to the micro-unit and at least to the cent, so nothing spent reads as $0.00 —
 * "$0.50", "$0.4999", "$0.000214", "$1234.50". Takes micro-units (1 currency unit = 1,000,000).
 */
export function moneyWords(micros: number): string {
  const negative = micros < 0;
  const text = (Math.abs(Math.round(micros)) / 1e6).toFixed(6).replace(/0+$/, '');
  const point = text.indexOf('.');
  return `${negative ? '-' : ''}$${text.length - point - 1 < 2 ? text.padEnd(point + 3, '0') : text}`;
}
