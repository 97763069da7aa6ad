import { useEffect, useMemo, useState } from 'react';
import type { FormEvent } from 'react';

import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { useCreateVideo, useVideoContent, useVideoJob } from '../api/gateway-calls';
import type { PlaygroundRequest, VideoRequestBody } from '../lib/snippets';
import { CallCost, CallError } from './call-result';
import { ModelSelect, pickModel } from './model-select';
import type { PlaygroundPanelProps } from './model-select';
import { RequestCode } from './request-code';

const SECONDS = ['4', '8', '12'];
const SIZES = ['1280x720', '720x1280', '1792x1024', '1024x1792'];
const EXAMPLE_PROMPT = 'A paper boat drifting down a rainy street, seen from above';

/** Video generation: a job is made (and billed), its status followed until it is done, then it plays in the page. */
export function VideoPanel({ apiKey, models, initialModel, onCallFinished }: PlaygroundPanelProps) {
  const [modelChoice, setModelChoice] = useState(initialModel);
  const [prompt, setPrompt] = useState('');
  const [seconds, setSeconds] = useState('4');
  const [size, setSize] = useState('1280x720');
  const create = useCreateVideo(apiKey, onCallFinished);
  const model = pickModel(models, modelChoice);
  const jobId = create.data?.job.id ?? null;
  const job = useVideoJob(apiKey, jobId);
  const status = job.data?.status ?? create.data?.job.status;
  const content = useVideoContent(apiKey, jobId, status === 'completed');
  const videoUrl = useMemo(() => (content.data ? URL.createObjectURL(content.data) : null), [content.data]);
  useEffect(() => () => (videoUrl ? URL.revokeObjectURL(videoUrl) : undefined), [videoUrl]);

  const body: VideoRequestBody = { model, prompt: prompt.trim() || EXAMPLE_PROMPT, seconds, size };
  const request: PlaygroundRequest = { kind: 'video', body };

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!prompt.trim() || !model) return;
    create.mutate(body);
  };

  const working = create.isPending || (jobId !== null && status !== 'completed' && status !== 'failed');
  return (
    <div className="playground-panel">
      <form className="stack" onSubmit={handleSubmit} aria-label="Make a video">
        <ModelSelect models={models} value={model} onChange={setModelChoice} task="video generation" />
        <TextField
          multiline
          label="Prompt"
          rows={3}
          placeholder={EXAMPLE_PROMPT}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
        />
        <div className="filter-row">
          <SelectField
            label="Seconds"
            value={seconds}
            options={SECONDS.map((value) => ({ value, label: value }))}
            onChange={setSeconds}
          />
          <SelectField
            label="Size"
            value={size}
            options={SIZES.map((value) => ({ value, label: value.replace('x', ' × ') }))}
            onChange={setSize}
          />
        </div>
        <div>
          <Button type="submit" busy={working} disabled={!prompt.trim() || !model}>
            Make the video
          </Button>
        </div>
        {create.isError ? <CallError error={create.error} /> : null}
        {job.isError ? <CallError error={job.error} /> : null}
        {jobId ? (
          <div className="stack" role="status">
            <p>
              Job <code className="mono">{jobId}</code>:{' '}
              {status === 'completed'
                ? 'done.'
                : status === 'failed'
                  ? `failed${job.data?.error?.message ? `: ${job.data.error.message}` : '.'}`
                  : `${status ?? 'queued'}${typeof job.data?.progress === 'number' ? `, ${job.data.progress}%` : ''}…`}
            </p>
            {videoUrl ? (
              <video controls src={videoUrl} className="video-player">
                <a href={videoUrl} download="video.mp4">
                  Download the video
                </a>
              </video>
            ) : null}
            {videoUrl ? (
              <p className="small">
                <a href={videoUrl} download="video.mp4">
                  Download the video
                </a>
              </p>
            ) : null}
            {create.data ? <CallCost cost={create.data.cost} /> : null}
          </div>
        ) : null}
      </form>
      <RequestCode request={request} />
    </div>
  );
}
