import type { SpaceRemixCredit } from '@switchyard/shared-dto';

/** "Remix of {title} by @{handle}": the original app and its creator. */
export function RemixCredit({ credit }: { credit: SpaceRemixCredit }) {
  const title = credit.url ? (
    <a href={credit.url} target="_blank" rel="noopener noreferrer">
      {credit.title}
    </a>
  ) : (
    credit.title
  );
  return (
    <p className="muted space-remix-credit">
      Remix of {title}
      {credit.handle ? (
        <>
          {' '}
          by <a href={`/u/${encodeURIComponent(credit.handle)}`}>@{credit.handle}</a>
        </>
      ) : (
        ' (its creator left)'
      )}
    </p>
  );
}
