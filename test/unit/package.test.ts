import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXTERNAL_PACKAGES } from '../release/build.js';
import { ROOT } from '../support/paths.js';

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dev?: boolean }> };

describe('what an install pulls', () => {
  it('depends on what the bundle leaves out and nothing else: every package it carries is a dev dependency', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...EXTERNAL_PACKAGES].sort());
  });

  it('pins the MCP SDK exactly (design 17), wherever it is declared', () => {
    const declared = manifest.dependencies['@modelcontextprotocol/sdk'] ?? manifest.devDependencies['@modelcontextprotocol/sdk'];
    expect(declared).toMatch(/^1\.\d+\.\d+$/);
  });

  it('takes each OpenTelemetry package once: no copy of one nested under another, which the bundle would carry twice', () => {
    const nested = Object.keys(lock.packages).filter((name) => /node_modules\/.+\/node_modules\/@opentelemetry\//.test(name));
    expect(nested).toEqual([]);
  });
});
