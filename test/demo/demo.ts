/**
 * `npm run demo`: a real MCP client session against `svc-mcp --sandbox` over stdio, walking
 * through the workflows a support engineer runs.
 */
import { DemoSession } from './session.js';
import { supportStory } from './support-story.js';
import { knowledgeStory } from './knowledge-story.js';
import { attributeStory } from './attribute-story.js';

const demo = await DemoSession.start();
try {
  await supportStory(demo);
  await knowledgeStory(demo);
  await attributeStory(demo);
  console.log('\nDemo finished: every call above went through the MCP server to the embedded sandbox API.');
} finally {
  await demo.close();
}
