/** The parsers of CONFIG_VARIABLES: each returns the value or throws a ConfigValueError saying the fix. */
export class ConfigValueError extends Error {}

export const bad = (message: string): never => {
  throw new ConfigValueError(message);
};

export const integer = (min: number, max: number, fix: string) => (raw: string) => {
  if (!/^\d+$/.test(raw.trim())) bad(`must be a whole number from ${min} to ${max}; ${fix}`);
  const value = Number(raw);
  if (value < min || value > max) bad(`must be a whole number from ${min} to ${max}; ${fix}`);
  return value;
};

export const httpUrl = (fix: string) => (raw: string) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return bad(`is not a URL; ${fix}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') bad(`must start with http:// or https://; ${fix}`);
  // Stored without a trailing slash so that `${publicUrl}/path` never doubles it.
  return raw.replace(/\/+$/, '');
};

export const boolean = (raw: string) => {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false;
  return bad('must be true or false');
};
