/**
 * An app's markup (docs/earnings.md): the arithmetic, written once. Money is in integer micro-units; a markup is a
 * whole percent, 0 to 300 (MAX_MARKUP_PERCENT). BigInt inside, so cost × percent is exact at any size.
 */

import { MAX_MARKUP_PERCENT } from '@switchyard/shared-dto';

export { MAX_MARKUP_PERCENT };

/** The largest amount of micro-units (Number.MAX_SAFE_INTEGER; pricing.ts caps costs at it too). */
const MAX_MICROS = BigInt(Number.MAX_SAFE_INTEGER);

/** A markup as the arithmetic takes it: a whole number within 0..300, anything else refused loudly. */
function percentOf(markupPercent: number): bigint {
  if (!Number.isInteger(markupPercent) || markupPercent < 0 || markupPercent > MAX_MARKUP_PERCENT)
    throw new RangeError(`markupPercent must be a whole number from 0 to ${MAX_MARKUP_PERCENT}`);
  return BigInt(markupPercent);
}

/** Whole, non-negative micro-units as BigInt (a fraction is rounded up, as costs are). */
function microsOf(micros: number): bigint {
  if (!Number.isFinite(micros) || micros <= 0) return 0n;
  return BigInt(Math.ceil(micros));
}

const toNumber = (micros: bigint) => Number(micros > MAX_MICROS ? MAX_MICROS : micros);

/**
 * What a user pays for `costMicros` of provider cost through an app with `markupPercent`:
 * cost + ⌈cost × markup / 100⌉. The markup is rounded UP to the micro-unit (a call that cost anything earns at least
 * one micro-unit of a non-zero markup), and the result is capped at Number.MAX_SAFE_INTEGER (no budget covers it).
 * markedUp(c, 0) = c; markedUp(1000, 15) = 1150; markedUp(1, 15) = 2.
 */
export function markedUp(costMicros: number, markupPercent: number): number {
  const cost = microsOf(costMicros);
  const percent = percentOf(markupPercent);
  return toNumber(cost + (cost * percent + 99n) / 100n);
}

/**
 * How a charge `paidMicros` made at `markupPercent` splits into the provider's cost and the markup: the provider
 * part is ⌊paid × 100 / (100 + markup)⌋, the markup the rest. The exact inverse of markedUp
 * (split(markedUp(c, m), m).providerMicros = c), and defined for any charge, also one the balance or a cap cut short.
 * The same formula runs in SQL (the earnings trigger, docs/earnings.md).
 */
export function markupSplit(
  paidMicros: number,
  markupPercent: number,
): { providerMicros: number; markupMicros: number } {
  const paid = microsOf(paidMicros);
  const percent = percentOf(markupPercent);
  const provider = (paid * 100n) / (100n + percent);
  return { providerMicros: toNumber(provider), markupMicros: toNumber(paid - provider) };
}

/**
 * The most provider cost a hold of `heldMicros` at `markupPercent` covers (what the output bound is sized on):
 * the provider part of the hold.
 */
export function providerPart(heldMicros: number, markupPercent: number): number {
  return markupSplit(heldMicros, markupPercent).providerMicros;
}
