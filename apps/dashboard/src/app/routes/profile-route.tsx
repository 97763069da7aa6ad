import { Alert } from '../../components/ui/alert';
import { LoadingScreen } from '../../components/ui/loading-screen';
import { Logo } from '../../components/ui/logo';
import { useSpaceProfile } from '../../features/spaces/api/get-profile';
import { PublicProfile } from '../../features/spaces/components/public-profile';
import { isApiError } from '../../lib/http';
import { Link, Redirect, useDocumentTitle } from '../../lib/router';

/** /u/{handle}: a public profile, outside the shell; nobody needs to sign in to see it. */
export function ProfileRoute({ handle }: { handle: string }) {
  useDocumentTitle(`@${handle}`);
  const profileQuery = useSpaceProfile(handle);

  let content;
  if (profileQuery.isPending) content = <LoadingScreen />;
  else if (profileQuery.isError) {
    content =
      isApiError(profileQuery.error) && profileQuery.error.status === 404 ? (
        <>
          <h1 className="page-title">Nobody here</h1>
          <p className="muted">No one has the handle @{handle}.</p>
        </>
      ) : (
        <Alert>Could not load this profile: {profileQuery.error.message}</Alert>
      );
  } else if (profileQuery.data.profile.handle !== handle) {
    // An old handle of the account: its profile lives at the new one.
    return <Redirect to={`/u/${encodeURIComponent(profileQuery.data.profile.handle)}`} />;
  } else content = <PublicProfile profile={profileQuery.data} />;

  return (
    <div className="profile-page">
      <header className="profile-header">
        <Link href="/" aria-label="Switchyard">
          <Logo />
        </Link>
        {profileQuery.data?.isOwner ? <Link href="/spaces">Manage your apps</Link> : null}
      </header>
      <main className="profile-main">{content}</main>
    </div>
  );
}
