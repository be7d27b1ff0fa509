import { describe, expect, it } from 'vitest';
import { holdLiveKey, redactLiveKeys } from '../../src/redaction/live-keys.js';
import { keyRedaction } from '../../src/redaction/redaction.js';

describe('live-key redaction of log lines and error texts', () => {
  const first = 'svc_liveKeyOfTheFirstTenant0123456789';
  const second = 'svc_liveKeyOfTheSecondTenant987654321';
  const base64 = (key: string) => Buffer.from(key).toString('base64');

  it('masks every live key in every form', () => {
    const releases = [holdLiveKey(first, keyRedaction(first)), holdLiveKey(second, keyRedaction(second))];
    try {
      const line = `a ${base64(first)} b ${base64(second)} c ${first} d ${second}`;
      const outside = redactLiveKeys(line);
      for (const form of [first, second, base64(first), base64(second)]) expect(outside).not.toContain(form);
    } finally {
      for (const release of releases) release();
    }
  });
});
