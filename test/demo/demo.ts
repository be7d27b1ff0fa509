/**
 * `npm run demo`: real MCP client sessions against the built `svc-mcp --sandbox` over stdio,
 * walking through the workflows a support engineer runs. Plain text when piped or NO_COLOR is set.
 */
import { DemoSession } from './session.js';
import { supportStory } from './support-story.js';
import { reviewStory } from './review-story.js';
import { knowledgeStory } from './knowledge-story.js';
import { attributeStory } from './attribute-story.js';
import { tokenStory } from './token-story.js';
import { mirrorStory } from './mirror-story.js';

const demo = await DemoSession.start({ elicitation: true });
try {
  await supportStory(demo);
  await reviewStory(demo);
  await knowledgeStory(demo);
  await attributeStory(demo);
} finally {
  await demo.close();
}
// A workspace with a year of traffic, unthrottled on both sides, for the mirror's questions.
const analyst = await DemoSession.start({ elicitation: false, args: ['--sandbox-conversations', '20000', '--sandbox-rate-limit', 'off'] });
try {
  await mirrorStory(analyst);
} finally {
  await analyst.close();
}
const headless = await DemoSession.start({ elicitation: false });
try {
  await tokenStory(headless);
} finally {
  await headless.close();
}
console.log('\nDemo finished: every call above went through the MCP server to the embedded sandbox API.');
