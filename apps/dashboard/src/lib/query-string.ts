/**
 * `?name=value&…` for a request's query, without the fields left unset; '' when none is set. Name the query's
 * shared type (`queryString<UsageActivityQuery>({ limit })`) so a field the API does not take fails the type check.
 */
export function queryString<Q extends object>(query: Q): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query) as [string, unknown][]) {
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
