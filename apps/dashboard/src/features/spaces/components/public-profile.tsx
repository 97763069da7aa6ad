import { SPACE_SANDBOX } from '@switchyard/shared-dto';
import type { SpaceProfileResponse } from '@switchyard/shared-dto';

/**
 * A handle's published apps, each running live in a sandboxed frame of its public URL on the apps' own origin
 * (SPACES_ORIGIN). The hosted page's own headers sandbox it too, and allow framing by this dashboard only.
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
            <article key={app.slug} className="card space-gallery-item" aria-labelledby={`app-${app.slug}`}>
              <h2 id={`app-${app.slug}`} className="card-title">
                {app.title}
              </h2>
              <iframe
                className="space-frame"
                title={app.title}
                src={app.url}
                sandbox={SPACE_SANDBOX}
                loading="lazy"
                referrerPolicy="no-referrer"
              />
              <p>
                <a href={app.url} target="_blank" rel="noopener noreferrer">
                  Open {app.title}
                </a>
              </p>
            </article>
          ))}
        </div>
      )}
    </>
  );
}
