import { z } from 'zod';
import { defineGroup, defineTool } from '../src/engine/define.js';
import { idInput } from '../src/engine/inputs.js';
import { shape } from './lib/shapes.js';
import { seenIn } from './lib/mirror/seen.js';

const replayRecord = shape(
  { id: z.string(), botId: z.string(), source: z.string(), status: z.string(), parentInteractionId: z.string(), replay: shape({ target_event_id: z.string(), status: z.string() }) },
  { channel: z.string() },
);

const getReplay = defineTool({
  name: 'get_replay',
  title: 'Get a replay',
  words: 'replayed rerun result model open read view details look inspect fetch',
  scope: 'read',
  description: "Reads a replay: an answer re-run for a refine session, with status and models. replayId: a refine iteration's replayInteractionId.",
  input: z.object({ replayId: idInput() }),
  route: { method: 'GET', path: '/v2/replays/{replayId}/public' },
  keepMirror: seenIn('get_replay', 'replay', (_data, input) => [input.replayId]),
  output: replayRecord,
  errors: {
    400: 'replayId must be a UUID',
    404: 'no replay with this replayId in the workspace (refine sessions name their replays as replayInteractionId; get_refine_session shows them)',
  },
});

export const replays = defineGroup({
  name: 'replays',
  description: 'Replay conversations.',
  tools: [getReplay],
  resources: [
    {
      name: 'replay',
      title: 'Replay',
      description: 'One replay conversation by id.',
      uri: 'svc://replays/{replayId}',
      tool: 'get_replay',
    },
  ],
});
