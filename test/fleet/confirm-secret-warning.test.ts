import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { startHttpServer } from '../../src/transports/http/server.js';
import { useSandbox } from '../support/fixture.js';

const sandbox = useSandbox();

/** Starts an HTTP node with these flags and returns what it logged at start. */
async function startupLog(flags: string[]): Promise<string> {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const config = loadConfig(['--transport', 'http', '--http-port', '0', '--base-url', sandbox.url, ...flags]);
  const handle = await startHttpServer(await createRuntime(config, pino({ level: 'info' }, sink)));
  await handle.shutdown('test over');
  return text;
}

describe('a fleet node without SVC_CONFIRM_SECRET', () => {
  it('says at start that its confirmation tokens will fail on other nodes', async () => {
    expect(await startupLog(['--stateless'])).toContain('SVC_CONFIRM_SECRET is not set');
  });

  it('says nothing with a shared secret, alone, or when nothing needs confirming', async () => {
    expect(await startupLog(['--stateless', '--confirm-secret', 'shared'])).not.toContain('SVC_CONFIRM_SECRET');
    expect(await startupLog([])).not.toContain('SVC_CONFIRM_SECRET');
    expect(await startupLog(['--stateless', '--confirm', 'none'])).not.toContain('SVC_CONFIRM_SECRET');
  });
});
