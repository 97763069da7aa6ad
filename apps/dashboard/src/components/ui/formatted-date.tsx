const FORMATS = {
  date: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }),
  dateTime: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
};

// Client timestamps come without a zone (docs/decisions.md#names-and-defaults); the server writes them in UTC.
const HAS_ZONE = /(?:Z|[+-]\d\d:?\d\d)$/i;

function parse(iso: string): Date {
  return new Date(/T\d/.test(iso) && !HAS_ZONE.test(iso) ? `${iso}Z` : iso);
}

/** A <time> element in the reader's locale; the raw value stays in its dateTime attribute. */
export function FormattedDate({ iso, format = 'date' }: { iso: string; format?: keyof typeof FORMATS }) {
  const date = parse(iso);
  const text = Number.isNaN(date.getTime()) ? iso : FORMATS[format].format(date);
  return <time dateTime={iso}>{text}</time>;
}
