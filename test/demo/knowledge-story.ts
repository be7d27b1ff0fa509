import type { DemoSession } from './session.js';

interface WaitedSource {
  sourceId: string;
  status: string;
  url?: string;
  error?: string;
  paragraphs?: number;
}
interface Event {
  id: string;
  role: string;
  type: string;
  message?: string | null;
  usedArticles?: Array<{ id: string; title: string }>;
}

function showReply(events: Event[]): Event | undefined {
  const reply = events.find((event) => event.role === 'svcbot');
  if (!reply) return undefined;
  if (reply.type === 'message') {
    console.log(`   agent: ${reply.message}`);
    console.log(`   cited: ${(reply.usedArticles ?? []).map((article) => `"${article.title}" (${article.id})`).join(', ')}`);
  } else {
    console.log(`   agent: (${reply.type}: no article it can see answers this, so it hands over to a human)`);
  }
  return reply;
}

/** A knowledge manager imports pages, updates an article through a draft and makes it available to an agent. */
export async function knowledgeStory(demo: DemoSession): Promise<void> {
  demo.step('Import two help-center pages and wait for ingestion (one sits behind a login)');
  const imported = await demo.call<{ wait: { status: string; sources: WaitedSource[] } }>(
    'ingest_sources',
    {
      documentIdsToAdd: ['https://northwind-outfitters.example/help/jacket-care', 'https://northwind-outfitters.example/private/wholesale-prices'],
      wait: true,
      timeoutSeconds: 60,
    },
    6,
  );
  for (const source of imported.wait.sources) {
    demo.say(`${source.status.padEnd(9)} ${source.url}  ${source.error ? `cause: ${source.error}` : `${source.paragraphs} paragraphs extracted`}`);
  }

  const question = 'Can I get next-day delivery?';
  demo.step(`Ask the email agent: "${question}"`);
  const { agents } = await demo.call<{ agents: Array<{ id: string; name: string }> }>('list_agents', {}, 3);
  const agent = agents.find((candidate) => candidate.name === 'Email Support') ?? agents[agents.length - 1];
  const before = await demo.call<{ events: Event[] }>('generate_answer', { botId: agent.id, content: question }, 2);
  showReply(before.events);
  demo.say(`→ not an answer to the question: ${agent.name} cannot see the article about next-day delivery.`);

  demo.step('Find the live article about express delivery');
  const live = await demo.call<{ articles: Array<{ id: string; title: string; version: number; parentFolderId: string }> }>('list_articles', { type: 'live' }, 6);
  const article = live.articles.find((candidate) => /next-day/i.test(candidate.title))!;
  demo.say(`→ "${article.title}" ${article.id}, version ${article.version}`);

  demo.step('Draft the new next-day price (the live article stays unchanged until publish)');
  const draft = await demo.call<{ id: string; originalArticleId: string; originalArticleVersion: number }>(
    'create_article_draft',
    {
      articleId: article.id,
      mainKnowledge:
        'Next-day delivery now costs $19.95 for orders placed before 3 pm Eastern, Monday to Friday. ' +
        'Express shipping delivers in 2 business days for $14.95. Express options are not available for PO boxes, Alaska or Hawaii.',
    },
    4,
  );
  demo.say(`→ draft ${draft.id} of ${draft.originalArticleId} (version ${draft.originalArticleVersion})`);

  demo.step('Compare the draft with the live article before publishing');
  await demo.call('compare_article_draft', { draftArticleId: draft.id }, 8);

  demo.step('Publish the draft (the confirmation shows which live article and version it overwrites)');
  const published = await demo.call<{ id: string; version: number }>('publish_article_draft', { articleId: draft.id }, 4);
  demo.say(`→ live article ${published.id} is now version ${published.version}`);

  demo.step(`Give ${agent.name} an "Express delivery" folder holding that article`);
  const { folders } = await demo.call<{ folders: Array<{ id: string; name: string }> }>('list_folders', {}, 6);
  const shipping = folders.find((folder) => folder.id === article.parentFolderId);
  const folder = await demo.call<{ id: string }>('create_folder', { name: 'Express delivery', ...(shipping ? { parentFolderId: shipping.id } : {}) }, 4);
  await demo.call('move_article', { articleId: published.id, parentFolderId: folder.id }, 3);
  await demo.call('assign_folders_to_agent', { botId: agent.id, folderIds: [folder.id] }, 6);

  demo.step(`Ask ${agent.name} again`);
  const after = await demo.call<{ events: Event[] }>('generate_answer', { botId: agent.id, content: question }, 2);
  const reply = showReply(after.events);
  if (!reply?.usedArticles?.some((used) => used.id === published.id)) throw new Error('the agent did not answer from the published article');
}
