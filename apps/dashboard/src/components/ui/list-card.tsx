import { useId, useRef, useState } from 'react';
import type { ReactNode } from 'react';

/** Reads a message out to screen readers; `removed` when the item it is about (and its focused button) is gone. */
export type Announce = (message: string, options?: { removed?: boolean }) => void;

interface ListCardProps {
  title: string;
  /** The list, given the card's announce. */
  children: (announce: Announce) => ReactNode;
}

/** A titled card around a list whose items report what happened to them through a status line. */
export function ListCard({ title, children }: ListCardProps) {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [announcement, setAnnouncement] = useState('');

  const announce: Announce = (message, options = {}) => {
    setAnnouncement(message);
    // A removed item takes its focused button with it; keep keyboard users in this section.
    if (options.removed) headingRef.current?.focus();
  };

  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} className="card-title" tabIndex={-1}>
        {title}
      </h2>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {/* eslint-disable-next-line react-hooks/refs -- announce reads the ref only when an item calls it from an event handler, never while rendering */}
      {children(announce)}
    </section>
  );
}
