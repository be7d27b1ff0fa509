import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../support/paths.js';

/**
 * Every reach into the MCP SDK's internals lives in src/sdk/ (design §17): only there may code read
 * a private member, rewire a transport's `onmessage`, replace a method of an SDK object or touch an
 * SDK export's prototype or properties. This reads every other file of src/ and tools/ (syntax
 * only, so it costs a fraction of a second) and names each reach it finds.
 */

const ADAPTER = 'src/sdk/';
const SDK_MODULE = /^@modelcontextprotocol\/sdk(\/|$)/;
/** Underscored names that are not SDK members: MCP's own `_meta` field, and zod's schema definitions. */
const UNDERSCORED_ALLOWED = new Set(['_meta', '_def']);
/**
 * Members through which an SDK object is rewired when replaced: a transport's methods, a server's.
 * `onclose` and `onerror` are not among them: a transport's owner sets them before connecting, and
 * the SDK's `connect` calls them first (its documented way); `onmessage` is refused on its own.
 */
const WIRING = new Set(['onmessage', 'send', 'start', 'close', 'connect', 'setRequestHandler', 'request', 'notification']);
const REFLECTION = new Set(['assign', 'defineProperty', 'defineProperties', 'setPrototypeOf', 'getOwnPropertyDescriptor', 'getPrototypeOf']);

/** Text without which a file can make no reach below: most files are not parsed at all. */
const MAY_REACH = /[.[]\s*['"]?_|onmessage|prototype|@modelcontextprotocol\/sdk|\.\s*\w+\s*[-+*/%&|^?]*=[^=>]/;

/** Each reach into the SDK's internals in one file's text, as `line: what`. */
function sdkReaches(fileName: string, text: string): string[] {
  if (!MAY_REACH.test(text)) return [];
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const fromSdk = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || !SDK_MODULE.test(statement.moduleSpecifier.text)) continue;
    const clause = statement.importClause;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) fromSdk.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) fromSdk.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) if (!element.isTypeOnly) fromSdk.add(element.name.text);
  }
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${what}`);
  const memberName = (node: ts.Node): string | undefined => {
    if (ts.isPropertyAccessExpression(node)) return node.name.text;
    if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) return node.argumentExpression.text;
    return undefined;
  };
  const rootName = (node: ts.Expression): string | undefined => {
    let current: ts.Expression = node;
    while (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current) || ts.isParenthesizedExpression(current) || ts.isAsExpression(current)) current = current.expression;
    return ts.isIdentifier(current) ? current.text : undefined;
  };
  const visit = (node: ts.Node) => {
    const member = memberName(node);
    if (member !== undefined && (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node))) {
      const owner = node.expression;
      if (member.startsWith('_') && !UNDERSCORED_ALLOWED.has(member)) at(node, `reads the private member ${member}`);
      if (member === 'onmessage' && owner.kind !== ts.SyntaxKind.ThisKeyword) at(node, "reaches a transport's onmessage, the SDK's delivery");
      if (member === 'prototype' && fromSdk.has(rootName(owner) ?? '')) at(node, `reaches the prototype of the SDK's ${rootName(owner)}`);
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      const target = node.left;
      const assigned = memberName(target);
      if (assigned !== undefined && (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target))) {
        const owner = target.expression;
        if (fromSdk.has(rootName(owner) ?? '')) at(node, `changes ${assigned} of the SDK's ${rootName(owner)}`);
        else if (WIRING.has(assigned) && owner.kind !== ts.SyntaxKind.ThisKeyword) at(node, `replaces ${assigned}, rewiring an SDK object`);
      }
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression)) {
      const { expression } = node.expression;
      const first = node.arguments[0];
      if (expression.text === 'Object' && REFLECTION.has(node.expression.name.text) && first && fromSdk.has(rootName(first) ?? '')) {
        at(node, `Object.${node.expression.name.text} on the SDK's ${rootName(first)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the MCP SDK adapter (src/sdk/) is the only way into the SDK', () => {
  it('no file of src/ or tools/ outside src/sdk/ reads an SDK internal, rewires a transport, replaces an SDK method or changes an SDK export', () => {
    const files = [...sourceFiles('src'), ...sourceFiles('tools')].filter((file) => !file.startsWith(ADAPTER));
    expect(files.length).toBeGreaterThan(100);
    const reaches = files.flatMap((file) => sdkReaches(file, readFileSync(path.join(ROOT, file), 'utf8')).map((reach) => `${file}:${reach}`));
    expect(reaches).toEqual([]);
  });

  it('finds every kind of reach the adapter makes, so the check above can fail', () => {
    const reaches = (text: string) => sdkReaches('example.ts', text);
    const sdkImports = "import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';\nimport { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';\n";
    const cases: Record<string, string> = {
      'reads the private member _onrequest': 'const dispatch = (server as unknown as { _onrequest: unknown })._onrequest;',
      'reads the private member _requestHandlers': "const table = (server as any)['_requestHandlers'];",
      "reaches a transport's onmessage": 'const deliver = transport.onmessage;',
      'replaces send': 'transport.send = (message) => undefined;',
      'replaces close': 'server.close = async () => undefined;',
      "reaches the prototype of the SDK's Protocol": `${sdkImports}Protocol.prototype.setRequestHandler.call(server);`,
      "changes safeParse of the SDK's InitializeRequestSchema": `${sdkImports}(InitializeRequestSchema as any).safeParse = () => ({ success: false });`,
      "Object.getOwnPropertyDescriptor on the SDK's InitializeRequestSchema": `${sdkImports}Object.getOwnPropertyDescriptor(InitializeRequestSchema, 'safeParse');`,
    };
    for (const [what, text] of Object.entries(cases)) expect(reaches(text).join('\n'), what).toContain(what);
    // What any code may do: its own transport's callbacks, MCP's `_meta`, zod's `_def`, a type-only import's name.
    const allowed = [
      'class Own { onmessage?: () => void; receive() { this.onmessage?.(); } }',
      'const token = request.params._meta?.progressToken;',
      'const kind = schema._def.typeName;',
      "import type { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';\nconst p = { Protocol: 1 }.Protocol;",
      'config.authSecret = secret; ctx.rules.port = port;',
    ];
    for (const text of allowed) expect(reaches(text), text).toEqual([]);
  });
});
