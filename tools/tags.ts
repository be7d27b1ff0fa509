import { z } from 'zod';
import { defineGroup, defineTool } from '../src/engine/define.js';
import { idInput } from '../src/engine/inputs.js';
import { nonBlank } from './lib/inputs.js';
import { fieldOf } from './lib/records.js';
import { shape } from './lib/shapes.js';
import { seenIn } from './lib/mirror/seen.js';

const createTag = defineTool({
  name: 'create_tag',
  title: 'Create a tag',
  words: 'label new category add make set up',
  scope: 'write',
  description: 'Adds a label to a custom tag group; no route applies it to a conversation. tagGroupId from the dashboard.',
  input: z.object({
    tagGroupId: idInput(),
    tagName: nonBlank(),
    tagDescription: z.string().optional(),
  }),
  route: { method: 'POST', path: '/v2/tag-groups/{tagGroupId}/tags/public', body: ['tagName', 'tagDescription'] },
  preview: async (input, context) => {
    context.warn('No route of the API applies a tag to a conversation: this creates the tag in its group, and tagging stays with the dashboard and connected platforms.');
    return [`Creates tag ${context.quote(input.tagName)} in tag group ${input.tagGroupId}. No route lists tag groups, so this preview cannot check the group; an unknown one answers 500.`];
  },
  keepMirror: seenIn('create_tag', 'tag_group', (_data, input) => [input.tagGroupId]),
  output: shape({ id: z.string(), createdAt: z.string(), tagGroupId: z.string(), tagName: z.string() }, { tagDescription: z.string() }),
  done: (data, input) => `Tag ${fieldOf(data, 'id')} created in group ${input.tagGroupId}.`,
  errors: {
    400: 'tagName must not be empty',
    500: 'a tag group that is probably unknown (or not a custom group of this workspace); check tagGroupId in the dashboard',
  },
});

export const tags = defineGroup({
  name: 'tags',
  description: 'Tags in custom tag groups.',
  tools: [createTag],
  aliases: { label: 'tag' },
});
