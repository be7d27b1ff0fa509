import type { Dispatcher, Pool } from 'undici';

export interface Exchanged {
  statusCode: number;
  text: string;
}

/**
 * One request through the pool and its answer as text, by undici's dispatch API: the request API
 * would wrap every answer in a Readable stream and an async resource, then read the stream back to
 * text, the larger part of undici's cost on every call. `signal` aborts it at any point, the
 * request's error then being its reason; `onStatus` hears the final status as soon as it is known.
 */
export function exchange(pool: Pool, options: Dispatcher.DispatchOptions, signal: AbortSignal, onStatus?: (status: number) => void): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let statusCode = 0;
    let controller: Dispatcher.DispatchController | undefined;
    const abort = () => controller?.abort(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    const settle = () => signal.removeEventListener('abort', abort);
    pool.dispatch(options, {
      onRequestStart(started) {
        controller = started;
        if (signal.aborted) abort();
      },
      onResponseStart(_, status) {
        // An informational answer (1xx) comes before the one that counts.
        if (status < 200) return;
        statusCode = status;
        onStatus?.(status);
      },
      onResponseData(_, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle();
        // Most answers arrive in one chunk, decoded as it is rather than copied first.
        resolve({ statusCode, text: (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8') });
      },
      onResponseError(_, error) {
        settle();
        reject(error);
      },
    });
  });
}
