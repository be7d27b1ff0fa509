import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { helpText } from '../../src/help.js';

const base = { SVC_BASE_URL: 'https://api.example.com', SVC_API_KEY: 'svc_test0123' };

describe('SVC_PROVIDER_NAMES', () => {
  it("defaults to the sandbox's names, one per documented kind", () => {
    expect(loadConfig([], base).providerNames).toEqual({ notes: 'notes', helpcenter: 'helpcenter', wiki: 'wiki', drive: 'drive' });
  });

  it('maps the kinds given (flag or environment) and keeps the others', () => {
    expect(loadConfig([], { ...base, SVC_PROVIDER_NAMES: 'notes=notion, wiki=confluence' }).providerNames).toEqual({
      notes: 'notion',
      helpcenter: 'helpcenter',
      wiki: 'confluence',
      drive: 'drive',
    });
    expect(loadConfig(['--provider-names', 'drive=gdrive'], base).providerNames.drive).toBe('gdrive');
  });

  it('refuses unknown kinds and names that are not lowercase, and is documented in --help', () => {
    expect(() => loadConfig([], { ...base, SVC_PROVIDER_NAMES: 'ftp=files' })).toThrow(/unknown provider kind "ftp"/);
    expect(() => loadConfig([], { ...base, SVC_PROVIDER_NAMES: 'notes=Notion' })).toThrow(/wire name of notes must be a lowercase name/);
    expect(() => loadConfig([], { ...base, SVC_PROVIDER_NAMES: 'notes' })).toThrow(/wire name of notes/);
    expect(helpText()).toContain('SVC_PROVIDER_NAMES');
  });
});
