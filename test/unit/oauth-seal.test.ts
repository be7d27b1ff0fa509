import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Sealer } from '../../src/oauth/seal.js';

const SECRET = 'a-test-secret-of-at-least-32-characters!';

describe('the sealer of stored keys (AES-256-GCM under a key derived from SVC_AUTH_SECRET)', () => {
  const sealer = new Sealer(SECRET, 'api key of a grant');

  it('opens what it sealed for the same record, and nothing else', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), fc.string(), (plain, record, other) => {
        const sealed = sealer.seal(plain, record);
        expect(sealer.open(sealed, record)).toBe(plain);
        if (other !== record) expect(sealer.open(sealed, other)).toBeUndefined();
      }),
    );
  });

  it('refuses any altered character, another purpose and another secret', () => {
    const sealed = sealer.seal('svc_0123456789abcdef', 'grant-1');
    fc.assert(
      fc.property(fc.nat(sealed.length - 1), fc.constantFrom('A', 'b', '0', '-', '_', '.'), (at, replacement) => {
        const altered = sealed.slice(0, at) + replacement + sealed.slice(at + 1);
        fc.pre(altered !== sealed);
        expect(sealer.open(altered, 'grant-1')).toBeUndefined();
      }),
    );
    expect(new Sealer(SECRET, 'client secret').open(sealed, 'grant-1')).toBeUndefined();
    expect(new Sealer(`${SECRET}?`, 'api key of a grant').open(sealed, 'grant-1')).toBeUndefined();
  });

  it('never seals the same text the same way twice', () => {
    expect(sealer.seal('svc_same', 'grant')).not.toBe(sealer.seal('svc_same', 'grant'));
  });
});
