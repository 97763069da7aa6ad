import { useQueryClient } from '@tanstack/react-query';
import type { UserResponse } from '@switchyard/shared-dto';

import { keyKeys } from '../../features/keys/api/key-keys';
import { GatewayKeyPanel } from '../../features/gateway-key/components/gateway-key-panel';
import { useGatewayKey } from '../../features/gateway-key/lib/key-store';
import { ModelCatalog } from '../../features/models/components/model-catalog';
import { useDocumentTitle } from '../../lib/router';

export function ModelsRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Models');
  const queryClient = useQueryClient();
  const [gatewayKey, setGatewayKey] = useGatewayKey(user.id);

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Models</h1>
        <p className="muted">
          The models this gateway serves right now, as <code className="mono">GET /v1/models</code> lists them: what
          each does, what it can handle and what it costs. The list can change at any time, so programs should read it
          too rather than assume a model exists.
        </p>
      </div>
      <GatewayKeyPanel
        userId={user.id}
        value={gatewayKey}
        onChange={setGatewayKey}
        onKeysChanged={() => void queryClient.invalidateQueries({ queryKey: keyKeys.all })}
      />
      {gatewayKey ? <ModelCatalog apiKey={gatewayKey.key} /> : null}
    </>
  );
}
