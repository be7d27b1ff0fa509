import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encryption of what OAuth state must hold in a form it can use again (a grant's API key, a
 * confidential client's secret): AES-256-GCM under a key derived from SVC_AUTH_SECRET with HKDF, so
 * the secret itself never encrypts anything and one secret can feed other purposes with other labels.
 * The additional data names the record a value belongs to, so a sealed value copied into another
 * record does not open.
 */
export class Sealer {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'svc-mcp oauth', purpose, 32));
  }

  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The plain text, or undefined when the value was not sealed by this secret for this record. */
  open(sealed: string, boundTo: string): string | undefined {
    const [version, ...parts] = sealed.split('.');
    const [iv, body, tag] = parts.map(canonicalBytes);
    if (version !== VERSION || parts.length !== 3 || !iv || !body || !tag || iv.length === 0 || tag.length === 0) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** The bytes of base64url text only in the one spelling `seal` writes: another spelling of the same bytes is not a sealed value. */
function canonicalBytes(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** An unguessable credential (256 bits), with a prefix that says what it is to a secret scanner or a person reading a config. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}
