import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../support/paths.js';

/**
 * The OAuth authorization server underneath (the MCP SDK's `mcpAuthRouter`, frozen in SDK v2 and planned
 * for removal in v3) is known to one module of ours, src/oauth/authorization-server.ts (design §17): no
 * other file of src/ or tools/ imports the SDK's server/auth modules, its express app, or express, in
 * any form (static, type-only, re-export or dynamic import). Replacing the router touches that file alone.
 */
const THE_MODULE = 'src/oauth/authorization-server.ts';
const ROUTER_MODULES = /^(@modelcontextprotocol\/sdk\/server\/(auth\/|express(\.js)?$)|express(\/|$)|express-rate-limit$)/;

/** Text without which a file names none of those modules: most files are not parsed at all. */
const MAY_NAME = /express|server\/auth/;

/** Every module specifier a file's text names: imports, re-exports and `import()` calls. */
function specifiers(fileName: string, text: string): string[] {
  if (!MAY_NAME.test(text)) return [];
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) found.push(node.arguments[0].text);
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the authorization server behind one module', () => {
  it(`no file of src/ or tools/ but ${THE_MODULE} imports the SDK's authorization server, its express app or express`, () => {
    const files = [...sourceFiles('src'), ...sourceFiles('tools')];
    const reaches = files.flatMap((file) =>
      specifiers(file, readFileSync(path.join(ROOT, file), 'utf8'))
        .filter((specifier) => ROUTER_MODULES.test(specifier))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(reaches.filter((reach) => !reach.startsWith(`${THE_MODULE}:`))).toEqual([]);
    // The module is the one that does.
    expect(reaches.some((reach) => reach.includes('server/auth/router.js'))).toBe(true);
  });

  it('finds every form of import, so the check above can fail', () => {
    const cases = [
      "import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';",
      "import type { OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';",
      "export { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';",
      "const { createMcpExpressApp } = await import('@modelcontextprotocol/sdk/server/express.js');",
      "type Info = import('@modelcontextprotocol/sdk/server/auth/types.js').AuthInfo;",
      "import express from 'express';",
    ];
    for (const text of cases)
      expect(
        specifiers('example.ts', text).filter((specifier) => ROUTER_MODULES.test(specifier)),
        text,
      ).toHaveLength(1);
    expect(specifiers('example.ts', "import { OAuthTokensSchema } from '@modelcontextprotocol/sdk/shared/auth.js';").filter((specifier) => ROUTER_MODULES.test(specifier))).toEqual([]);
  });
});
