import type { UserResponse } from '@switchyard/shared-dto';

import { GatewayKeyPanel } from '../../features/gateway-key/components/gateway-key-panel';
import { usePastedKey } from '../../features/gateway-key/lib/key-store';
import { ModelCatalog } from '../../features/models/components/model-catalog';
import { useDocumentTitle } from '../../lib/router';

export function ModelsRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Models');
  const [pastedKey, setPastedKey] = usePastedKey(user.id);

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
      <GatewayKeyPanel userId={user.id} value={pastedKey} onChange={setPastedKey} />
      <ModelCatalog apiKey={pastedKey?.key ?? null} />
    </>
  );
}
