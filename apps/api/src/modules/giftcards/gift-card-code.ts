import { randomBytes } from 'node:crypto';
import { sha256 } from '../../common/crypto';

/**
 * Gift card codes (docs/payments.md): `SYGC-` and 16 characters of Crockford's base32 in four groups, 80 random
 * bits (docs/decisions.md#secrets asks for at least 64). The alphabet has no I, L, O or U, so a code read aloud or
 * typed from paper survives: input is upper-cased, spaces and dashes dropped, O read as 0 and I or L as 1.
 */
export const GIFT_CARD_PREFIX = 'SYGC';
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_BYTES = 10;
const LENGTH = (RANDOM_BYTES * 8) / 5;

export function generateGiftCardCode(random: (size: number) => Buffer = randomBytes): string {
  const bytes = random(RANDOM_BYTES);
  let bits = 0;
  let value = 0;
  let body = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      body += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return format(body);
}

/** The canonical form of what someone typed, or null when it cannot be a gift card code. */
export function normaliseGiftCardCode(input: string): string | null {
  let body = input
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  if (body.length === GIFT_CARD_PREFIX.length + LENGTH && body.startsWith(GIFT_CARD_PREFIX))
    body = body.slice(GIFT_CARD_PREFIX.length);
  if (body.length !== LENGTH || [...body].some((char) => !ALPHABET.includes(char))) return null;
  return format(body);
}

/** What is stored: the SHA-256 of the canonical code (80 random bits make a slow hash unnecessary). */
export function hashGiftCardCode(canonical: string): string {
  return sha256(canonical);
}

function format(body: string): string {
  return [GIFT_CARD_PREFIX, ...(body.match(/.{4}/g) as string[])].join('-');
}
