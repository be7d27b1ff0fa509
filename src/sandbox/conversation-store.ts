/**
 * A workspace's conversations: a Map of objects (the seed's, those created at runtime, and
 * generated ones once read or written), plus the generated conversations still held only as
 * typed columns (generate.ts). As a Map it answers for both: `get` turns a generated conversation
 * into an object and keeps it, so writes through it last; iterating gives each generated
 * conversation still in columns as a fresh object, so a change made to one of those is not kept.
 *
 * `listPage` serves the list route. A page costs time in proportion to the page, not to the
 * workspace: generated conversations are read from per-agent indices sorted by latest event
 * time, entered at the cursor and the window by binary search, and left once no conversation
 * further on can have been created in the window (a generated conversation's last event is at
 * most `maxSpanMs` after its creation). The objects, few, are filtered and sorted per
 * page. Filters the indices cannot serve (source, channel, CSAT, question, answer) are checked
 * while walking, within the window and the agent only.
 */
import type { Conversation } from './types.js';

/**
 * Generated conversations as the store reads them (generate.ts makes them): typed columns, one
 * entry per conversation, and each conversation built as an object on demand.
 */
export interface GeneratedColumns {
  readonly count: number;
  readonly createdAt: Float64Array;
  /** latest event time: the list route's sort key */
  readonly latestAt: Float64Array;
  /** indices into `sources`, `channels` */
  readonly source: Uint8Array;
  readonly channel: Uint8Array;
  /** -1 when no rating */
  readonly csat: Int8Array;
  readonly sources: readonly string[];
  readonly channels: readonly string[];
  readonly agentIds: string[];
  /** per agent, indices sorted newest first by (latestAt, id) */
  readonly byAgent: Uint32Array[];
  /** Every conversation's last event is at most this long after its creation. */
  readonly maxSpanMs: number;
  idOf(index: number): string;
  /** The index of a generated conversation id. */
  indexOf(id: string): number | undefined;
  /** The index of the conversation a generated event id belongs to. */
  indexOfEvent(id: string): number | undefined;
  /** A test of the lowercased `question` and `answer` filters; null when no generated conversation can match. */
  textFilter(question: string | undefined, answer: string | undefined): ((index: number) => boolean) | null;
  /** Conversation `index` as a full object (a new one on every call). */
  materialise(index: number): Conversation;
}

/** Latest event time of a conversation: the list route sorts on it. */
function latestMessageAt(c: Conversation): number {
  let t = c.createdAt;
  for (const e of c.events) if (e.createdAt > t) t = e.createdAt;
  return t;
}

/** Position in the list route's order: newest latest event first, ties by the larger id. */
export interface SortKey {
  t: number;
  id: string;
}
const newerThan = (a: SortKey, b: SortKey) => a.t > b.t || (a.t === b.t && a.id > b.id);

export interface ConversationQuery {
  /** createdAt window, inclusive */
  since: number;
  until: number;
  limit: number;
  /** the cursor conversation's position; paging continues from it */
  cursor?: SortKey;
  direction: 'next' | 'previous';
  botId?: string;
  /** empty or absent: any */
  sources?: string[];
  channels?: string[];
  csat?: number;
  /** lowercased substrings */
  question?: string;
  answer?: string;
}

interface ConversationPage {
  conversations: Conversation[];
  hasMore: boolean;
  nextCursor: string | null;
  prevCursor: string | null;
}

/** A match on its way to a page: an object, or the index of a generated conversation still in columns. */
interface Item extends SortKey {
  conversation?: Conversation;
  index: number;
}

/** What a generated conversation is in the store. */
const IN_COLUMNS = 0;
const OBJECT = 1;
const DELETED = 2;

export class ConversationStore extends Map<string, Conversation> {
  private generated: GeneratedColumns | undefined;
  private states = new Uint8Array(0);
  private inColumns = 0;

  /** Adds the generated conversations, all still in columns. */
  addGenerated(generated: GeneratedColumns): void {
    this.generated = generated;
    this.states = new Uint8Array(generated.count);
    this.inColumns = generated.count;
  }

  /** The index of a generated conversation still held only in columns. */
  private columnIndex(id: string): number | undefined {
    const index = this.generated?.indexOf(id);
    return index !== undefined && this.states[index] === IN_COLUMNS ? index : undefined;
  }

  private mark(id: string, state: typeof OBJECT | typeof DELETED): void {
    const index = this.generated?.indexOf(id);
    if (index === undefined) return;
    if (this.states[index] === IN_COLUMNS) this.inColumns--;
    this.states[index] = state;
  }

  override get(id: string): Conversation | undefined {
    const own = super.get(id);
    if (own !== undefined) return own;
    const index = this.columnIndex(id);
    if (index === undefined) return undefined;
    const conversation = this.generated!.materialise(index);
    this.set(id, conversation);
    return conversation;
  }

  override has(id: string): boolean {
    return super.has(id) || this.columnIndex(id) !== undefined;
  }

  override set(id: string, conversation: Conversation): this {
    this.mark(id, OBJECT);
    return super.set(id, conversation);
  }

  override delete(id: string): boolean {
    const wasInColumns = this.columnIndex(id) !== undefined;
    this.mark(id, DELETED);
    return super.delete(id) || wasInColumns;
  }

  override clear(): void {
    super.clear();
    this.states.fill(DELETED);
    this.inColumns = 0;
  }

  override get size(): number {
    return super.size + this.inColumns;
  }

  /** Indices of the generated conversations still in columns, in generation order. */
  private *columnIndices(): Generator<number> {
    for (let index = 0; index < this.states.length; index++) if (this.states[index] === IN_COLUMNS) yield index;
  }

  override *keys(): MapIterator<string> {
    yield* super.keys();
    for (const index of this.columnIndices()) yield this.generated!.idOf(index);
  }

  override *values(): MapIterator<Conversation> {
    yield* super.values();
    for (const index of this.columnIndices()) yield this.generated!.materialise(index);
  }

  override *entries(): MapIterator<[string, Conversation]> {
    for (const conversation of this.values()) yield [conversation.id, conversation];
  }

  override [Symbol.iterator](): MapIterator<[string, Conversation]> {
    return this.entries();
  }

  override forEach(callback: (value: Conversation, key: string, map: Map<string, Conversation>) => void, thisArg?: unknown): void {
    for (const [id, conversation] of this.entries()) callback.call(thisArg, conversation, id, this);
  }

  /** The list-route position of a conversation, without turning a generated one into an object. */
  sortKey(id: string): SortKey | undefined {
    const own = super.get(id);
    if (own !== undefined) return { t: latestMessageAt(own), id };
    const index = this.columnIndex(id);
    return index === undefined ? undefined : { t: this.generated!.latestAt[index], id };
  }

  /** Whether any conversation holds an event with this id. */
  holdsEvent(eventId: string): boolean {
    for (const conversation of super.values()) if (conversation.events.some((event) => event.id === eventId)) return true;
    const index = this.generated?.indexOfEvent(eventId);
    if (index === undefined || this.states[index] !== IN_COLUMNS) return false;
    return this.generated!.materialise(index).events.some((event) => event.id === eventId);
  }

  /** One page of the list route (filters, order and cursors as CHOICES.md describes). */
  listPage(query: ConversationQuery): ConversationPage {
    const own = this.matchingObjects(query);
    const older = (from?: SortKey) => merge([...this.generatedStreams(query, 'older', from), olderObjects(own, from)], newerThan);
    const newer = (from: SortKey) => merge([...this.generatedStreams(query, 'newer', from), newerObjects(own, from)], (a, b) => newerThan(b, a));

    let page: Item[];
    let hasMore: boolean;
    let nextCursor: string | null = null;
    let prevCursor: string | null = null;
    if (!query.cursor || query.direction === 'next') {
      page = take(older(query.cursor), query.limit + 1);
      hasMore = page.length > query.limit;
      page.length = Math.min(page.length, query.limit);
      if (hasMore) nextCursor = page[page.length - 1].id;
      if (query.cursor && page.length && !newer(page[0]).next().done) prevCursor = page[0].id;
    } else {
      page = take(newer(query.cursor), query.limit + 1);
      hasMore = page.length > query.limit;
      page.length = Math.min(page.length, query.limit);
      page.reverse();
      if (hasMore) prevCursor = page[0].id;
      if (page.length && !older(page[page.length - 1]).next().done) nextCursor = page[page.length - 1].id;
    }
    return {
      conversations: page.map((item) => item.conversation ?? this.generated!.materialise(item.index)),
      hasMore,
      nextCursor,
      prevCursor,
    };
  }

  /** The objects in the list (touched by the service) matching every filter, newest first. */
  private matchingObjects(query: ConversationQuery): Item[] {
    const { since, until, botId, sources, channels, csat, question, answer } = query;
    const items: Item[] = [];
    for (const c of super.values()) {
      if (!c.touchedByService) continue;
      if (c.createdAt < since || c.createdAt > until) continue;
      if (botId !== undefined && c.botId !== botId) continue;
      if (sources?.length && !sources.includes(c.source)) continue;
      if (channels?.length && !channels.includes(c.channel)) continue;
      if (csat !== undefined && !c.events.some((e) => e.csatRating === csat)) continue;
      if (question !== undefined && !c.events.some((e) => e.role === 'user' && e.message?.toLowerCase().includes(question))) continue;
      if (answer !== undefined && !c.events.some((e) => e.role === 'svcbot' && e.message?.toLowerCase().includes(answer))) continue;
      items.push({ t: latestMessageAt(c), id: c.id, conversation: c, index: -1 });
    }
    return items.sort((a, b) => (newerThan(a, b) ? -1 : 1));
  }

  /**
   * Per agent, the generated matches strictly older than `from` (newest first) or strictly newer
   * (oldest first). Entered by binary search; left when no later entry can have been created in
   * the window.
   */
  private generatedStreams(query: ConversationQuery, towards: 'older' | 'newer', from?: SortKey): Iterator<Item>[] {
    const generated = this.generated;
    const textOk = generated?.textFilter(query.question, query.answer);
    if (!generated || !textOk || this.inColumns === 0) return [];
    const { since, until, sources, channels, csat } = query;
    const latestAt = generated.latestAt;
    const createdAt = generated.createdAt;
    const states = this.states;
    const sourceOk = generated.sources.map((source) => !sources?.length || sources.includes(source));
    const channelOk = generated.channels.map((channel) => !channels?.length || channels.includes(channel));
    const matches = (index: number) =>
      states[index] === IN_COLUMNS &&
      createdAt[index] >= since &&
      createdAt[index] <= until &&
      sourceOk[generated.source[index]] &&
      channelOk[generated.channel[index]] &&
      (csat === undefined || generated.csat[index] === csat) &&
      textOk(index);
    /** Latest events after this belong to conversations created after `until`. */
    const top = until + generated.maxSpanMs;
    const keyOf = (index: number): SortKey => ({ t: latestAt[index], id: generated.idOf(index) });

    const agents = query.botId === undefined ? generated.agentIds.map((_, agent) => agent) : [generated.agentIds.indexOf(query.botId)].filter((agent) => agent >= 0);
    return agents.map((agent) => {
      const sorted = generated.byAgent[agent];
      /** first position whose entry satisfies `test`, which holds from some position to the end */
      const firstWhere = (test: (index: number) => boolean) => {
        let low = 0;
        let high = sorted.length;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if (test(sorted[middle])) high = middle;
          else low = middle + 1;
        }
        return low;
      };
      if (towards === 'older') {
        let position = firstWhere((index) => latestAt[index] <= top);
        if (from)
          position = Math.max(
            position,
            firstWhere((index) => newerThan(from, keyOf(index))),
          );
        return (function* () {
          for (; position < sorted.length; position++) {
            const index = sorted[position];
            if (latestAt[index] < since) return;
            if (matches(index)) yield { ...keyOf(index), index };
          }
        })();
      }
      let position =
        Math.min(
          firstWhere((index) => !newerThan(keyOf(index), from!)),
          firstWhere((index) => latestAt[index] < since),
        ) - 1;
      return (function* () {
        for (; position >= 0; position--) {
          const index = sorted[position];
          if (latestAt[index] > top) return;
          if (matches(index)) yield { ...keyOf(index), index };
        }
      })();
    });
  }
}

function olderObjects(items: Item[], from?: SortKey): Iterator<Item> {
  return (from ? items.filter((item) => newerThan(from, item)) : items)[Symbol.iterator]();
}

function newerObjects(items: Item[], from: SortKey): Iterator<Item> {
  return items
    .filter((item) => newerThan(item, from))
    .reverse()
    [Symbol.iterator]();
}

/** Merges sorted streams into one; `before(a, b)` says a comes first. */
function* merge(streams: Iterator<Item>[], before: (a: Item, b: Item) => boolean): Generator<Item> {
  const heads = streams.map((stream) => stream.next());
  for (;;) {
    let best = -1;
    for (let s = 0; s < heads.length; s++) {
      const head = heads[s];
      if (!head.done && (best < 0 || before(head.value, heads[best].value as Item))) best = s;
    }
    if (best < 0) return;
    yield heads[best].value as Item;
    heads[best] = streams[best].next();
  }
}

function take(items: Iterator<Item>, count: number): Item[] {
  const out: Item[] = [];
  while (out.length < count) {
    const next = items.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}
