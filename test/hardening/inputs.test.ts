import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config.js';
import { ARGUMENT_LIMITS } from '../../src/engine/inputs.js';
import { createLogger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { stdioServer } from '../../src/transports/stdio.js';
import { apiRequests } from '../support/harness.js';
import { useSandbox } from '../support/fixture.js';
import { TEST_STATE_DIR } from '../support/paths.js';
import { validateInput } from '../../src/engine/pipeline.js';
import { buildRequest } from '../../src/engine/request.js';
import { ToolFailure } from '../../src/engine/errors.js';
import { catalog } from '../../tools/index.js';
import { splitWindow } from '../../tools/lib/scan.js';
import { RUN_ENV } from '../support/run-env.js';

const tools = new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));
const tool = (name: string) => tools.get(name)!;
const validate = (name: string, args: Record<string, unknown>) => validateInput(tool(name), args, {});
const refusal = (name: string, args: Record<string, unknown>) => {
  const result = validate(name, args);
  if (result.ok) throw new Error(`${name} accepted ${JSON.stringify(args).slice(0, 200)}`);
  return result.message;
};

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let index = 0; index < levels; index++) value = { a: value };
  return value;
}

describe('times and counts (finding 1)', () => {
  it('refuses times outside 1970-01-01 .. one year from now, naming the field', () => {
    for (const [field, value] of [
      ['since', '99999999999d'],
      ['until', 1e300],
      ['since', -1e308],
      ['until', 1e308],
      ['since', '1969-12-31'],
      ['since', -1],
      ['until', Date.now() + 400 * 86_400_000],
    ] as const) {
      expect(refusal('export_conversations', { [field]: value })).toContain(`${field}: must be from 1970-01-01 to`);
    }
    // The spec sets no floor on its epoch milliseconds: 0 and times before 2000 are times (issue 33).
    expect(validate('export_conversations', { since: 0, until: 'now' }).ok).toBe(true);
    expect(validate('export_conversations', { since: '1999-12-31', until: 'now' }).ok).toBe(true);
  });
  it('bounds the widest export plan to a few hundred windows', () => {
    const windows = splitWindow(0, Date.now() + 366 * 86_400_000);
    expect(windows.length).toBeLessThan(250);
  });
  it('takes the numbers the spec leaves open as it allows, and only counts that can be counts', () => {
    // maxLinks: the payload is not shown, so no upper limit is invented; it stays a count.
    expect(validate('crawl_links', { url: 'https://example.com', maxLinks: 1e9 }).ok).toBe(true);
    for (const maxLinks of [0, -1, 1.5, 1e300]) expect(refusal('crawl_links', { url: 'https://example.com', maxLinks })).toContain('maxLinks: ');
    // stepNumber: "number or null".
    for (const stepNumber of [1e300, 1.5, -1, 0, null]) expect(validate('add_data_step', { toolId: 't', url: 'https://api.example.com/x', stepNumber }).ok, String(stepNumber)).toBe(true);
    expect(refusal('add_data_step', { toolId: 't', stepNumber: 'first' })).toContain('stepNumber: ');
  });
});

describe('validation (finding 11)', () => {
  it('refuses prototype names everywhere, pass-through payloads included, and unknown fields by path', () => {
    expect(refusal('list_conversations', JSON.parse('{"__proto__": {"x": 1}}'))).toContain('__proto__: "__proto__" is not allowed');
    expect(refusal('list_conversations', { toString: 'x' })).toContain('toString: unknown field');
    expect(refusal('create_folder', { name: 'n', constructor: 'x' })).toContain('constructor: "constructor" is not allowed');
    expect(refusal('create_folder', JSON.parse('{"name": "n", "extra": {"__proto__": {"polluted": true}}}'))).toContain('extra.__proto__');
    expect(refusal('generate_answer', { content: 'hi', botId: 'b', metadata: { channel: 'chat', prototype: 1 } })).toContain('metadata.prototype');
    expect(refusal('give_feedback', { interactionId: 'c', eventId: 'e', approved: true, valueOf: 1 })).toContain('valueOf: unknown field');
    // Pass-through payloads ("not shown" in the spec) keep ordinary unknown fields.
    expect(validate('create_folder', { name: 'n', color: 'red' }).ok).toBe(true);
  });
  it('refuses C1 control characters in question and answer', () => {
    for (const char of ['\u0080', '\u0085', '\u009b', '\u009f']) {
      expect(refusal('list_conversations', { question: `a${char}b` })).toContain('question: must not contain control characters');
      expect(refusal('list_conversations', { answer: `a${char}b` })).toContain('answer: must not contain control characters');
    }
    expect(validate('list_conversations', { question: 'café\u00a0ok' }).ok).toBe(true);
  });
  it('refuses over-deep and oversize arguments with a named error, before anything walks them', () => {
    expect(refusal('generate_answer', { content: 'hi', botId: 'b', metadata: nested(5_000) })).toMatch(/^- metadata(\.a)+: nested deeper than 32 levels$/m);
    expect(refusal('create_folder', { name: 'x'.repeat(ARGUMENT_LIMITS.chars + 1) })).toContain('- name: too large');
    expect(refusal('create_folder', { name: 'n', many: Array.from({ length: ARGUMENT_LIMITS.values + 10 }, () => 1) })).toContain('- many: too large');
  });
});

describe('ids (finding 8)', () => {
  it('refuses dot, empty and unencodable path segments by field, before sending', () => {
    expect(refusal('move_article', { articleId: '.', parentFolderId: 'f' })).toContain('articleId: must not be "."');
    expect(refusal('delete_folder', { folderId: '..' })).toContain('folderId: must not be ".."');
    expect(refusal('delete_folder', { folderId: '  ' })).toContain('folderId: must not be empty');
    expect(refusal('delete_folder', { folderId: 'ab\ud800' })).toContain('folderId: must be well-formed text');
    expect(refusal('delete_folder', { folderId: '\udc00x' })).toContain('folderId: must be well-formed text');
    expect(validate('delete_folder', { folderId: '.hidden' }).ok).toBe(true);
  });
  it('refuses them also where a composite tool fills a path from API data', () => {
    expect(() => buildRequest(tool('get_source'), { sourceId: '..' })).toThrow(ToolFailure);
    expect(() => buildRequest(tool('get_source'), { sourceId: '..' })).toThrow(/sourceId: must not be "\.\."/);
  });
});

/**
 * Raw JSON-RPC text, parsed as a transport parses a line: `"__proto__"` is then an own field, which
 * the SDK's own parse of tools/call would turn into a prototype (finding: accepted and sent).
 */
describe('raw tools/call messages (issue 20: __proto__, over-deep input)', () => {
  const sandbox = useSandbox();
  let runtime: Runtime;
  let send: (text: string) => Promise<{ isError?: boolean; text: string }>;

  beforeAll(async () => {
    runtime = await createRuntime(
      loadConfig([], { ...RUN_ENV, SVC_BASE_URL: sandbox.url, SVC_API_KEY: sandbox.keys.admin, SVC_STATE_DIR: TEST_STATE_DIR, SVC_CONFIRM: 'none' }),
      createLogger('silent'),
    );
    const server = stdioServer(runtime);
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const waiting = new Map<number, (message: JSONRPCMessage) => void>();
    client.onmessage = (message) => {
      if ('id' in message) waiting.get(Number(message.id))?.(message);
    };
    await client.start();
    let id = 0;
    const request = (text: string) =>
      new Promise<JSONRPCMessage>((resolve) => {
        const message = JSON.parse(text.replace('"id":0', `"id":${++id}`)) as JSONRPCMessage;
        waiting.set(id, resolve);
        void client.send(message);
      });
    await request('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}');
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send = async (text) => {
      const answer = (await request(text)) as { result?: { isError?: boolean; content: Array<{ text: string }> }; error?: { message: string } };
      return { isError: answer.result?.isError, text: answer.result?.content[0].text ?? `JSON-RPC error: ${answer.error?.message}` };
    };
  });

  afterAll(() => runtime?.close());

  /** A tools/call whose arguments are JSON text as it arrives, before any parse of the SDK's. */
  const rawCall = (tool: string, argumentsJson: string) => send(`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"${tool}","arguments":${argumentsJson}}}`);

  it('refuses "__proto__" as a field at any depth, naming it, and sends nothing', async () => {
    const name = fc.stringMatching(/^[a-z]{1,6}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(name, { maxLength: 4 }), fc.constantFrom('list_conversations', 'create_tag', 'create_folder'), async (path, tool) => {
        sandbox.clearRequests();
        const own = tool === 'create_tag' ? '"tagGroupId":"g","tagName":"t",' : tool === 'create_folder' ? '"name":"n",' : '';
        let value = '{"__proto__":{"limit":3,"tagName":"x"}}';
        for (const field of path.slice(1).reverse()) value = `{"${field}":${value}}`;
        const inner = path.length ? `{${own}"${path[0]}":${value}}` : `{${own}${value.slice(1, -1)}}`;
        const answer = await rawCall(tool, inner);
        expect(answer.isError, inner).toBe(true);
        expect(answer.text).toContain(`${[...path, '__proto__'].join('.')}: "__proto__" is not allowed as a field name`);
        expect(apiRequests(sandbox)).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it('answers over-deep objects sent as JSON text with the depth rule, not a stack overflow', async () => {
    let deep = '1';
    for (let level = 0; level < 20_000; level++) deep = `{"a":${deep}}`;
    for (const [tool, args] of [
      ['generate_answer', { content: 'hi', botId: 'b', metadata: deep }],
      ['add_data_step', { toolId: 't', url: 'https://api.example.com/x', body: deep }],
      ['generate_answer', { content: 'hi', botId: 'b', metadata: '{"__proto__":{"channel":"x"}}' }],
    ] as const) {
      const answer = await rawCall(tool, JSON.stringify(args));
      expect(answer.isError, answer.text.slice(0, 300)).toBe(true);
      expect(answer.text).toMatch(/^Invalid input for \w+; nothing was sent\.\n- (metadata|body)/);
      expect(answer.text).not.toContain('call stack');
    }
    expect(apiRequests(sandbox)).toEqual([]);
  });
});
