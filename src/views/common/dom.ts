/**
 * The only way views build their pages. Every string becomes a text node and attributes are set
 * with setAttribute, so text from the API (names, titles, messages, diff lines) is never parsed
 * as markup, whatever it contains.
 */
type Child = Node | string | number | null | undefined | false;

interface Props {
  className?: string;
  attrs?: Record<string, string | number | boolean | undefined>;
  onClick?: () => void;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    // Event handlers are attached as functions only, never as attribute text.
    if (/^on/i.test(name)) throw new Error(`attribute ${name} is not allowed`);
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  if (props.onClick) node.addEventListener('click', props.onClick);
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export interface Column<Row> {
  label: string;
  cell: (row: Row) => Child;
  numeric?: boolean;
}

/**
 * The figures of a chart as a table: what a screen reader reads, and what the tests compare with
 * the tool's result.
 */
export function figureTable<Row>(caption: string, columns: Column<Row>[], rows: Row[], rowAttrs?: (row: Row) => Props['attrs']): HTMLElement {
  const table = el(
    'table',
    // Wide tables become cards in a narrow host (base.css).
    { className: columns.length > 3 ? 'figures wide' : 'figures' },
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...columns.map((column) => el('th', { attrs: { scope: 'col' }, className: column.numeric ? 'num' : undefined }, column.label)))),
    // Each cell names its column too: a narrow host shows a row as a card of "column: value" lines.
    el(
      'tbody',
      {},
      ...rows.map((row) =>
        el('tr', { attrs: rowAttrs?.(row) }, ...columns.map((column) => el('td', { className: column.numeric ? 'num' : undefined, attrs: { 'data-label': column.label } }, column.cell(row)))),
      ),
    ),
  );
  return el('div', { className: 'table-wrap' }, table);
}

const TAG = /<\/?untrusted-data-[0-9a-f]+>/g;

/**
 * Upstream and preview texts mark third-party text for the model with untrusted-data tags, and
 * tell the model what they mean; a person reads the text without either. The notice is the line
 * that names a tag without enclosing anything in it, whatever its wording; a line holding a tag
 * alone opens or closes a block of lines (one envelope around a record) and goes too.
 */
export function withoutEnvelope(text: string): string {
  return text
    .split('\n')
    .filter((line) => !(/<untrusted-data-[0-9a-f]+>/.test(line) && !/<\/untrusted-data-[0-9a-f]+>/.test(line) && line.replace(TAG, '').trim() !== ''))
    .filter((line) => line.trim() === '' || line.replace(TAG, '').trim() !== '')
    .map((line) => line.replace(TAG, ''))
    .join('\n');
}
