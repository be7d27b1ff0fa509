import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, OPTIONS } from '../../src/config.js';
import { errorResult } from '../../src/engine/errors.js';
import { serverInstructions, unknownToolsets } from '../../src/engine/listing.js';
import { SERVER_VERSION } from '../../src/meta.js';
import { AuthenticationError, RateLimitError } from '../../src/upstream/errors.js';
import { catalog } from '../../tools/index.js';
import { textOf } from '../support/harness.js';
import { MANIFEST_PATH, ROOT, sourceFiles } from '../support/paths.js';

const tool = catalog.flatMap((group) => group.tools).find((candidate) => candidate.name === 'list_agents')!;
const request = { method: 'GET', path: '/v2/bots/public' };
/** Every TypeScript file under `folder`, subfolders included, with its text. */
const sources = (folder: string) => sourceFiles(folder).map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')] as const);

describe('engine facts come from configuration and the catalog', () => {
  it('states the configured budget in the 429 text', () => {
    const result = errorResult(tool, new RateLimitError('429', request, 429), { rateLimit: { limit: 40, windowMs: 10_000 }, keyFrom: 'environment' });
    expect(textOf(result)).toContain('40 requests per 10 s');
  });

  it('says where the refused key came from in the 401 text', () => {
    const refused = new AuthenticationError('401', request, 401);
    const setting = { rateLimit: { limit: 100, windowMs: 60_000 } };
    expect(textOf(errorResult(tool, refused, { ...setting, keyFrom: 'environment' }))).toContain('SVC_API_KEY');
    const fromClient = textOf(errorResult(tool, refused, { ...setting, keyFrom: 'client' }));
    expect(fromClient).toContain('Authorization: Bearer');
    expect(fromClient).not.toContain('SVC_API_KEY');
  });

  it("builds the server instructions from the exposed groups' descriptions", () => {
    const all = serverInstructions(catalog, loadConfig(['--sandbox'], {}));
    for (const group of catalog) expect(all).toContain(group.description);
    const actionsOnly = serverInstructions(catalog, loadConfig(['--sandbox', '--toolsets', 'actions', '--read-only'], {}));
    expect(actionsOnly).toContain(catalog.find((group) => group.name === 'actions')!.description);
    expect(actionsOnly).not.toContain(catalog.find((group) => group.name === 'folders')!.description);
    expect(actionsOnly).toContain('Read-only');
  });

  it('accepts core as a toolset, alone or with groups', () => {
    expect(unknownToolsets(catalog, loadConfig(['--sandbox', '--toolsets', 'core,actions'], {}))).toEqual([]);
    expect(unknownToolsets(catalog, loadConfig(['--sandbox', '--toolsets', 'core,billing'], {}))).toEqual(['billing']);
  });
});

describe('one source per fact', () => {
  it('takes the defaults of the configuration from the option table', () => {
    const config = loadConfig(['--sandbox'], {});
    const byEnv = new Map(OPTIONS.map((option) => [option.env, option.default]));
    expect(config.confirm).toBe(byEnv.get('SVC_CONFIRM'));
    expect(config.timeoutMs).toBe(Number(byEnv.get('SVC_TIMEOUT_MS')));
    expect(config.httpPort).toBe(Number(byEnv.get('SVC_HTTP_PORT')));
    expect(config.maxResultTokens).toBe(Number(byEnv.get('SVC_MAX_RESULT_TOKENS')));
    expect(config.toolsets).toBe(byEnv.get('SVC_TOOLSETS'));
  });

  it('takes the version from package.json, and the manifest carries the same', () => {
    const packageVersion = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
    expect(SERVER_VERSION).toBe(packageVersion);
    expect(JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')).version).toBe(packageVersion);
  });

  it('keeps the catalog out of HTTP internals and the engine out of the catalog', () => {
    // The HTTP core is src/upstream/ (moved from src/http/), the transports src/transports/.
    const tools = sources('tools');
    const engine = sources('src/engine');
    expect(tools.length).toBeGreaterThan(20);
    expect(engine.some(([file]) => file.startsWith('src/engine/render/'))).toBe(true);
    for (const [file, source] of tools) expect(source, file).not.toMatch(/from '(\.\.\/)+src\/(upstream|transports|http)\//);
    for (const [file, source] of engine) expect(source, file).not.toMatch(/from '(\.\.\/)+tools\//);
  });

  it('keeps the server module small: one job, wiring', () => {
    expect(readFileSync(path.join(ROOT, 'src/engine/server.ts'), 'utf8').split('\n').length).toBeLessThan(150);
  });
});
