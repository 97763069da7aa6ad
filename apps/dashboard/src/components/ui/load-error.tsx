import { Alert } from './alert';
import { Button } from './button';

/** A list or figure that failed to load, with a way to try again. */
export function LoadError({ message, retrying, onRetry }: { message: string; retrying: boolean; onRetry: () => void }) {
  return (
    <div className="stack">
      <Alert>{message}</Alert>
      <div>
        <Button variant="secondary" busy={retrying} onClick={onRetry}>
          Try again
        </Button>
      </div>
    </div>
  );
}
