/**
 * undici's connection pool without the rest of undici. Its index module also builds fetch,
 * WebSocket, the cache stores and the mock agents, and one of them reads `globalThis.Headers`,
 * which makes Node compile its own copy of undici: together about 100 ms of the first call of a
 * fresh process. The request API is put on the dispatchers' prototype exactly as that index
 * module does it, so a pool here behaves as `new (require('undici').Pool)()`.
 */
import api from 'undici/lib/api/index.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';

Object.assign(Dispatcher.prototype, api);

export { Pool };
