import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../../json.js';
import { hasHidden } from './envelope.js';
import { capToBudget, cutDeep, recordsField, withItems } from './cap.js';
import { listItems, MAX_RENDER_DEPTH, type ShapeOptions } from './shape-options.js';
import { Renderer } from './text.js';

/**
 * A result as shaping made it, with what shaping knew of it, carried beside it on its way out
 * rather than looked up: its structured content as the cap serialised it (what the secrets check
 * reads and the transport writes, while the two still agree), and whether its text needs no
 * escaping pass (the outline wrote all of it, escaping API text as it went, under a heading with
 * nothing to escape).
 */
export interface Shaped {
  result: CallToolResult;
  structuredJson?: string;
  escapedThroughout: boolean;
}

/** A result that shaping did not make (an error, a refusal): nothing known of it. */
export const unshaped = (result: CallToolResult): Shaped => ({ result, escapedThroughout: false });

/**
 * Turns data into a tool result: the compact projection, values too deep cut, then one pass per
 * candidate that serialises it and renders its text (the cap measures both, the text reads the
 * JSON to know whether any string needs escaping), until one fits the budget.
 */
export function shape(data: unknown, options: ShapeOptions): Shaped {
  const notes: string[] = [];
  let value = data;
  if (options.list) {
    const items = listItems(value, options.list.items);
    if (items && options.view === 'compact') {
      value = withItems(
        value,
        options.list.items,
        items.map((item) => (isRecord(item) ? options.list!.compact(item) : item)),
      );
    }
  }
  // After the compact projection, which reads named fields only: what it leaves out is not walked.
  const shallow = cutDeep(value, 0);
  if (shallow !== value) notes.push(`Values nested deeper than ${MAX_RENDER_DEPTH} levels were cut; read the item on its own (a get tool) for the rest.`);
  value = shallow;
  // The field whose records are shown one by one is also the one the cap keeps whole records of.
  const itemsField = options.list?.items ?? recordsField(value);
  const renderer = new Renderer(options, itemsField);
  const capped = capToBudget(value, itemsField, options, renderer, notes);
  const structured = isRecord(capped.value) ? capped.value : { result: capped.value };
  const structuredContent = notes.length ? { ...structured, _notes: notes } : structured;
  return {
    result: { content: [{ type: 'text', text: renderer.finish(capped.body, notes) }], structuredContent },
    structuredJson: structuredContent === capped.value ? capped.json : undefined,
    escapedThroughout: !options.text && !(options.heading && hasHidden(options.heading)) && !(options.stoppedEarly && hasHidden(options.stoppedEarly)),
  };
}
