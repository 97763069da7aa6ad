import { SPACE_SANDBOX } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { useSpaceApp } from '../api/get-app';

/**
 * The app's current page, running in a sandboxed frame: `sandbox` without allow-same-origin gives it an opaque
 * origin, so it cannot reach this dashboard's cookies, storage or session (decisions.md section 9). The page
 * comes from the owner-only API, so unpublished apps can be previewed too.
 */
export function AppPreview({ slug, title, id }: { slug: string; title: string; id?: string }) {
  const appQuery = useSpaceApp(slug);

  if (appQuery.isPending) {
    return (
      <p className="muted" role="status" id={id}>
        Loading the preview…
      </p>
    );
  }
  if (appQuery.isError) return <Alert>Could not load the preview: {appQuery.error.message}</Alert>;
  if (appQuery.data.html === null) return <p className="muted" id={id}>No page yet.</p>;
  return (
    <iframe
      id={id}
      key={appQuery.data.version}
      className="space-frame"
      title={`Preview of ${title}`}
      sandbox={SPACE_SANDBOX}
      referrerPolicy="no-referrer"
      srcDoc={appQuery.data.html}
    />
  );
}
