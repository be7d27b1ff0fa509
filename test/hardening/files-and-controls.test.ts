import { chmod, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStep } from '../../src/sandbox/steps.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { createExportFile } from '../../tools/lib/export-file.js';
import { useSandbox } from '../support/fixture.js';

describe('the export folder (finding 10)', () => {
  it('refuses to write through a planted symlink, and never overwrites', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'svc-export-'));
    const victim = path.join(await mkdtemp(path.join(os.tmpdir(), 'svc-victim-')), 'precious.txt');
    await writeFile(victim, 'keep me');
    await symlink(victim, path.join(folder, 'out.ndjson'));
    await expect(createExportFile(folder, 'out.ndjson')).rejects.toThrow(/outputFile: out\.ndjson already exists/);
    expect(await readFile(victim, 'utf8')).toBe('keep me');
    await writeFile(path.join(folder, 'old.ndjson'), 'old');
    await expect(createExportFile(folder, 'old.ndjson')).rejects.toThrow(/never overwrite/);
    expect(await readFile(path.join(folder, 'old.ndjson'), 'utf8')).toBe('old');
  });
  it('refuses any name that leaves the folder and creates new files inside it', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'svc-export-'));
    await expect(createExportFile(folder, '../escape.ndjson')).rejects.toThrow(/plain file name inside the export folder/);
    const { file, stream } = await createExportFile(folder, 'new.ndjson');
    stream.end('{}\n');
    await new Promise<void>((resolve) => stream.once('close', () => resolve()));
    expect(path.dirname(file)).toBe(path.resolve(folder));
    expect(await readFile(file, 'utf8')).toBe('{}\n');
  });
});

describe('the export folder and the state folder (issue 32)', () => {
  it('refuses, at the export, a folder that is a symbolic link (one planted in the shared temp folder), and writes nothing where it points', async () => {
    const target = await mkdtemp(path.join(os.tmpdir(), 'svc-elsewhere-'));
    const planted = path.join(await mkdtemp(path.join(os.tmpdir(), 'svc-shared-')), 'svc-mcp-exports');
    await symlink(target, planted);
    await expect(createExportFile(planted, 'out.ndjson')).rejects.toThrow(/outputFile: the export folder .* cannot be used: it is a symbolic link/);
    expect(await readdir(target)).toEqual([]);
  });
  it.skipIf(process.getuid === undefined)('refuses an export folder others can write, and a file that is a link says so', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'svc-export-'));
    await chmod(folder, 0o777);
    await expect(createExportFile(folder, 'out.ndjson')).rejects.toThrow(/others can write it \(mode 0777\)/);
    await chmod(folder, 0o700);
    await symlink('/etc/passwd', path.join(folder, 'link.ndjson'));
    await expect(createExportFile(folder, 'link.ndjson')).rejects.toThrow(/already exists in the export folder .* as a symbolic link/);
  });
  it.skipIf(process.getuid === undefined)('a state folder others can write stops the start, naming the folder and why; a space folder inside too', async () => {
    const start = (dir: string) => createRuntime(loadConfig([], { SVC_SANDBOX: 'true', SVC_CONFIRM_SECRET: 'x'.repeat(32), SVC_STATE_DIR: dir }), createLogger('silent'));
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-state-'));
    await chmod(dir, 0o777);
    await expect(start(dir)).rejects.toThrow(new RegExp(`SVC_STATE_DIR=${dir} cannot be used \\(others can write it \\(mode 0777\\)`));
    await chmod(dir, 0o700);
    await mkdir(path.join(dir, 'spent'), { mode: 0o777 });
    await chmod(path.join(dir, 'spent'), 0o777);
    await expect(start(dir)).rejects.toThrow(/cannot be used \(spent in it: others can write it/);
    await chmod(path.join(dir, 'spent'), 0o700);
    const runtime = await start(dir);
    await runtime.close();
  });
});

describe('sandbox controls (finding 3)', () => {
  const sandbox = useSandbox();

  it("never answer a data step's outbound call, whatever the spelling of the path", async () => {
    for (const route of ['/__sandbox/info', '/__sandbox/mock/../info', '/__sandbox/mock/%2e%2e/requests', '/%5F%5Fsandbox/info', '/__SANDBOX/info']) {
      const outcome = await runStep({ id: 's', name: 's', stepNumber: 1, url: `${sandbox.url}${route}`, method: 'GET', headers: null, body: null, responseMapping: {} }, { inputs: {}, steps: {} });
      expect(JSON.stringify(outcome)).not.toContain(sandbox.keys.admin);
      if (outcome.status !== 404) expect(outcome.error, route).toContain('control routes');
    }
    const mock = await runStep(
      { id: 's', name: 's', stepNumber: 1, url: `${sandbox.url}/__sandbox/mock/echo`, method: 'GET', headers: null, body: null, responseMapping: {} },
      { inputs: {}, steps: {} },
    );
    expect(mock.success).toBe(true);
  });
});
