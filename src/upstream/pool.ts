/**
 * undici's connection pool without the rest of undici. Its index module also builds fetch,
 * WebSocket, the cache stores and the mock agents, and one of them reads `globalThis.Headers`,
 * which makes Node compile its own copy of undici: together about 100 ms of the first call of a
 * fresh process. Requests go through the pool's own `dispatch` (exchange.ts), so undici's request
 * API, which the index module would put on the pool, is not needed either.
 */
import Pool from 'undici/lib/dispatcher/pool.js';

export { Pool };
