import type { SpaceAppResponse, SpaceProfileResponse } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { isApiError } from '../../../lib/http';
import { navigate } from '../../../lib/router';
import { useRemixSpaceApp } from '../api/remix-app';
import { RemixCredit } from './remix-credit';

/**
 * A handle's published apps, each a link to its own origin (`{handle}--{slug}.` on the spaces host: apps are
 * framed by nobody, docs/spaces.md), with the credit of a remix and a button to remix it into one's own space.
 */
export function PublicProfile({ profile }: { profile: SpaceProfileResponse }) {
  const { handle, displayName } = profile.profile;
  return (
    <>
      <div className="page-header">
        <h1 className="page-title">{displayName ? `${displayName} (@${handle})` : `@${handle}`}</h1>
        <p className="muted">Apps written with Switchyard Spaces.</p>
      </div>
      {profile.apps.length === 0 ? (
        <p className="muted">No published apps yet.</p>
      ) : (
        <div className="space-gallery">
          {profile.apps.map((app) => (
            <ProfileApp key={app.slug} app={app} handle={handle} isOwner={profile.isOwner} />
          ))}
        </div>
      )}
    </>
  );
}

function ProfileApp({ app, handle, isOwner }: { app: SpaceAppResponse; handle: string; isOwner: boolean }) {
  const remix = useRemixSpaceApp();
  const signedOut = isApiError(remix.error) && remix.error.status === 401;
  return (
    <article className="card space-gallery-item" aria-labelledby={`app-${app.slug}`}>
      <h2 id={`app-${app.slug}`} className="card-title">
        {app.title}
      </h2>
      <p className="space-prompt">{app.prompt}</p>
      {app.remixOf ? <RemixCredit credit={app.remixOf} /> : null}
      <p>
        <a href={app.url} target="_blank" rel="noopener noreferrer">
          Open {app.title}
        </a>
      </p>
      {isOwner ? null : (
        <p>
          <Button
            type="button"
            variant="secondary"
            disabled={remix.isPending}
            onClick={() => remix.mutate({ handle, slug: app.slug }, { onSuccess: () => navigate('/spaces') })}
          >
            Remix into my space
          </Button>
        </p>
      )}
      {signedOut ? (
        <Alert>
          <a href={`/signin?next=${encodeURIComponent(`/u/${handle}`)}`}>Sign in</a> to remix this app.
        </Alert>
      ) : remix.error ? (
        <Alert>Could not remix it: {remix.error.message}</Alert>
      ) : null}
    </article>
  );
}
