import type { Runtime } from '../runtime.js';
import { ConfigError } from '../config.js';

export async function serveHttp(_runtime: Runtime): Promise<void> {
  throw new ConfigError('SVC_TRANSPORT=http is not available yet');
}
