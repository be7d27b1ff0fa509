/** Headless Chromium showing the host page (page/host.ts), which connects a view through ext-apps' AppBridge. */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import type { ViewClient } from './client.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const SCREENSHOTS = path.join(HERE, 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Writes a screenshot under its name only when it differs: a run that changed nothing leaves the tracked file alone. */
export async function keepScreenshot(name: string, shot: Buffer): Promise<void> {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  const tracked = await readFile(file).catch(() => undefined);
  if (!tracked?.equals(shot)) await writeFile(file, shot);
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

async function hostScript(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(HERE, 'page/host.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
    preserveSymlinks: true,
  });
  return result.outputFiles[0].text;
}

/** What page/host.ts puts on the page's window. */
interface HostWindow {
  host: {
    show(options: { html: string; toolName: string; args: Record<string, unknown>; result: CallToolResult; theme: 'light' | 'dark'; width: number }): Promise<void>;
    setTheme(theme: 'light' | 'dark'): Promise<void>;
  };
}

export interface HostPage {
  page: Page;
  /** Every URL the page or the view asked the network for. */
  requests: string[];
  /** Uncaught errors in the page or the view. */
  errors: string[];
  /**
   * Shows a view with a tool's arguments and result; resolves with the view's frame once connected.
   * `width`: the frame's, 960 by default (a desktop host); 400 for a narrow side panel.
   */
  show(options: { html: string; toolName: string; args: Record<string, unknown>; result: CallToolResult; theme?: 'light' | 'dark'; width?: number }): Promise<Frame>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
}

/** A page playing the MCP host: its view's tool calls go to `viewClient`, as a host forwards them to its MCP client. */
export async function openHostPage(browser: Browser, viewClient: ViewClient): Promise<HostPage> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  await page.exposeFunction('svcCallTool', (params: CallToolRequest['params']) => viewClient.call(params.name, params.arguments ?? {}));
  await page.setContent(`<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>`);
  await page.addScriptTag({ content: await hostScript() });
  return {
    page,
    requests,
    errors,
    async show({ html, toolName, args, result, theme = 'light', width = 960 }) {
      await page.evaluate((options) => (globalThis as unknown as HostWindow).host.show(options), { html, toolName, args, result, theme, width });
      // The view's iframe is the newest: the one it replaced may still be listed until Playwright hears it was detached.
      const frame = page
        .frames()
        .filter((candidate) => candidate !== page.mainFrame() && !candidate.isDetached())
        .at(-1);
      if (!frame) throw new Error('the view frame did not load');
      return frame;
    },
    async setTheme(theme) {
      await page.evaluate((value) => (globalThis as unknown as HostWindow).host.setTheme(value), theme);
    },
  };
}
