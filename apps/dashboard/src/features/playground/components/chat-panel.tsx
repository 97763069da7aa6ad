import { useEffect, useRef, useState } from 'react';
import type { ChangeEvent, FormEvent, KeyboardEvent } from 'react';

import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { streamChat } from '../api/stream-chat';
import { prepareImage } from '../lib/downscale-image';
import type { PreparedImage } from '../lib/downscale-image';
import { formatBytes, IMAGE_TARGET_BYTES } from '../lib/image-sizing';
import type { ChatRequestBody, PlaygroundRequest } from '../lib/snippets';
import type { ChatUsage } from '../lib/sse';
import { CallCost, CallError } from './call-result';
import { ModelSelect, pickModel } from './model-select';
import type { PlaygroundPanelProps } from './model-select';
import { RequestCode } from './request-code';

interface Turn {
  id: number;
  role: 'user' | 'assistant';
  text: string;
  image?: PreparedImage;
  usage?: ChatUsage | null;
  error?: unknown;
  streaming?: boolean;
}

const EXAMPLE_PROMPT = 'Hello! What can you do?';

function userContent(turn: Turn): unknown {
  if (!turn.image) return turn.text;
  return [
    { type: 'text', text: turn.text },
    { type: 'image_url', image_url: { url: turn.image.dataUrl } },
  ];
}

interface ChatOptions {
  model: string;
  system: string;
  temperature: string;
  maxTokens: string;
}

/** The body sent for the conversation so far plus the next user turn. */
function chatBody(options: ChatOptions, turns: readonly Turn[], next: Turn): ChatRequestBody {
  const messages: unknown[] = [];
  if (options.system.trim()) messages.push({ role: 'system', content: options.system.trim() });
  for (const turn of [...turns, next]) {
    if (turn.error || turn.streaming) continue;
    messages.push({ role: turn.role, content: turn.role === 'user' ? userContent(turn) : turn.text });
  }
  const body: ChatRequestBody = {
    model: options.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  const temperature = Number(options.temperature);
  if (options.temperature.trim() !== '' && Number.isFinite(temperature)) body.temperature = temperature;
  const maxTokens = Number(options.maxTokens);
  if (options.maxTokens.trim() !== '' && Number.isInteger(maxTokens) && maxTokens > 0) body.max_tokens = maxTokens;
  return body;
}

/** A conversation streamed token by token, with an optional picture in each message. */
export function ChatPanel({ apiKey, models, initialModel, onCallFinished }: PlaygroundPanelProps) {
  const [options, setOptions] = useState<ChatOptions>({
    model: pickModel(models, initialModel),
    system: '',
    temperature: '',
    maxTokens: '',
  });
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const [image, setImage] = useState<PreparedImage | null>(null);
  const [imageError, setImageError] = useState<string[]>([]);
  const [preparing, setPreparing] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const abortRef = useRef<AbortController | null>(null);
  const nextId = useRef(1);
  const streaming = turns.some((turn) => turn.streaming);
  const model = pickModel(models, options.model);

  // Leaving the page stops a stream in progress.
  useEffect(() => () => abortRef.current?.abort(), []);

  // The code shows what Send would send; with nothing typed, the request sent last (or an example to start).
  const [lastBody, setLastBody] = useState<ChatRequestBody | null>(null);
  const nextUserTurn: Turn = { id: 0, role: 'user', text: input.trim() || EXAMPLE_PROMPT, image: image ?? undefined };
  const request: PlaygroundRequest = {
    kind: 'chat',
    body: !input.trim() && !image && lastBody ? lastBody : chatBody({ ...options, model }, turns, nextUserTurn),
  };

  const chooseImage = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setImageError([]);
    setPreparing(true);
    try {
      setImage(await prepareImage(file));
    } catch (error) {
      setImage(null);
      setImageError([error instanceof Error ? error.message : 'Could not use this image.']);
    } finally {
      setPreparing(false);
    }
  };

  const send = async () => {
    const text = input.trim();
    if (!text || streaming || !model) return;
    const userTurn: Turn = { id: nextId.current++, role: 'user', text, image: image ?? undefined };
    const assistantId = nextId.current++;
    const body = chatBody({ ...options, model }, turns, userTurn);
    setLastBody(body);
    setTurns((current) => [...current, userTurn, { id: assistantId, role: 'assistant', text: '', streaming: true }]);
    setInput('');
    setImage(null);
    setAnnouncement('');
    const update = (patch: Partial<Turn>) =>
      setTurns((current) => current.map((turn) => (turn.id === assistantId ? { ...turn, ...patch } : turn)));

    const controller = new AbortController();
    abortRef.current = controller;
    try {
      const final = await streamChat(
        apiKey,
        body,
        (state) => update({ text: state.content, usage: state.usage }),
        controller.signal,
      );
      update({ text: final.content, usage: final.usage, streaming: false });
      setAnnouncement(`Reply received: ${final.content}`);
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') {
        update({ streaming: false });
        setAnnouncement('Stopped.');
      } else {
        update({ streaming: false, error });
        setAnnouncement('The call failed.');
      }
    } finally {
      abortRef.current = null;
      onCallFinished();
    }
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void send();
  };

  // Ctrl+Enter (⌘+Enter) sends; Enter alone makes a new line.
  const handleKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <div className="playground-panel">
      <div className="stack">
        <div className="chat-settings">
          <ModelSelect
            models={models}
            value={model}
            onChange={(value) => setOptions({ ...options, model: value })}
            task="chat"
          />
          {/* Folded by default, so that at 1280×800 the message box and Send are on the first screen (issue 33). */}
          <details className="chat-options">
            <summary>Temperature, max tokens, system prompt</summary>
            <div className="stack">
              <div className="filter-row">
                <TextField
                  label="Temperature"
                  type="number"
                  inputMode="decimal"
                  min={0}
                  max={2}
                  step={0.1}
                  placeholder="Model default"
                  value={options.temperature}
                  onChange={(event) => setOptions({ ...options, temperature: event.target.value })}
                />
                <TextField
                  label="Max tokens"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  placeholder="Model default"
                  value={options.maxTokens}
                  onChange={(event) => setOptions({ ...options, maxTokens: event.target.value })}
                />
              </div>
              <TextField
                multiline
                label="System prompt (optional)"
                rows={2}
                value={options.system}
                onChange={(event) => setOptions({ ...options, system: event.target.value })}
              />
            </div>
          </details>
        </div>
        <ol className="chat-log" aria-label="Conversation">
          {turns.length === 0 ? (
            <li className="muted chat-empty">Send a message to start. Replies stream in as they are written.</li>
          ) : null}
          {turns.map((turn) => (
            <li key={turn.id} className={`chat-turn chat-turn-${turn.role}`}>
              <span className="chat-role">{turn.role === 'user' ? 'You' : 'Model'}</span>
              {turn.image ? (
                <img className="chat-image" src={turn.image.dataUrl} alt={`Attached: ${turn.image.name}`} />
              ) : null}
              {turn.text ? <p className="chat-text">{turn.text}</p> : null}
              {turn.streaming && !turn.text ? <p className="muted">Waiting for the model…</p> : null}
              {turn.error ? <CallError error={turn.error} /> : null}
              {turn.role === 'assistant' && !turn.streaming && turn.usage ? (
                <CallCost tokens={turn.usage.totalTokens} cost={turn.usage.cost} />
              ) : null}
            </li>
          ))}
        </ol>
        <p className="visually-hidden" role="status">
          {announcement}
        </p>
        <form className="stack" onSubmit={handleSubmit} aria-label="New message">
          <TextField
            multiline
            label="Message"
            hint="Ctrl+Enter (⌘+Enter) sends."
            rows={2}
            value={input}
            onChange={(event) => setInput(event.target.value)}
            onKeyDown={handleKeyDown}
            placeholder={EXAMPLE_PROMPT}
          />
          <div className="button-row">
            <Button type="submit" busy={streaming} disabled={!input.trim() || !model || preparing}>
              Send
            </Button>
            {streaming ? (
              <Button variant="secondary" onClick={() => abortRef.current?.abort()}>
                Stop
              </Button>
            ) : null}
            {turns.length > 0 && !streaming ? (
              <Button
                variant="ghost"
                onClick={() => {
                  setTurns([]);
                  setLastBody(null);
                }}
              >
                Clear conversation
              </Button>
            ) : null}
          </div>
          <div>
            <TextField
              label="Image (optional)"
              type="file"
              accept="image/*"
              hint={`JPEG, PNG, GIF or WebP. Pictures over ${formatBytes(IMAGE_TARGET_BYTES)} are made smaller here before they are sent. The model must list the vision capability.`}
              errors={imageError}
              onChange={(event) => void chooseImage(event)}
            />
            {preparing ? (
              <p className="muted" role="status">
                Preparing the image…
              </p>
            ) : null}
            {image ? (
              <div className="attachment">
                <img src={image.dataUrl} alt="" className="attachment-thumb" />
                <p className="small" role="status">
                  {image.name}: {image.width}×{image.height}, {formatBytes(image.bytes)}
                  {image.downscaled ? ` (made smaller from ${formatBytes(image.originalBytes)})` : ''}
                </p>
                <Button variant="secondary" className="button-small" onClick={() => setImage(null)}>
                  Remove image
                </Button>
              </div>
            ) : null}
          </div>
        </form>
      </div>
      <RequestCode request={request} />
    </div>
  );
}
