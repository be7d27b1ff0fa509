import { createHash } from 'node:crypto';
import { showHiddenOnOneLine, visibleName } from '../hidden-characters.js';

/**
 * The authorization page: where a person lets an application (Claude, ChatGPT, an IDE) use the
 * workspace through this server, by giving the workspace API key once. Plain HTML with no script;
 * everything a client chose (its name, its return address) is escaped text.
 */

/** The views' palette (src/views/common/base.css), following the system's light or dark scheme since no host sets a theme here. */
const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --fg-muted: #57606a; --bg: #ffffff; --bg-alt: #f6f8fa; --border: #d0d7de;
  --accent: #2f6feb; --danger-fg: #a40e26; --danger-bg: #ffebe9; --font: system-ui, -apple-system, "Segoe UI", sans-serif; --mono: ui-monospace, "SFMono-Regular", Menlo, monospace; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --fg-muted: #9198a1; --bg: #0d1117; --bg-alt: #161b22; --border: #3d444d;
  --accent: #1f6feb; --danger-fg: #ff7b72; --danger-bg: #4b1a1d; } }
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 var(--font); }
main { max-width: 34rem; margin: 0 auto; padding: 24px 16px; }
h1 { font-size: 1.3rem; margin: 0 0 12px; }
p { margin: 8px 0; }
.muted { color: var(--fg-muted); font-size: 0.9rem; }
.where { background: var(--bg-alt); border: 1px solid var(--border); border-radius: 6px; padding: 10px 12px; margin: 12px 0; overflow-wrap: anywhere; }
.where code { font: 0.85rem/1.4 var(--mono); }
.error { background: var(--danger-bg); color: var(--danger-fg); border: 1px solid currentColor; border-radius: 6px; padding: 8px 12px; margin: 12px 0; font-weight: 600; }
label { display: block; font-weight: 600; margin: 16px 0 4px; }
input[type=password] { width: 100%; font: 1rem var(--mono); color: var(--fg); background: var(--bg); border: 1px solid var(--border); border-radius: 6px; padding: 10px; }
label.check { display: flex; gap: 8px; align-items: flex-start; font-weight: normal; }
label.check input { margin-top: 5px; }
.actions { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 20px; }
button { font: inherit; color: var(--fg); background: var(--bg-alt); border: 1px solid var(--border); border-radius: 6px; padding: 10px 18px; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Text a person reads on the page: on one line with every hidden character escaped (a name with U+202E cannot turn the sentence around), then HTML-escaped. */
function shown(text: string): string {
  return escapeHtml(showHiddenOnOneLine(text));
}

/**
 * Headers of every page: no script at all, no framing (clickjacking), no referrer (the page's query holds the
 * request's state). The form may go to this origin and, through the redirect that answers it, to the
 * client's return address only: Chromium applies `form-action` to a form's redirects too, so `'self'`
 * alone would block the way back to the client.
 */
export function pageHeaders(returnTo?: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action 'self'${returnTo ? ` ${formTarget(returnTo)}` : ''}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  };
}

/** A CSP source for a return address: its origin for http(s), its scheme for an app's own scheme (`cursor:`). */
function formTarget(returnTo: string): string {
  const url = new URL(returnTo);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

/** Where the person returns to, as they should read it: the host for the web, the whole address for an app's own scheme. */
function returnPlace(returnTo: string): string {
  const url = new URL(returnTo);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `${url.protocol}//${url.host}`;
}

export interface AuthorizePage {
  clientName?: string;
  /** The host of a client known by its client metadata document: the one thing about it this server checked. */
  documentHost?: string;
  redirectUri: string;
  /** The host of this server, as the person reached it. */
  serverHost: string;
  /** The OAuth parameters and the request token, sent back unchanged with the form. */
  hidden: Record<string, string>;
  /** The server itself is read-only: no choice to offer. */
  serverReadOnly: boolean;
  /** The person asked for read-only access (the form shown again after an error keeps the choice). */
  readOnly: boolean;
  error?: string;
}

export function authorizePage(page: AuthorizePage): string {
  // Anyone may register a client under any name: the page says it is the client's own claim, and a name of nothing visible is no name.
  const name = visibleName(page.clientName);
  const at = page.documentHost ? ` at <strong>${shown(page.documentHost)}</strong>` : '';
  const who = name ? `An application${at} that calls itself <strong>“${escapeHtml(name)}”</strong>` : `<strong>An application${at} without a name</strong>`;
  const hidden = Object.entries(page.hidden)
    .map(([field, value]) => `<input type="hidden" name="${escapeHtml(field)}" value="${escapeHtml(value)}">`)
    .join('\n      ');
  const access = page.serverReadOnly
    ? '<p class="muted">This server is read-only: the application can list and run read tools only.</p>'
    : `<label class="check"><input type="checkbox" name="access" value="read"${page.readOnly ? ' checked' : ''}> <span>Read only: the application can list and run read tools only, never change anything.</span></label>`;
  return document(
    'Allow access to your workspace',
    `<h1>Allow access to your workspace?</h1>
    <p>${who} asks to use the Support-Agent Workspace tools of <strong>${shown(page.serverHost)}</strong> in your name.</p>
    <div class="where">After you decide, you return to <strong>${shown(returnPlace(page.redirectUri))}</strong><br><code>${shown(page.redirectUri)}</code></div>
    <p class="muted">Continue only if you started this connection yourself and you trust that address.</p>
    ${page.error ? `<p class="error" role="alert">${shown(page.error)}</p>` : ''}
    <form method="post" action="/authorize">
      ${hidden}
      <label for="api_key">Workspace API key</label>
      <input id="api_key" name="api_key" type="password" required autocomplete="off" autocapitalize="off" spellcheck="false" placeholder="svc_..." autofocus>
      <p class="muted">It is checked with the workspace API, then kept encrypted on this server for this connection only. The application never sees it.</p>
      ${access}
      <div class="actions">
        <button type="submit" class="primary" name="decision" value="allow">Allow access</button>
        <button type="submit" name="decision" value="deny" formnovalidate>Cancel</button>
      </div>
    </form>`,
  );
}

/** Seconds a page that sends the person back to an application on their machine shows first. */
export const RETURN_AFTER_SECONDS = 5;

/**
 * A dead end (expired or already used request, an unknown application): nothing to submit, only what to
 * do next. With `returnTo`, the browser goes back there after a few seconds (an application on the
 * person's machine that is waiting for an answer), or at once with the link.
 */
export function messagePage(title: string, message: string, returnTo?: { href: string; label: string }): string {
  const back = returnTo
    ? `\n    <p class="muted">You go back to ${shown(returnTo.label)} in ${RETURN_AFTER_SECONDS} seconds, which is told the sign-in failed: <a href="${escapeHtml(returnTo.href)}">go back now</a>.</p>`
    : '';
  const refresh = returnTo ? `<meta http-equiv="refresh" content="${RETURN_AFTER_SECONDS}; url=${escapeHtml(returnTo.href)}">` : '';
  return document(title, `<h1>${shown(title)}</h1>\n    <p>${shown(message)}</p>${back}`, refresh);
}

function document(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">${head}
  <title>${escapeHtml(title)} · svc-mcp</title>
  <style>${STYLE}</style>
</head>
<body>
  <main>
    ${body}
  </main>
</body>
</html>
`;
}
