import type { ModelEntry } from '@switchyard/shared-dto';

import { TabPanel, Tabs } from '../../../components/ui/tabs';
import { ChatPanel } from './chat-panel';
import { EmbeddingsPanel } from './embeddings-panel';
import { VideoPanel } from './video-panel';
import { ImagePanel } from './image-panel';
import { SpeechPanel } from './speech-panel';
import { TranscriptionPanel } from './transcription-panel';
import type { GatewayCredential } from '../../../lib/gateway';

export const PLAYGROUND_TABS = [
  { id: 'chat', label: 'Chat' },
  { id: 'image', label: 'Image' },
  { id: 'speech', label: 'Speech' },
  { id: 'transcription', label: 'Transcription' },
  { id: 'embeddings', label: 'Embeddings' },
  { id: 'video', label: 'Video' },
] as const;
export type PlaygroundTab = (typeof PLAYGROUND_TABS)[number]['id'];

export function isPlaygroundTab(value: string | null): value is PlaygroundTab {
  return PLAYGROUND_TABS.some((tab) => tab.id === value);
}

interface PlaygroundProps {
  apiKey: GatewayCredential;
  /** The catalog's models for each tab (type and method, docs/decisions.md#rules-for-clients). */
  modelsByTab: Record<PlaygroundTab, ModelEntry[]>;
  tab: PlaygroundTab;
  onTabChange: (tab: PlaygroundTab) => void;
  /** A model asked for in the address (?model=); each tab takes it when it has it. */
  initialModel: string;
  /** After every call, whatever its outcome: balances and activity have changed. */
  onCallFinished: () => void;
}

const ID_PREFIX = 'playground';

/** Chat, image generation, speech, transcription, embeddings and video; each tab keeps its state while another is shown. */
export function Playground({ apiKey, modelsByTab, tab, onTabChange, initialModel, onCallFinished }: PlaygroundProps) {
  const common = { apiKey, initialModel, onCallFinished };
  return (
    <section className="card stack" aria-label="Playground">
      <Tabs label="What to try" idPrefix={ID_PREFIX} tabs={PLAYGROUND_TABS} selected={tab} onSelect={onTabChange} />
      <TabPanel idPrefix={ID_PREFIX} id="chat" hidden={tab !== 'chat'}>
        <ChatPanel {...common} models={modelsByTab.chat} />
      </TabPanel>
      <TabPanel idPrefix={ID_PREFIX} id="image" hidden={tab !== 'image'}>
        <ImagePanel {...common} models={modelsByTab.image} />
      </TabPanel>
      <TabPanel idPrefix={ID_PREFIX} id="speech" hidden={tab !== 'speech'}>
        <SpeechPanel {...common} models={modelsByTab.speech} />
      </TabPanel>
      <TabPanel idPrefix={ID_PREFIX} id="transcription" hidden={tab !== 'transcription'}>
        <TranscriptionPanel {...common} models={modelsByTab.transcription} />
      </TabPanel>
      <TabPanel idPrefix={ID_PREFIX} id="embeddings" hidden={tab !== 'embeddings'}>
        <EmbeddingsPanel {...common} models={modelsByTab.embeddings} />
      </TabPanel>
      <TabPanel idPrefix={ID_PREFIX} id="video" hidden={tab !== 'video'}>
        <VideoPanel {...common} models={modelsByTab.video} />
      </TabPanel>
    </section>
  );
}
