/**
 * An upstream that answers what the sandbox never would: a proxy in front of it that replaces chosen
 * answers with raw bodies (HTML, plain text, cut-off JSON) and counts every request it sees.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawAnswer {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: string;
}

export interface HostileUpstream {
  url: string;
  /** The next request to `method path` gets this answer instead of the sandbox's. */
  answerOnce(answer: RawAnswer): void;
  /** Requests seen for `method path`, answered by the proxy or the sandbox alike. */
  seen(method: string, path: string): number;
  close(): Promise<void>;
}

export async function startHostileUpstream(target: string): Promise<HostileUpstream> {
  const pending: RawAnswer[] = [];
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
    const route = `${method} ${path}`;
    counts.set(route, (counts.get(route) ?? 0) + 1);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = pending.findIndex((answer) => answer.method === method && answer.path === path);
      if (index >= 0) {
        const [answer] = pending.splice(index, 1);
        res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.body) });
        res.end(answer.body);
        return;
      }
      const headers = { ...req.headers, host: new URL(target).host };
      const forward = http.request(`${target}${req.url ?? '/'}`, { method, headers }, (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
      });
      forward.on('error', () => res.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answerOnce: (answer) => void pending.push(answer),
    seen: (method, path) => counts.get(`${method} ${path}`) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
