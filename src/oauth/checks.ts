import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '../access.js';
import { InvalidClientMetadataError, InvalidGrantError, InvalidRequestError, InvalidTargetError } from './authorization-server.js';

/**
 * The rules this authorization server holds requests to beyond what the SDK's handlers check: each
 * throws the OAuth error the SDK answers with, naming the rule.
 */

/** A registration: at least one return address, each https, http on a loopback host (an app on the person's machine), or an app's own scheme; no fragment (OAuth 2.1). */
export function checkRedirectUris(uris: string[] | undefined): void {
  if (!uris?.length) throw new InvalidClientMetadataError('redirect_uris must list at least one redirect URI');
  for (const uri of uris) {
    const url = new URL(uri);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) throw new InvalidClientMetadataError(`redirect_uri ${uri} must use https (plain http only on a loopback host)`);
    if (url.hash) throw new InvalidClientMetadataError(`redirect_uri ${uri} must not have a fragment`);
  }
}

/**
 * OpenID Connect's `application_type` (RFC 7591 leaves it to extensions; MCP clients send it): `web`
 * returns only to https on a host that is not the person's machine; `native` (an application on the
 * person's machine) may also use loopback http or its own scheme, as RFC 8252 allows. Without it, the
 * rules of `checkRedirectUris` alone apply.
 */
export function checkApplicationType(type: unknown, uris: string[]): void {
  if (type === undefined || type === 'native') return;
  if (type !== 'web') throw new InvalidClientMetadataError(`application_type ${JSON.stringify(type)} is not supported: use web or native`);
  for (const uri of uris) {
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    if (url?.protocol !== 'https:' || isLoopbackHost(url.hostname)) {
      throw new InvalidClientMetadataError(
        `redirect_uri ${uri} does not suit application_type web, which returns to https on a host other than the person's machine (use application_type native for a loopback or app-scheme address)`,
      );
    }
  }
}

/** What a client's metadata must hold to be used, whether registered or read from its document. */
export function checkClientMetadata(metadata: { redirect_uris?: string[]; application_type?: unknown }): void {
  checkRedirectUris(metadata.redirect_uris);
  checkApplicationType(metadata.application_type, metadata.redirect_uris ?? []);
}

/** The SDK reads a client's secret from the form body only, so a client that asked for HTTP Basic (or left the RFC 7591 default) gets client_secret_post. */
export function authMethodOf(client: { token_endpoint_auth_method?: string }): string {
  const method = client.token_endpoint_auth_method;
  if (method === 'none') return 'none';
  if (method === undefined || method === 'client_secret_post' || method === 'client_secret_basic') return 'client_secret_post';
  throw new InvalidClientMetadataError(`token_endpoint_auth_method ${method} is not supported: use none (with PKCE) or client_secret_post`);
}

/** RFC 8707: a resource is an absolute URI without a fragment. */
export function checkResource(resource: URL | undefined): void {
  if (resource?.hash) throw new InvalidTargetError(`resource ${resource.href} must not have a fragment (RFC 8707)`);
}

/** RFC 7636: an S256 challenge is the base64url SHA-256 of a verifier, 43 characters. */
export function checkCodeChallenge(challenge: string): void {
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) throw new InvalidRequestError('code_challenge must be 43 base64url characters: the S256 hash of a code_verifier (RFC 7636)');
}

/** RFC 7636, section 4.1: a verifier is 43 to 128 unreserved characters, and its S256 hash is the challenge the code was issued for. */
export function checkCodeVerifier(verifier: string | undefined, challenge: string): void {
  if (verifier === undefined || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) {
    throw new InvalidRequestError('code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~" (RFC 7636)');
  }
  const hashed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  if (hashed.length !== expected.length || !timingSafeEqual(hashed, expected)) throw new InvalidGrantError('code_verifier does not match the challenge');
}

/** What a consent form's POST says of where it was sent from. */
export interface FormOrigin {
  'sec-fetch-site'?: string | string[];
  origin?: string | string[];
}

/**
 * Why a POST of the consent form is refused as sent from another site, or undefined. No page of
 * ours posts it cross-site: a browser says `Sec-Fetch-Site: cross-site`, or an Origin that is
 * neither this server's nor `null` (Chromium sends `null` under our `Referrer-Policy: no-referrer`).
 */
export function crossSiteRefusal(headers: FormOrigin, publicOrigin: string): string | undefined {
  if (headers['sec-fetch-site'] === 'cross-site') return 'the browser says it was sent from another site';
  const origin = headers.origin;
  if (origin !== undefined && origin !== 'null' && origin !== publicOrigin) return `it was sent from ${String(origin)}, not from this server's page`;
  return undefined;
}
