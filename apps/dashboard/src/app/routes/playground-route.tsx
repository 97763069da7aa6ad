import { useQueryClient } from '@tanstack/react-query';
import type { UserResponse } from '@switchyard/shared-dto';
import { useMemo } from 'react';

import { LoadError } from '../../components/ui/load-error';
import { billingKeys } from '../../features/billing/api/billing-keys';
import { GatewayKeyPanel } from '../../features/gateway-key/components/gateway-key-panel';
import { usePastedKey } from '../../features/gateway-key/lib/key-store';
import { keyKeys } from '../../features/keys/api/key-keys';
import { useModels } from '../../features/models/api/list-models';
import { modelsForTask } from '../../features/models/lib/catalog';
import { isPlaygroundTab, Playground } from '../../features/playground/components/playground';
import type { PlaygroundTab } from '../../features/playground/components/playground';
import { usageKeys } from '../../features/usage/api/usage-keys';
import { navigate, useDocumentTitle, useLocation } from '../../lib/router';

const USAGE_RECORD_DELAY_MS = 1_500;

export function PlaygroundRoute({ user }: { user: UserResponse }) {
  useDocumentTitle('Playground');
  const queryClient = useQueryClient();
  const { searchParams } = useLocation();
  const [pastedKey, setPastedKey] = usePastedKey(user.id);
  const credential = pastedKey?.key ?? null;
  const models = useModels(credential);
  const requested = searchParams.get('task');
  const tab: PlaygroundTab = isPlaygroundTab(requested) ? requested : 'chat';
  const initialModel = searchParams.get('model') ?? '';

  const modelsByTab = useMemo(() => {
    const list = models.data?.data ?? [];
    return {
      chat: modelsForTask(list, 'chat'),
      image: modelsForTask(list, 'image'),
      speech: modelsForTask(list, 'speech'),
      transcription: modelsForTask(list, 'transcription'),
      embeddings: modelsForTask(list, 'embeddings'),
      video: modelsForTask(list, 'video'),
    };
  }, [models.data]);

  const changeTab = (next: PlaygroundTab) => {
    const query = new URLSearchParams(searchParams);
    query.set('task', next);
    navigate(`/playground?${query.toString()}`, { replace: true });
  };

  // A call changes the balance, the activity and the analytics: show them fresh wherever they are next seen.
  // The gateway writes usage records in batches every 500 ms (docs/gateway.md), so they are asked for again a
  // moment later too, in case the first read came before the record.
  const onCallFinished = () => {
    const refresh = () => {
      void queryClient.invalidateQueries({ queryKey: usageKeys.all });
      void queryClient.invalidateQueries({ queryKey: billingKeys.all });
      void queryClient.invalidateQueries({ queryKey: keyKeys.all });
    };
    refresh();
    window.setTimeout(refresh, USAGE_RECORD_DELAY_MS);
  };

  let body;
  if (models.isPending) {
    body = (
      <p className="muted" role="status">
        Loading the models…
      </p>
    );
  } else if (models.isError) {
    body = (
      <LoadError
        message={`Could not load the models: ${models.error.message}`}
        retrying={models.isFetching}
        onRetry={() => void models.refetch()}
      />
    );
  } else {
    body = (
      <Playground
        apiKey={credential}
        modelsByTab={modelsByTab}
        tab={tab}
        onTabChange={changeTab}
        initialModel={initialModel}
        onCallFinished={onCallFinished}
      />
    );
  }

  return (
    <>
      <div className="page-header">
        <h1 className="page-title">Playground</h1>
        <p className="muted">
          Try the models before you write code: chat (with pictures), image generation, speech, transcription,
          embeddings and video. Calls are real and paid from your balance; each form also shows its request as curl and
          as SDK code.
        </p>
      </div>
      <GatewayKeyPanel userId={user.id} value={pastedKey} onChange={setPastedKey} />
      {body}
    </>
  );
}
