import { z } from 'zod';
import { defineGroup, defineTool } from '../src/engine/define.js';
import { defined } from './lib/records.js';
import { guide } from './guide.js';

const listAgents = defineTool({
  name: 'list_agents',
  title: 'List agents',
  words: 'bots assistants chatbots browse overview available existing current',
  gives: ['botId', 'botIds'],
  scope: 'read',
  core: true,
  description: "Lists the workspace's AI support agents (bots) with ids and channels. Most tools take a botId from here.",
  input: z.object({}),
  route: { method: 'GET', path: '/v2/bots/public', payloadNotShown: [] },
  list: {
    items: 'agents',
    compact: (agent) => defined({ id: agent.id, name: agent.name, description: agent.description, channels: agent.channels, isActive: agent.isActive }),
    more: 'Use view "full" on fewer fields or read svc://agents.',
  },
});

export const agents = defineGroup({
  name: 'agents',
  description: "The workspace's AI support agents.",
  tools: [listAgents],
  aliases: { bot: 'agent', chatbot: 'agent', assistant: 'agent' },
  resources: [
    guide,
    {
      name: 'agents',
      title: 'Agents',
      description: 'Every agent of the workspace with its id (the botId other tools take).',
      uri: 'svc://agents',
      tool: 'list_agents',
    },
  ],
});
