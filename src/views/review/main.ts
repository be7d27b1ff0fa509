import type { App } from '@modelcontextprotocol/ext-apps';
import { diffWordsWithSpace } from 'diff';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import '../common/base.css';
import './review.css';
import { isRecord } from '../../json.js';
import { el, replaceChildren, withoutEnvelope } from '../common/dom.js';
import { resultText, showError, startView } from '../common/view.js';
import { gateAnswerOf, VERDICTS, type ArticleComparison, type DiffHunk, type DiffLine, type DraftReview, type Passage, type PathChange, type RuleComparison, type Verdict } from '../results.js';

const root = document.getElementById('view')!;
let app: App | undefined;

const show = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));
/** A value in a before/after cell, where an empty side reads as such rather than as `{}`. */
const cell = (value: unknown) => (value === undefined || value === null || (isRecord(value) && Object.keys(value).length === 0) ? '(none)' : show(value));

/** The article fields as a person calls them. */
const LABELS: Record<string, string> = {
  title: 'Title',
  mainKnowledge: 'Body',
  agentInstruction: 'Instructions for the agent',
  questions: 'Questions',
  keywords: 'Keywords',
  active: 'Active',
  public: 'Public in the help center',
  escalation: 'Escalation',
  origin: 'Origin',
  misc: 'Internal metadata',
  parentFolderId: 'Folder',
};
const label = (field: string) => LABELS[field] ?? field;

/** A preview line as a person reads this view: the API's field names at the start of a line (`mainKnowledge:`, `questions added:`) under the names the view uses. */
const inPeoplesWords = (text: string) =>
  text.replace(/^(\s*)(\w+)(?=( added| removed)?:)/gm, (whole, indent: string, field: string) => (Object.hasOwn(LABELS, field) ? indent + LABELS[field] : whole));

/** Each verdict's badge, what it says, and how a count of drafts names it ("2 with changes"). */
const VERDICT_TEXT: Record<Verdict, { name: string; says: string; counted: string }> = {
  new: { name: 'New', says: 'Publishing creates a new live article with this content.', counted: 'new' },
  identical: { name: 'Identical', says: 'The draft matches the live article in everything a publish writes: publishing changes nothing.', counted: 'identical' },
  changes: { name: 'Changes', says: 'Publishing overwrites the live article with the changes below.', counted: 'with changes' },
  stale: {
    name: 'Stale',
    says: 'The live article changed after this draft was made: publishing overwrites those later changes as well as making the changes below.',
    counted: 'stale',
  },
};

/** Pairs the lines of a hunk for two columns: removed lines face the added lines that replace them. */
function sideBySide(hunk: DiffHunk): Array<[DiffLine | undefined, DiffLine | undefined]> {
  const rows: Array<[DiffLine | undefined, DiffLine | undefined]> = [];
  for (let index = 0; index < hunk.lines.length; ) {
    const line = hunk.lines[index];
    if (line.mark === ' ') {
      rows.push([line, line]);
      index++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    for (; index < hunk.lines.length && hunk.lines[index].mark !== ' '; index++) (hunk.lines[index].mark === '-' ? removed : added).push(hunk.lines[index]);
    for (let row = 0; row < Math.max(removed.length, added.length); row++) rows.push([removed[row], added[row]]);
  }
  return rows;
}

/**
 * A changed text and the text that replaces it, each with the words that differ marked: in a long
 * paragraph the colour of the whole line does not show that "30" became "45". Texts that share
 * less than half of their words are shown whole: marking nearly everything says nothing.
 */
function wordMarks(before: string, after: string): [Array<Node | string>, Array<Node | string>] {
  const parts = diffWordsWithSpace(before, after);
  const common = parts.filter((part) => !part.added && !part.removed).reduce((length, part) => length + part.value.length, 0);
  if (common * 2 < Math.max(before.length, after.length)) return [[before], [after]];
  const side = (changed: 'removed' | 'added', className: string) =>
    parts.filter((part) => !part[changed === 'removed' ? 'added' : 'removed']).map((part) => (part[changed] ? el('mark', { className }, part.value) : part.value));
  return [side('removed', 'del-word'), side('added', 'ins-word')];
}

function diffTable(caption: string, left: string, right: string, hunks: DiffHunk[]): HTMLTableElement {
  const cells = (line: DiffLine | undefined, side: 'old' | 'new', text: Array<Node | string>) => {
    if (!line) return [el('td', { className: 'ln gap' }), el('td', { className: 'gap' })];
    const changed = line.mark !== ' ';
    const kind = side === 'old' ? 'del' : 'ins';
    return [
      el('td', { className: `ln${changed ? ` ${kind}` : ''}` }, (side === 'old' ? line.oldLine : line.newLine) ?? ''),
      el(
        'td',
        { className: `code${changed ? ` ${kind}` : ''}`, attrs: { 'data-mark': line.mark } },
        el('span', { className: 'mark', attrs: { 'aria-label': changed ? (side === 'old' ? 'removed' : 'added') : undefined } }, changed ? line.mark : ' '),
        ...text,
      ),
    ];
  };
  const row = ([before, after]: [DiffLine | undefined, DiffLine | undefined]) => {
    const [oldText, newText] = before && after && before.mark === '-' ? wordMarks(before.text, after.text) : [[before?.text ?? ''], [after?.text ?? '']];
    return el('tr', {}, ...cells(before, 'old', oldText), ...cells(after, 'new', newText));
  };
  return el(
    'table',
    { className: 'diff' },
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, el('th', { className: 'ln' }), el('th', { attrs: { scope: 'col' } }, left), el('th', { className: 'ln' }), el('th', { attrs: { scope: 'col' } }, right))),
    ...hunks.map((hunk) =>
      el(
        'tbody',
        {},
        el(
          'tr',
          { className: 'hunk' },
          el('td', { attrs: { colspan: 4 } }, `Lines ${hunk.oldStart}-${hunk.oldStart + Math.max(0, hunk.oldLines - 1)} → ${hunk.newStart}-${hunk.newStart + Math.max(0, hunk.newLines - 1)}`),
        ),
        ...sideBySide(hunk).map(row),
      ),
    ),
  );
}

/** A removed sentence and the added one in the same place, words marked; a sentence with no counterpart whole. */
function pairedMarks(passage: Passage, index: number): [Array<Node | string>, Array<Node | string>] {
  const before = passage.removed[index];
  const after = passage.added[index];
  return before !== undefined && after !== undefined ? wordMarks(before, after) : [[before ?? ''], [after ?? '']];
}

/** The changed sentences, whole, between the unchanged ones around them: what to read first in a long paragraph. */
function passages(list: Passage[]): HTMLElement | false {
  return (
    list.length > 0 &&
    el(
      'div',
      { className: 'passages' },
      ...list.map((passage) =>
        el(
          'div',
          { className: 'passage' },
          passage.leading !== undefined && el('p', { className: 'context' }, passage.leading),
          ...passage.removed.map((_sentence, index) => el('p', { className: 'del' }, el('span', { className: 'mark', attrs: { 'aria-label': 'removed' } }, '-'), ...pairedMarks(passage, index)[0])),
          ...passage.added.map((sentence, index) =>
            el(
              'p',
              { className: 'ins' },
              el('span', { className: 'mark', attrs: { 'aria-label': 'added' } }, '+'),
              ...(passage.removed[index] === undefined ? [sentence] : pairedMarks(passage, index)[1]),
            ),
          ),
          passage.trailing !== undefined && el('p', { className: 'context' }, passage.trailing),
        ),
      ),
    )
  );
}

function warnings(list: string[]): HTMLElement | false {
  return list.length > 0 && el('div', { className: 'warnings', attrs: { role: 'alert' } }, ...list.map((warning) => el('p', { className: 'warning' }, `Warning: ${warning}`)));
}

/** One draft: its warnings, what publishing does, each changed field, and its Publish button. */
function draftParts(comparison: ArticleComparison, heading: 'h1' | 'h2'): Array<HTMLElement | false> {
  const sub = heading === 'h1' ? 'h2' : 'h3';
  const live = comparison.liveArticleId ? `Live article ${comparison.liveArticleId} (version ${comparison.liveVersion ?? '?'})` : 'Nothing live yet';
  const made = comparison.originalArticleVersion !== null ? `, made from version ${comparison.originalArticleVersion}` : '';
  return [
    warnings(comparison.warnings),
    el(heading, {}, show(comparison.title) || comparison.draftArticleId),
    el('p', { className: 'muted' }, `Draft ${comparison.draftArticleId}${made} · ${live}`),
    el('p', { className: `verdict verdict-${comparison.verdict}` }, el('strong', {}, `${VERDICT_TEXT[comparison.verdict].name}. `), VERDICT_TEXT[comparison.verdict].says),
    comparison.fields.length > 0 &&
      el(
        'table',
        { className: 'fields' },
        el('caption', {}, 'Fields'),
        el('thead', {}, el('tr', {}, el('th', {}, 'field'), el('th', {}, 'live'), el('th', {}, 'draft'))),
        el(
          'tbody',
          {},
          ...comparison.fields.map((field) =>
            el('tr', {}, el('td', {}, label(field.field)), el('td', { className: 'del' }, cell(field.before)), el('td', { className: 'ins' }, field.afterName ?? cell(field.after))),
          ),
        ),
      ),
    ...comparison.lists.map((list) =>
      el(
        'div',
        { className: 'list-change' },
        el(sub, {}, label(list.field)),
        list.added.length > 0 && el('p', { className: 'ins' }, `Added: ${list.added.map(show).join(' | ')}`),
        list.removed.length > 0 && el('p', { className: 'del' }, `Removed: ${list.removed.map(show).join(' | ')}`),
      ),
    ),
    ...comparison.text.map((entry) =>
      el(
        'section',
        {},
        el(sub, {}, label(entry.field)),
        // A new article has nothing to be compared with: its text as it will read.
        comparison.verdict === 'new'
          ? el('div', { className: 'new-text ins' }, ...entry.hunks.flatMap((hunk) => hunk.lines.map((line) => el('p', {}, line.text))))
          : el('div', {}, passages(entry.passages), diffTable(`${label(entry.field)}: live and draft side by side`, live, `Draft ${comparison.draftArticleId}`, entry.hunks)),
      ),
    ),
    publishPanel(comparison, sub),
  ];
}

/** Several drafts: their verdicts counted, then each one, folded, the first open. */
function renderReview(review: DraftReview): void {
  if (review.drafts.length === 1 && !review.notFound && !review.notDrafts) {
    replaceChildren(root, ...draftParts(review.drafts[0], 'h1'));
    return;
  }
  const counts = VERDICTS.filter((verdict) => review.verdicts[verdict]).map((verdict) => `${review.verdicts[verdict]} ${VERDICT_TEXT[verdict].counted}`);
  replaceChildren(
    root,
    el('h1', {}, `${review.drafts.length} draft${review.drafts.length === 1 ? '' : 's'} to review`),
    el('p', { className: 'muted' }, counts.join(' · ')),
    review.notFound && el('p', { className: 'muted' }, `Not found in this workspace: ${review.notFound.join(', ')}.`),
    review.notDrafts && el('p', { className: 'muted' }, `Live articles, not drafts: ${review.notDrafts.join(', ')}.`),
    ...review.drafts.map((comparison, index) =>
      el(
        'details',
        { className: 'draft', attrs: { open: index === 0, 'data-draft': comparison.draftArticleId } },
        el('summary', {}, el('span', { className: `badge verdict-${comparison.verdict}` }, VERDICT_TEXT[comparison.verdict].name), ' ', show(comparison.title) || comparison.draftArticleId),
        ...draftParts(comparison, 'h2'),
      ),
    ),
  );
}

function changeRows(changes: PathChange[]): HTMLElement[] {
  return changes.map((change) =>
    el(
      'tr',
      {},
      el('td', {}, `${change.path}${change.change === 'changed' ? '' : ` (${change.change})`}`),
      el('td', { className: 'del' }, cell(change.before)),
      el('td', { className: 'ins' }, cell(change.after)),
    ),
  );
}

function renderRule(comparison: RuleComparison): void {
  const side = (version: RuleComparison['from']) => `${show(version.versionId)} (version ${show(version.version)}, ${show(version.status) || 'status unknown'}${version.active ? ', active' : ''})`;
  const columns = el('thead', {}, el('tr', {}, el('th', {}, 'field'), el('th', {}, side(comparison.from)), el('th', {}, side(comparison.to))));
  const plain = comparison.changes.filter((change) => !change.hunks);
  replaceChildren(
    root,
    el('h1', {}, `Rule ${show(comparison.name) || comparison.ruleId}`),
    el('p', { className: 'muted' }, `${side(comparison.from)} → ${side(comparison.to)}`),
    comparison.note && el('p', {}, comparison.note),
    plain.length > 0 && el('table', { className: 'fields' }, el('caption', {}, 'What the rule does'), columns, el('tbody', {}, ...changeRows(plain))),
    ...comparison.changes
      .filter((change) => change.hunks)
      .map((change) => el('section', {}, el('h2', {}, change.path), diffTable(`${change.path}: both versions side by side`, side(comparison.from), side(comparison.to), change.hunks!))),
    comparison.metadata.length > 0 &&
      el('table', { className: 'fields metadata' }, el('caption', {}, 'Version metadata'), columns.cloneNode(true), el('tbody', {}, ...changeRows(comparison.metadata))),
  );
}

/**
 * Publish goes through the host like any call, so it meets the server's confirmation. The first
 * click only asks what publishing will do (`confirm: true` never sends): with elicitation the host
 * asks the person (a no comes back as an error that says nothing was sent); without it the effect
 * shows here, and only Confirm sends, with its token.
 */
function publishPanel(comparison: ArticleComparison, heading: 'h2' | 'h3'): HTMLElement {
  const status = el('div', { className: 'publish-status', attrs: { 'aria-live': 'polite' } });
  const publish = el('button', { className: 'primary publish', attrs: { type: 'button' } }, 'Publish draft…');
  const call = (confirm: true | string) => app!.callServerTool({ name: 'publish_article_draft', arguments: { articleId: comparison.draftArticleId, confirm } });

  const settle = (result: CallToolResult) => {
    const answer = gateAnswerOf(result);
    if (answer && typeof answer.confirmToken === 'string' && !answer.refused) {
      showPreview(answer, answer.confirmToken);
    } else if (result.isError) {
      replaceChildren(status, el('p', { className: 'error', attrs: { role: 'alert' } }, resultText(result)));
      publish.disabled = false;
    } else {
      const data = result.structuredContent;
      const published = isRecord(data) && typeof data.id === 'string' ? `live article ${data.id}${typeof data.version === 'number' ? ` is now at version ${data.version}` : ''}` : 'the draft is live';
      replaceChildren(status, el('p', { className: 'done', attrs: { role: 'status' } }, `Published: ${published}.`));
    }
  };

  const showPreview = (preview: Record<string, unknown>, token: string) => {
    const effect = Array.isArray(preview.effect) ? preview.effect.map((line) => inPeoplesWords(withoutEnvelope(String(line)))) : [];
    const cautions = Array.isArray(preview.warnings) ? preview.warnings.map((line) => withoutEnvelope(String(line))) : [];
    const confirm = el('button', { className: 'primary confirm-publish', attrs: { type: 'button' } }, 'Confirm: publish');
    const cancel = el('button', { attrs: { type: 'button' } }, 'Cancel');
    confirm.addEventListener('click', () => {
      confirm.disabled = cancel.disabled = true;
      call(token).then(settle, (error: unknown) => showError(status, 'Publishing failed', error));
    });
    cancel.addEventListener('click', () => {
      replaceChildren(status, el('p', { className: 'muted' }, 'Cancelled; nothing was sent.'));
      publish.disabled = false;
    });
    replaceChildren(
      status,
      el(
        'div',
        { className: 'preview', attrs: { role: 'dialog', 'aria-label': 'Confirm publishing' } },
        el('p', {}, 'Nothing has been sent yet. Publishing this draft will:'),
        ...cautions.map((caution) => el('p', { className: 'warning' }, `Warning: ${caution}`)),
        effect.length > 0
          ? el('ul', {}, ...effect.map((line) => el('li', { className: 'effect' }, line)))
          : el('p', { className: 'muted' }, 'The current state could not be read; the request below is exactly what will be sent.'),
        typeof preview.request === 'string' && el('details', {}, el('summary', {}, 'Request to the workspace API'), el('pre', {}, preview.request)),
        el('div', { className: 'actions' }, confirm, cancel),
      ),
    );
    confirm.focus();
  };

  publish.addEventListener('click', () => {
    publish.disabled = true;
    replaceChildren(status, el('p', { className: 'muted' }, 'Checking what publishing will do…'));
    call(true).then(settle, (error: unknown) => {
      showError(status, 'Publishing failed', error);
      publish.disabled = false;
    });
  });
  return el('section', { className: 'publish' }, el(heading, {}, 'Publish'), el('div', { className: 'actions' }, publish), status);
}

const isDraftReview = (value: unknown): value is DraftReview => isRecord(value) && Array.isArray(value.drafts) && isRecord(value.verdicts);
const isRuleComparison = (value: unknown): value is RuleComparison => isRecord(value) && typeof value.ruleId === 'string' && Array.isArray(value.changes) && Array.isArray(value.metadata);

startView('review', {
  result: (result) => {
    const data = result.structuredContent;
    if (!result.isError && isDraftReview(data)) renderReview(data);
    else if (!result.isError && isRuleComparison(data)) renderRule(data);
    else replaceChildren(root, el('p', { className: 'muted' }, 'Nothing to review; the answer beside this view says why.'));
  },
})
  .then((connected) => {
    app = connected;
  })
  .catch((error: unknown) => showError(root, 'Could not connect to the host', error));
