import { readFileSync } from 'node:fs';
import { getMcpConfigForManifest, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { manifestPrompts } from '../release/catalog-views.js';
import { MANIFEST_PATH } from '../support/paths.js';

const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as McpbManifestAny;

/** The environment Claude Desktop gives the server for these settings, through the MCPB library's own substitution. */
async function hostEnv(userConfig: Record<string, string | boolean>): Promise<Record<string, string>> {
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath: '/ext',
    systemDirs: { HOME: '/home/u', DESKTOP: '/d', DOCUMENTS: '/doc', DOWNLOADS: '/dl', DATA: '/data' },
    userConfig,
    pathSeparator: '/',
  });
  if (!config) throw new Error('the host would not start the server: a required setting is missing');
  return config.env ?? {};
}

describe('manifest.json', () => {
  it('lists the catalog prompts', () => {
    expect(manifest.prompts).toEqual(manifestPrompts());
  });

  it('starts with the sandbox switched on and nothing else filled in', async () => {
    const config = loadConfig([], await hostEnv({ sandbox: true }));
    expect(config).toMatchObject({ sandbox: true, apiKey: undefined, baseUrl: undefined, confirm: 'writes', readOnly: false, toolsets: 'all' });
  });

  it('passes the key, URL and switches as the user set them', async () => {
    const config = loadConfig([], await hostEnv({ api_key: 'svc_abc12345', base_url: 'https://api.example.com/v2', read_only: true, confirm: 'destructive', toolsets: 'agents,articles' }));
    expect(config).toMatchObject({ sandbox: false, apiKey: 'svc_abc12345', baseUrl: 'https://api.example.com', readOnly: true, confirm: 'destructive', toolsets: ['agents', 'articles'] });
  });

  it('refuses missing credentials and a mistyped mode with a message that names the setting', async () => {
    const empty = await hostEnv({});
    expect(() => loadConfig([], empty)).toThrow(/^SVC_BASE_URL is required \(or turn on the sandbox/);
    const mistyped = await hostEnv({ sandbox: true, confirm: 'always' });
    expect(() => loadConfig([], mistyped)).toThrow(/^SVC_CONFIRM must be writes, destructive or none \(got "always"\)$/);
  });
});
