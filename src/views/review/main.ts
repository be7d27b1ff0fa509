import type { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import '../common/base.css';
import './review.css';
import { el, isRecord, replaceChildren, withoutEnvelope } from '../common/dom.js';
import { resultText, showError, startView } from '../common/view.js';
import type { ArticleComparison, DiffHunk, DiffLine, RuleComparison } from '../../../tools/results.js';

const root = document.getElementById('view')!;
let app: App | undefined;

const show = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

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

function diffTable(caption: string, left: string, right: string, hunks: DiffHunk[]): HTMLTableElement {
  const cells = (line: DiffLine | undefined, side: 'old' | 'new') => {
    if (!line) return [el('td', { className: 'ln gap' }), el('td', { className: 'gap' })];
    const changed = line.mark !== ' ';
    const kind = side === 'old' ? 'del' : 'ins';
    return [
      el('td', { className: `ln${changed ? ` ${kind}` : ''}` }, (side === 'old' ? line.oldLine : line.newLine) ?? ''),
      el('td', { className: `code${changed ? ` ${kind}` : ''}`, attrs: { 'data-mark': line.mark } }, el('span', { className: 'mark', attrs: { 'aria-label': changed ? (side === 'old' ? 'removed' : 'added') : undefined } }, changed ? line.mark : ' '), line.text),
    ];
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
        el('tr', { className: 'hunk' }, el('td', { attrs: { colspan: 4 } }, `Lines ${hunk.oldStart}-${hunk.oldStart + Math.max(0, hunk.oldLines - 1)} → ${hunk.newStart}-${hunk.newStart + Math.max(0, hunk.newLines - 1)}`)),
        ...sideBySide(hunk).map(([before, after]) => el('tr', {}, ...cells(before, 'old'), ...cells(after, 'new'))),
      ),
    ),
  );
}

function warnings(list: string[]): HTMLElement | false {
  return list.length > 0 && el('div', { className: 'warnings', attrs: { role: 'alert' } }, ...list.map((warning) => el('p', { className: 'warning' }, `Warning: ${warning}`)));
}

function renderArticle(comparison: ArticleComparison): void {
  const live = comparison.liveArticleId ? `Live article ${comparison.liveArticleId} (version ${comparison.liveVersion ?? '?'})` : 'Nothing live yet';
  const verdict =
    comparison.outcome === 'new'
      ? 'Publishing creates a new live article with this content.'
      : comparison.outcome === 'identical'
        ? 'The draft matches the live article: publishing changes nothing.'
        : `Draft made from version ${comparison.originalArticleVersion ?? '?'}; publishing overwrites the live article.`;
  replaceChildren(
    root,
    warnings(comparison.warnings),
    el('h1', {}, show(comparison.title) || comparison.draftArticleId),
    el('p', { className: 'muted' }, `Draft ${comparison.draftArticleId} · ${live}`),
    el('p', {}, verdict),
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
            el('tr', {}, el('td', {}, field.field), el('td', { className: 'del' }, show(field.before)), el('td', { className: 'ins' }, field.afterName ?? show(field.after))),
          ),
        ),
      ),
    ...comparison.lists.map((list) =>
      el(
        'div',
        { className: 'list-change' },
        el('h2', {}, list.field),
        list.added.length > 0 && el('p', { className: 'ins' }, `Added: ${list.added.map(show).join(' | ')}`),
        list.removed.length > 0 && el('p', { className: 'del' }, `Removed: ${list.removed.map(show).join(' | ')}`),
      ),
    ),
    ...comparison.text.map((entry) =>
      el(
        'section',
        {},
        el('h2', {}, entry.field),
        // A one-word edit inside a long paragraph is easy to miss in a line diff.
        entry.words.length > 0 && el('ul', { className: 'words' }, ...entry.words.map((change) => el('li', {}, el('span', { className: 'del' }, change.before), ' → ', el('span', { className: 'ins' }, change.after)))),
        diffTable(`${entry.field}: live and draft side by side`, live, `Draft ${comparison.draftArticleId}`, entry.hunks),
      ),
    ),
    publishPanel(comparison),
  );
}

function renderRule(comparison: RuleComparison): void {
  const side = (version: RuleComparison['from']) => `${show(version.versionId)} (version ${show(version.version)}, ${show(version.status) || 'status unknown'}${version.active ? ', active' : ''})`;
  replaceChildren(
    root,
    el('h1', {}, `Rule ${show(comparison.name) || comparison.ruleId}`),
    el('p', { className: 'muted' }, `${side(comparison.from)} → ${side(comparison.to)}`),
    comparison.note && el('p', {}, comparison.note),
    ...comparison.changes.map((change) =>
      change.hunks
        ? el('section', {}, el('h2', {}, change.path), diffTable(`${change.path}: both versions side by side`, side(comparison.from), side(comparison.to), change.hunks))
        : el(
            'table',
            { className: 'fields' },
            el('caption', {}, `${change.path} (${change.change})`),
            el('tbody', {}, el('tr', {}, el('td', { className: 'del' }, show(change.before)), el('td', { className: 'ins' }, show(change.after)))),
          ),
    ),
  );
}

/**
 * Publish goes through the host like any call, so it meets the server's confirmation. The first
 * click only asks for a preview (`confirm: true` never sends): with elicitation the host asks the
 * user; without it the preview and its effect show here, and only Confirm sends, with its token.
 */
function publishPanel(comparison: ArticleComparison): HTMLElement {
  const status = el('div', { className: 'publish-status', attrs: { 'aria-live': 'polite' } });
  const publish = el('button', { className: 'primary', attrs: { type: 'button', id: 'publish' } }, 'Publish draft…');
  const call = (confirm: true | string) => app!.callServerTool({ name: 'publish_article_draft', arguments: { articleId: comparison.draftArticleId, confirm } });

  const settle = (result: CallToolResult) => {
    const data = result.structuredContent;
    if (result.isError) {
      replaceChildren(status, el('p', { className: 'error', attrs: { role: 'alert' } }, resultText(result)));
      publish.disabled = false;
    } else if (isRecord(data) && typeof data.confirmToken === 'string') {
      showPreview(data, data.confirmToken);
    } else if (isRecord(data) && data.sent === false) {
      replaceChildren(status, el('p', {}, withoutEnvelope(String(data.message ?? 'Nothing was sent.'))));
      publish.disabled = false;
    } else {
      replaceChildren(status, el('p', { className: 'done', attrs: { role: 'status' } }, `Published. ${resultText(result).split('\n')[0]}`));
    }
  };

  const showPreview = (preview: Record<string, unknown>, token: string) => {
    const effect = Array.isArray(preview.effect) ? preview.effect.map((line) => withoutEnvelope(String(line))) : [];
    const confirm = el('button', { className: 'primary', attrs: { type: 'button', id: 'confirm-publish' } }, 'Confirm: publish');
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
        el('p', {}, withoutEnvelope(String(preview.message ?? 'Preview only; nothing was sent.'))),
        effect.length > 0 && el('ul', {}, ...effect.map((line) => el('li', {}, line))),
        typeof preview.request === 'string' && el('pre', {}, preview.request),
        el('div', { className: 'actions' }, confirm, cancel),
      ),
    );
    confirm.focus();
  };

  publish.addEventListener('click', () => {
    publish.disabled = true;
    replaceChildren(status, el('p', { className: 'muted' }, 'Asking the server what publishing will do…'));
    call(true).then(settle, (error: unknown) => {
      showError(status, 'Publishing failed', error);
      publish.disabled = false;
    });
  });
  return el('section', { className: 'publish' }, el('h2', {}, 'Publish'), el('div', { className: 'actions' }, publish), status);
}

const isArticleComparison = (value: unknown): value is ArticleComparison => isRecord(value) && typeof value.draftArticleId === 'string' && Array.isArray(value.text);
const isRuleComparison = (value: unknown): value is RuleComparison => isRecord(value) && typeof value.ruleId === 'string' && Array.isArray(value.changes);

startView('review', {
  result: (result) => {
    const data = result.structuredContent;
    if (!result.isError && isArticleComparison(data)) renderArticle(data);
    else if (!result.isError && isRuleComparison(data)) renderRule(data);
    else replaceChildren(root, el('p', { className: 'muted' }, 'Nothing to review; the answer beside this view says why.'));
  },
})
  .then((connected) => {
    app = connected;
  })
  .catch((error: unknown) => showError(root, 'Could not connect to the host', error));
