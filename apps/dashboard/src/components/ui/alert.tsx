import type { ReactNode } from 'react';

/** An error or notice that assistive technology announces as soon as it appears. */
export function Alert({ children, tone = 'error' }: { children: ReactNode; tone?: 'error' | 'info' }) {
  return (
    <div role={tone === 'error' ? 'alert' : 'status'} className={`alert alert-${tone}`}>
      {children}
    </div>
  );
}

/** A form's errors that belong to none of its fields, a paragraph each; nothing when there are none. */
export function FormAlert({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <Alert>
      {messages.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </Alert>
  );
}
