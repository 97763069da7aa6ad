import type { ReactNode } from 'react';

/** A titled part of the docs that the page's contents link to by its id. */
export function DocSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={id} className="card stack doc-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="doc-title">
        {title}
      </h2>
      {children}
    </section>
  );
}
