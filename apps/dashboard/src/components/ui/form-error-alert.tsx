import { Alert } from './alert';

/** A form's errors that belong to no field of its own (toFormErrors' `general`); nothing when there are none. */
export function FormErrorAlert({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <Alert>
      {messages.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </Alert>
  );
}
