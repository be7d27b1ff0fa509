import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTime } from '../../src/engine/inputs.js';
import { validateInput } from '../../src/engine/pipeline.js';
import { catalog } from '../../tools/index.js';
import { splitWindow } from '../../tools/lib/scan.js';

const tools = new Map(catalog.flatMap((group) => group.tools).map((tool) => [tool.name, tool]));
const tool = (name: string) => tools.get(name)!;
const DAY = 86_400_000;

describe('parseTime', () => {
  const now = Date.UTC(2026, 10, 22, 12);
  it('accepts epoch ms, ISO 8601, now and relative ages', () => {
    expect(parseTime(1_700_000_000_000, now)).toBe(1_700_000_000_000);
    expect(parseTime('1700000000000', now)).toBe(1_700_000_000_000);
    expect(parseTime('2026-11-20T00:00:00Z', now)).toBe(Date.UTC(2026, 10, 20));
    expect(parseTime('now', now)).toBe(now);
    expect(parseTime('7d', now)).toBe(now - 7 * DAY);
    expect(parseTime('24h', now)).toBe(now - DAY);
    expect(parseTime('30m ago', now)).toBe(now - 30 * 60_000);
  });
  it('refuses anything else', () => {
    for (const text of ['yesterday', '7 days', '', 'd7', '2026-13-45']) expect(parseTime(text, now)).toBeUndefined();
  });
});

describe('list_conversations input rules', () => {
  it('names the field and the rule for limits out of 1..100', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 101 })), (limit) => {
        const result = validateInput(tool('list_conversations'), { limit }, {});
        return !result.ok && result.message.includes('limit: must be from 1 to 100');
      }),
    );
  });
  it('accepts every limit in 1..100, also sent as a string', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100 }), (limit) => validateInput(tool('list_conversations'), { limit: String(limit) }, {}).ok));
  });
  it('refuses question and answer text with %, _ or control characters', () => {
    const bad = fc.tuple(fc.string({ maxLength: 40 }), fc.constantFrom('%', '_', '\u0000', '\n', '\u007f'), fc.string({ maxLength: 40 })).map(([a, b, c]) => `x${a}${b}${c}`);
    fc.assert(
      fc.property(bad, fc.constantFrom('question', 'answer'), (text, field) => {
        const result = validateInput(tool('list_conversations'), { [field]: text }, {});
        return !result.ok && result.message.includes(`${field}: must not contain`);
      }),
    );
  });
  it('takes blank search text (the spec sets no minimum) and refuses over-long text, counted in code points', () => {
    expect(validateInput(tool('list_conversations'), { question: '   ' }, {}).ok).toBe(true);
    // 51 emoji are 51 characters (102 UTF-16 units); 101 are over.
    expect(validateInput(tool('list_conversations'), { question: '😀'.repeat(51) }, {}).ok).toBe(true);
    expect(validateInput(tool('list_conversations'), { question: '😀'.repeat(100) }, {}).ok).toBe(true);
    expect(validateInput(tool('list_conversations'), { question: '😀'.repeat(101) }, {})).toMatchObject({ ok: false, message: expect.stringContaining('question: must be at most 100 characters') });
    expect(validateInput(tool('list_conversations'), { answer: 'a'.repeat(101) }, {})).toMatchObject({ ok: false, message: expect.stringContaining('answer: must be at most 100 characters') });
    expect(validateInput(tool('list_conversations'), { answer: ` ${'a'.repeat(100)} ` }, {}).ok).toBe(true);
  });
  it('refuses since >= until and windows over 90 days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }), fc.integer({ min: 0, max: 10 * DAY }), (until, back) => {
        const result = validateInput(tool('list_conversations'), { since: until + back, until }, {});
        return !result.ok && result.message.includes('since: must be earlier than until');
      }),
    );
    const tooLong = validateInput(tool('list_conversations'), { since: '91d' }, {});
    expect(tooLong).toMatchObject({ ok: false, message: expect.stringContaining('at most 90 days') });
    expect(validateInput(tool('list_conversations'), { since: '89d' }, {}).ok).toBe(true);
    expect(validateInput(tool('list_conversations'), { until: '10d' }, {})).toMatchObject({ ok: false, message: expect.stringContaining('since: defaults to 7 days ago') });
  });
  it('refuses CSAT outside 0..5 and non-integers', () => {
    fc.assert(fc.property(fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 6 })), (csat) => !validateInput(tool('list_conversations'), { csat }, {}).ok));
    expect(validateInput(tool('list_conversations'), { csat: 2.5 }, {}).ok).toBe(false);
    expect(validateInput(tool('list_conversations'), { csat: 0 }, {}).ok).toBe(true);
  });
  it('parses arrays sent as JSON text and single values', () => {
    const result = validateInput(tool('list_conversations'), { channel: '["chat","email"]', source: 'api' }, {});
    expect(result).toMatchObject({ ok: true, value: { channel: ['chat', 'email'], source: ['api'] } });
    expect(validateInput(tool('list_conversations'), { channel: 'sms' }, {}).ok).toBe(false);
  });
  it('refuses unknown fields by name', () => {
    expect(validateInput(tool('list_conversations'), { bot_id: 'x' }, {})).toMatchObject({ ok: false, message: expect.stringContaining('bot_id: unknown field') });
  });
});

describe('generate_answer and give_feedback input rules', () => {
  it('needs non-blank content and a botId or interactionId', () => {
    expect(validateInput(tool('generate_answer'), { content: '  ', botId: 'b' }, {})).toMatchObject({ ok: false, message: expect.stringContaining('content: must not be empty') });
    expect(validateInput(tool('generate_answer'), { content: 'hi' }, {})).toMatchObject({ ok: false, message: expect.stringContaining('botId: botId or interactionId is required') });
    expect(validateInput(tool('generate_answer'), { content: 'hi' }, { defaultBotId: 'bot-1' })).toMatchObject({ ok: true, value: { botId: 'bot-1' } });
    expect(validateInput(tool('generate_answer'), { content: 'hi', interactionId: 'c' }, { defaultBotId: 'bot-1' })).toMatchObject({ ok: true, value: { interactionId: 'c' } });
    expect(validateInput(tool('list_conversations'), {}, { defaultBotId: 'bot-1' })).toMatchObject({ ok: true, value: {} });
    expect(validateInput(tool('generate_answer'), { content: 'hi', role: 'robot', botId: 'b' }, {}).ok).toBe(false);
  });
  it('parses metadata sent as a JSON string', () => {
    const result = validateInput(tool('generate_answer'), { content: 'hi', botId: 'b', metadata: '{"channel":"email","user_attributes":{"plan":"pro"}}' }, {});
    expect(result).toMatchObject({ ok: true, value: { metadata: { channel: 'email', user_attributes: { plan: 'pro' } } } });
  });
  it('needs a non-empty eventId and a boolean or null approved', () => {
    expect(validateInput(tool('give_feedback'), { interactionId: 'c', eventId: '' }, {})).toMatchObject({ ok: false, message: expect.stringContaining('eventId: must not be empty') });
    expect(validateInput(tool('give_feedback'), { interactionId: 'c', eventId: 'e', approved: 'maybe' }, {}).ok).toBe(false);
    expect(validateInput(tool('give_feedback'), { interactionId: 'c', eventId: 'e', approved: null }, {}).ok).toBe(true);
  });
});

describe('splitWindow', () => {
  it('covers the whole range newest first in non-overlapping windows of at most 90 days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 * DAY }), (length) => {
        const until = 1_800_000_000_000;
        const windows = splitWindow(until - length, until);
        if (windows[0].until !== until || windows.at(-1)!.since !== until - length) return false;
        return windows.every((range, index) => range.until - range.since <= 90 * DAY && (index === 0 || range.until === windows[index - 1].since - 1));
      }),
    );
  });
});
