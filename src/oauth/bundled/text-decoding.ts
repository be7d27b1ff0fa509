import { StringDecoder } from 'node:string_decoder';

/**
 * What the bundle's OAuth chunk uses in place of iconv-lite (481 KB of code pages): express's body
 * parsers (body-parser, raw-body) call it to decode a request body in the charset its Content-Type
 * names, and accept only UTF-8 and ISO-8859-1 for forms, and UTF-* for JSON. Node decodes UTF-8,
 * UTF-16LE and Latin-1 itself, with the decoder iconv-lite wraps for them. `npm run build` aliases
 * iconv-lite to this file (test/release/build.ts); its answers are iconv-lite's for those charsets
 * (test/unit/bundled-modules.test.ts), and any other charset (UTF-16BE, bare UTF-16, UTF-32, which no
 * OAuth client sends) is refused with iconv-lite's own message, which the parsers answer with 415.
 */

interface Decoder {
  write(chunk: Buffer): string;
  end(): string | undefined;
}

/** Node's decoding for a charset label, under the names iconv-lite knows these charsets by. */
function nodeEncodingOf(encoding: string): BufferEncoding | undefined {
  const name = encoding.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (name === 'utf8' || name === 'unicode11utf8') return 'utf8';
  if (name === 'utf16le' || name === 'ucs2') return 'utf16le';
  if (['iso88591', 'latin1', 'l1', 'binary', 'iso885911987', 'cp819', 'ibm819', 'isoir100', 'csisolatin1'].includes(name)) return 'latin1';
  return undefined;
}

/** A streaming decoder that drops a byte order mark at the start of its first text, as iconv-lite's default does. */
function decoderFor(encoding: string): Decoder {
  const nodeEncoding = nodeEncodingOf(String(encoding));
  if (!nodeEncoding)
    throw new Error(
      `Encoding not recognized: '${encoding}' (searched as: '${String(encoding)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')}')`,
    );
  const decoder = new StringDecoder(nodeEncoding);
  let started = false;
  return {
    write(chunk) {
      const text = decoder.write(chunk);
      if (started || !text) return text;
      started = true;
      return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    },
    end: () => decoder.end() || undefined,
  };
}

export function encodingExists(encoding: string): boolean {
  return nodeEncodingOf(String(encoding)) !== undefined;
}

export function getDecoder(encoding: string): Decoder {
  return decoderFor(encoding);
}

export function decode(buffer: Buffer, encoding: string): string {
  const decoder = decoderFor(encoding);
  return decoder.write(buffer) + (decoder.end() ?? '');
}
