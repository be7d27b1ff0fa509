/**
 * Tiny mock "store backend" under /__sandbox/mock/ that seeded data steps call (outbound data
 * steps only ever reach loopback URLs). Deterministic responses derived from the path.
 */
import type { IncomingHttpHeaders } from 'node:http';
/** Test token of the example store API: the seeded "Get order" step stores it as a secret header. */
export const MOCK_STORE_TOKEN = 'Bearer nw_live_4b1d9e0c7a2f';

export function mockRoutes(method: string, path: string, body: unknown, _query: URLSearchParams, headers: IncomingHttpHeaders = {}): { status: number; body: unknown } | undefined {
  let m = /^\/__sandbox\/mock\/orders\/([^/]+)$/.exec(path);
  if (m && method === 'GET') {
    const orderId = decodeURIComponent(m[1]);
    // Anonymous callers see the status only; the store token adds carrier and tracking; a wrong token gets 401.
    const auth = headers.authorization;
    if (auth !== undefined && auth !== MOCK_STORE_TOKEN) return { status: 401, body: { error: 'invalid store API token' } };
    if (orderId === 'missing' || orderId === '0') return { status: 404, body: { error: 'order not found' } };
    const n = [...orderId].reduce((s, c) => s + c.charCodeAt(0), 0);
    const statuses = ['processing', 'shipped', 'in_transit', 'delivered'];
    const status = statuses[n % statuses.length];
    const estimatedDelivery = new Date(Date.now() + (1 + (n % 7)) * 86_400_000).toISOString().slice(0, 10);
    if (auth === undefined) return { status: 200, body: { orderId, status, estimatedDelivery, authenticated: false } };
    return {
      status: 200,
      body: {
        orderId,
        status,
        authenticated: true,
        carrier: 'UPS',
        trackingNumber: `1Z999AA1${String(n * 7919).padStart(10, '0')}`,
        estimatedDelivery,
        items: [{ sku: 'NW-JKT-PARKA-M', name: 'Ridgeline Parka', quantity: 1 }],
      },
    };
  }
  m = /^\/__sandbox\/mock\/customers\/([^/]+)$/.exec(path);
  if (m && method === 'GET') {
    const email = decodeURIComponent(m[1]);
    const n = [...email].reduce((s, c) => s + c.charCodeAt(0), 0);
    return { status: 200, body: { email, tier: ['standard', 'silver', 'gold'][n % 3], lifetimeOrders: n % 23 } };
  }
  if (path === '/__sandbox/mock/returns' && method === 'POST') {
    const b = (body ?? {}) as Record<string, unknown>;
    return {
      status: 201,
      body: { orderId: b.orderId ?? null, reason: b.reason ?? null, labelUrl: `https://labels.northwind-outfitters.example/${encodeURIComponent(String(b.orderId ?? 'unknown'))}.pdf` },
    };
  }
  if (path === '/__sandbox/mock/echo') return { status: 200, body: { method, body: body ?? null } };
  return undefined;
}
