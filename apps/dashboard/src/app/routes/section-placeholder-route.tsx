import { useDocumentTitle } from '../../lib/router';

/** Sections that later work fills in: an honest note, no sample data. */
export function SectionPlaceholderRoute({ title }: { title: string }) {
  useDocumentTitle(title);

  return (
    <>
      <h1 className="page-title">{title}</h1>
      <p className="muted">This section is not available yet.</p>
    </>
  );
}
