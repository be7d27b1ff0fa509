import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { messageJson } from '../engine/render/wire.js';
import { createMcpServer, type EngineServer } from '../engine/server.js';
import { prototypeKeyProblem } from '../engine/prototype-keys.js';
import { jsonRpcMessageOf } from '../sdk/shortcuts.js';
import type { Runtime } from '../runtime.js';
import { telemetryObservers } from '../telemetry.js';
import { waitWhile } from './drain.js';
import { TopLevelIdScanner } from './top-level-id.js';

/**
 * stdio with bounded reads, in place of the SDK's transport (which closes the connection, and so
 * ends the process, on a message over its buffer, and leaves bad lines unanswered). A line over
 * `maxMessageBytes` is discarded as it streams in and answered with a JSON-RPC error; an
 * unparseable line gets a parse error; the process stays up. It also counts the requests it has
 * not answered yet, so a shutdown can wait for them, and refuses new ones while draining.
 */
export class BoundedStdioTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: Transport['onerror'];
  onclose?: Transport['onclose'];

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while an over-long line is being discarded: it reads the line's id as the bytes go by, so the error answers that request. */
  private discarding?: TopLevelIdScanner;
  private readonly pending = new Set<RequestId>();
  private draining = false;
  private closed = false;

  constructor(
    private readonly maxMessageBytes: number,
    /** SVC_SDK_SHORTCUTS: a request in the plain form is taken without the SDK's message schema (`jsonRpcMessageOf`). */
    private readonly sdkShortcuts: boolean,
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  /** Requests received and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** From now on new requests are refused; answers to those in flight still go out. */
  drain(): void {
    this.draining = true;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) this.pending.delete(message.id);
    if (this.closed) return;
    const json = `${messageJson(message)}\n`;
    if (!this.output.write(json)) await new Promise((resolve) => this.output.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private readonly onInputError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer) => {
    let rest = chunk;
    while (rest.length) {
      const newline = rest.indexOf(0x0a);
      const part = newline < 0 ? rest : rest.subarray(0, newline);
      rest = newline < 0 ? Buffer.alloc(0) : rest.subarray(newline + 1);
      if (this.discarding) {
        this.discarding.feed(part);
      } else if (this.size + part.length > this.maxMessageBytes) {
        this.discarding = new TopLevelIdScanner();
        for (const held of [...this.chunks, part]) this.discarding.feed(held);
        this.chunks = [];
        this.size = 0;
      } else {
        this.chunks.push(part);
        this.size += part.length;
      }
      if (newline < 0) break;
      if (this.discarding) {
        this.refuseOverLong(this.discarding.finish());
        this.discarding = undefined;
      } else {
        const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
        this.chunks = [];
        this.size = 0;
        if (line.trim()) this.receive(line);
      }
    }
  };

  private receive(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.answerError(null, ErrorCode.ParseError, 'Parse error: the line is not valid JSON');
      return;
    }
    const prototypeKey = prototypeKeyProblem(raw);
    if (prototypeKey) {
      this.answerError(idOf(raw), ErrorCode.InvalidRequest, `Invalid request: ${prototypeKey}`);
      return;
    }
    const message = jsonRpcMessageOf(raw, this.sdkShortcuts);
    if (!message) {
      this.answerError(idOf(raw), ErrorCode.InvalidRequest, 'Invalid request: not a JSON-RPC 2.0 message');
      return;
    }
    if ('method' in message && 'id' in message) {
      if (this.draining) {
        this.answerError(message.id, ErrorCode.ConnectionClosed, 'The server is shutting down; this request was not run');
        return;
      }
      this.pending.add(message.id);
    }
    this.onmessage?.(message);
  }

  private refuseOverLong(id: RequestId | null): void {
    this.answerError(id, ErrorCode.InvalidRequest, `Message over ${this.maxMessageBytes} bytes (SVC_MAX_MESSAGE_BYTES); it was discarded, only its id read`);
  }

  private answerError(id: RequestId | null, code: number, message: string): void {
    // JSON-RPC answers an unidentifiable request with id null, which the SDK's types do not model.
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: Error) => this.onerror?.(error));
  }
}

function idOf(raw: unknown): RequestId | null {
  const id = raw && typeof raw === 'object' ? (raw as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** The server a stdio process serves: one local client, one key. The in-process test harness builds the same one. */
export function stdioServer(runtime: Runtime): EngineServer {
  return createMcpServer({ ...runtime, apiKey: runtime.config.apiKey! });
}

/**
 * One local client, one key: the server speaks JSON-RPC on stdout and logs on stderr. On SIGTERM
 * or SIGINT new requests are refused and calls in flight get up to SVC_DRAIN_MS to finish; when
 * the client goes away (stdin closed) there is no one to answer, so calls stop at once.
 */
export async function serveStdio(runtime: Runtime): Promise<void> {
  const { config, logger } = runtime;
  const server = stdioServer(runtime);
  const transport = new BoundedStdioTransport(config.maxMessageBytes, config.sdkShortcuts);
  let closing = false;
  const shutdown = async (reason: string, drain: boolean) => {
    if (closing) return;
    closing = true;
    if (drain && transport.inFlight > 0) {
      transport.drain();
      logger.info({ reason, inFlight: transport.inFlight, drainMs: config.drainMs }, 'shutting down: finishing calls in flight');
      await waitWhile(() => transport.inFlight > 0, Date.now() + config.drainMs);
    }
    logger.info({ reason, unfinished: transport.inFlight }, 'shutting down');
    await server.close().catch(() => undefined);
    await runtime.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', true));
  process.on('SIGTERM', () => void shutdown('SIGTERM', true));
  process.stdin.on('end', () => void shutdown('stdin closed', false));
  transport.onclose = () => void shutdown('transport closed', false);
  await server.connect(
    transport,
    telemetryObservers('pipe', () => undefined),
  );
  logger.info({ transport: 'stdio', readOnly: config.readOnly, confirm: config.confirm, sandbox: Boolean(runtime.sandbox) }, 'svc-mcp ready');
}
