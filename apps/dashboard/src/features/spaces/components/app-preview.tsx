import { useEffect, useRef } from 'react';
import { SPACE_PREVIEW_PAGE, SPACE_PREVIEW_READY, SPACE_SANDBOX } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { useSpaceApp } from '../api/get-app';

/**
 * The app's current page (published or not, from the owner-only API), running where hosted apps run: the
 * preview page on the apps' own origin (SPACES_ORIGIN) shows the HTML this frame posts to it, under a hosted
 * app's headers. Not a srcdoc frame: that would inherit this dashboard's Content-Security-Policy, under which
 * the page's inline scripts do not run. The sandbox (no allow-same-origin) gives it an opaque origin either way.
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
  if (appQuery.data.html === null)
    return (
      <p className="muted" id={id}>
        No page yet.
      </p>
    );
  return (
    <PreviewFrame
      key={appQuery.data.version}
      id={id}
      title={`Preview of ${title}`}
      src={appQuery.data.previewUrl}
      html={appQuery.data.html}
    />
  );
}

function PreviewFrame({ id, title, src, html }: { id?: string; title: string; src: string; html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);

  useEffect(() => {
    let sent = false;
    const onMessage = (event: MessageEvent) => {
      const target = frame.current?.contentWindow;
      const type = (event.data as { type?: unknown } | null)?.type;
      // Only the preview page in this very frame, still sandboxed (an opaque origin is "null"), gets the page, once.
      if (sent || !target || event.source !== target || event.origin !== 'null' || type !== SPACE_PREVIEW_READY) return;
      sent = true;
      // An opaque origin cannot be named as the target origin; the check above is what picks the recipient.
      target.postMessage({ type: SPACE_PREVIEW_PAGE, html }, '*');
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [html]);

  return (
    <iframe
      ref={frame}
      id={id}
      className="space-frame"
      title={title}
      sandbox={SPACE_SANDBOX}
      referrerPolicy="no-referrer"
      src={src}
    />
  );
}
