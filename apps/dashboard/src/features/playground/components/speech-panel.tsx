import { useEffect, useId, useMemo, useState } from 'react';
import type { FormEvent } from 'react';

import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { useCreateSpeech } from '../api/gateway-calls';
import type { PlaygroundRequest, SpeechRequestBody } from '../lib/snippets';
import { CallCost, CallError } from './call-result';
import { ModelSelect, pickModel } from './model-select';
import type { PlaygroundPanelProps } from './model-select';
import { RequestCode } from './request-code';

// OpenAI's voice names; models may accept others, so the field also takes free text.
const VOICES = ['alloy', 'ash', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer'];
const FORMATS = ['mp3', 'wav', 'opus', 'aac', 'flac'];
const EXAMPLE_TEXT = 'Welcome to Switchyard. Every model, one gateway.';

/** Text to speech: the answer plays in the page and can be downloaded. */
export function SpeechPanel({ apiKey, models, initialModel, onCallFinished }: PlaygroundPanelProps) {
  const id = useId();
  const [modelChoice, setModelChoice] = useState(initialModel);
  const [input, setInput] = useState('');
  const [voice, setVoice] = useState('alloy');
  const [format, setFormat] = useState('mp3');
  const speech = useCreateSpeech(apiKey, onCallFinished);
  const model = pickModel(models, modelChoice);
  const audioUrl = useMemo(() => (speech.data ? URL.createObjectURL(speech.data.audio) : null), [speech.data]);
  useEffect(() => () => (audioUrl ? URL.revokeObjectURL(audioUrl) : undefined), [audioUrl]);

  const body: SpeechRequestBody = {
    model,
    input: input.trim() || EXAMPLE_TEXT,
    voice: voice.trim() || 'alloy',
    response_format: format,
  };
  const request: PlaygroundRequest = { kind: 'speech', body };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!input.trim() || !model) return;
    speech.mutate(body);
  };

  return (
    <div className="playground-panel">
      <form className="stack" onSubmit={handleSubmit} aria-label="Make speech">
        <ModelSelect models={models} value={model} onChange={setModelChoice} task="speech" />
        <TextField
          multiline
          label="Text"
          rows={3}
          placeholder={EXAMPLE_TEXT}
          maxLength={4096}
          value={input}
          onChange={(event) => setInput(event.target.value)}
        />
        <div className="filter-row">
          <TextField
            label="Voice"
            list={`${id}-voices`}
            value={voice}
            onChange={(event) => setVoice(event.target.value)}
          />
          <datalist id={`${id}-voices`}>
            {VOICES.map((option) => (
              <option key={option} value={option} />
            ))}
          </datalist>
          <SelectField
            label="Format"
            value={format}
            options={FORMATS.map((option) => ({ value: option, label: option }))}
            onChange={setFormat}
          />
        </div>
        <div>
          <Button type="submit" busy={speech.isPending} disabled={!input.trim() || !model}>
            Speak
          </Button>
        </div>
        {speech.isError ? <CallError error={speech.error} /> : null}
        {speech.isSuccess && audioUrl ? (
          <div className="stack">
            <p role="status">The audio is ready ({speech.data.audio.type || 'audio'}).</p>
            <audio controls src={audioUrl} className="audio-player">
              <a href={audioUrl} download={`speech.${format}`}>
                Download the audio
              </a>
            </audio>
            <p className="small">
              <a href={audioUrl} download={`speech.${format}`}>
                Download the audio
              </a>
            </p>
            <CallCost cost={speech.data.cost} />
          </div>
        ) : null}
      </form>
      <RequestCode request={request} />
    </div>
  );
}
