import { useState } from 'react';
import type { FormEvent } from 'react';

import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useTranscribe } from '../api/gateway-calls';
import type { PlaygroundRequest } from '../lib/snippets';
import { CallCost, CallError } from './call-result';
import { ModelSelect, pickModel } from './model-select';
import type { PlaygroundPanelProps } from './model-select';
import { RequestCode } from './request-code';

/** Speech to text from an uploaded recording. */
export function TranscriptionPanel({ apiKey, models, initialModel, onCallFinished }: PlaygroundPanelProps) {
  const [modelChoice, setModelChoice] = useState(initialModel);
  const [file, setFile] = useState<File | null>(null);
  const [language, setLanguage] = useState('');
  const transcription = useTranscribe(apiKey, onCallFinished);
  const model = pickModel(models, modelChoice);

  const request: PlaygroundRequest = {
    kind: 'transcription',
    model,
    fileName: file?.name ?? 'recording.mp3',
    language: language.trim() || undefined,
  };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!file || !model) return;
    transcription.mutate({ model, file, language: language.trim() || undefined });
  };

  return (
    <div className="playground-panel">
      <form className="stack" onSubmit={handleSubmit} aria-label="Transcribe audio">
        <ModelSelect models={models} value={model} onChange={setModelChoice} task="transcription" />
        <TextField
          label="Audio file"
          type="file"
          accept="audio/*,video/mp4,video/webm"
          hint="MP3, WAV, M4A, WebM and the like, up to 25 MB. A file made on the Speech tab works too."
          onChange={(event) => setFile(event.target.files?.[0] ?? null)}
        />
        <TextField
          label="Language (optional)"
          hint="An ISO 639-1 code such as en or fr; it helps the model."
          maxLength={8}
          value={language}
          onChange={(event) => setLanguage(event.target.value)}
        />
        <div>
          <Button type="submit" busy={transcription.isPending} disabled={!file || !model}>
            Transcribe
          </Button>
        </div>
        {transcription.isError ? <CallError error={transcription.error} /> : null}
        {transcription.isSuccess ? (
          <div className="stack">
            <h3 className="subheading">Transcript</h3>
            <p className="transcript" role="status">
              {transcription.data.text || '(The model heard nothing.)'}
            </p>
            <CallCost cost={transcription.data.cost} />
          </div>
        ) : null}
      </form>
      <RequestCode request={request} />
    </div>
  );
}
