import type { AuthorizationParams } from '@switchyard/shared-dto';

import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { isApiError } from '../../../lib/http';
import { useAuthorizationRequest } from '../api/get-authorization-request';
import { ConsentForm } from './consent-form';

interface ConsentPanelProps {
  params: AuthorizationParams;
  onDecided: (redirectTo: string) => void;
}

/** Loads the pending authorization and asks the user; a refused request is explained here, never redirected. */
export function ConsentPanel({ params, onDecided }: ConsentPanelProps) {
  const requestQuery = useAuthorizationRequest(params);

  if (requestQuery.isPending) {
    return (
      <p className="muted" role="status">
        Loading the request…
      </p>
    );
  }
  if (requestQuery.isError) {
    const { error } = requestQuery;
    // Only a network failure or a server fault may go away by asking again; a refused request will not.
    const retryable = !isApiError(error) || error.status === 0 || error.status >= 500;
    return (
      <>
        <h1 className="auth-title">This request cannot be completed</h1>
        <Alert>{error.message}</Alert>
        {retryable ? (
          <div>
            <Button variant="secondary" busy={requestQuery.isFetching} onClick={() => void requestQuery.refetch()}>
              Try again
            </Button>
          </div>
        ) : (
          <p className="muted">Go back to the app that sent you here and try again, or tell its maker.</p>
        )}
      </>
    );
  }

  return (
    <>
      <h1 className="auth-title">Allow {requestQuery.data.client.clientName} to use your Switchyard account?</h1>
      <ConsentForm info={requestQuery.data} params={params} onDecided={onDecided} />
    </>
  );
}
